#!/usr/bin/env python3
"""Write what RAGFlow's own `_stream_with_think_delta` yields for the chunk sequences the
`exec::llm::think_split` unit tests pin, one JSON line per case with its input, to
engine/src/llm/think_split_cases.jsonl.

Runs in the reference oracle's venv (no RAGFlow code is in this file; it only calls it):

    PYTHONPATH=../shared/reference-oracle $RAGFLOW_PY tests/golden/think_split_cases.py \\
        > engine/src/llm/think_split_cases.jsonl
"""
import asyncio
import json

from ragflow_ref import bootstrap

bootstrap.install()  # the stubs RAGFlow's service imports need

from api.db.services.dialog_service import _stream_with_think_delta  # noqa: E402

CASES = [
    ("plain_answer", ["Hello", " world", "!"], 0),
    ("think_then_answer", ["<think>", "plan", " it", "</think>", "The answer."], 0),
    ("tags_inside_chunks", ["<think>a</think>b", "c<think>d", "e</think>", " ", "f"], 0),
    ("close_then_whitespace_only", ["<think>x</think>  ", "\n", "tail"], 0),
    ("close_at_end", ["<think>only thoughts</think>"], 0),
    ("close_pending_then_close_again", ["<think>a</think>", "b</think>c"], 0),
    ("cumulative_resend", ["Hel", "Hello", "Hello wor", "Hello world"], 0),
    ("delta_that_looks_cumulative", ["a", "ab", "abc"], 0),
    ("answer_buffered_to_min_tokens", ["one ", "two ", "three ", "four ", "five ", "six"], 3),
    ("buffer_flushed_by_think", ["intro words here", "<think>", "t", "</think>", "end"], 16),
    ("stray_close_without_open", ["answer </think> more"], 0),
    ("empty_chunks", ["", "<think>", "", "x", "</think>", "", "y"], 0),
    ("unicode_and_nested_open", ["<think>思考<think>深入</think>", "答案。"], 0),
    ("separator_space_is_python_whitespace", ["<think>x</think>\x1c", "z"], 0),
]


async def run(chunks, min_tokens):
    async def gen():
        for c in chunks:
            yield c

    return [value for _, value, _ in [item async for item in _stream_with_think_delta(gen(), min_tokens=min_tokens)]]


def main():
    for name, chunks, min_tokens in CASES:
        out = asyncio.run(run(chunks, min_tokens))
        print(json.dumps({"name": name, "chunks": chunks, "min_tokens": min_tokens, "pieces": out}, ensure_ascii=False))


if __name__ == "__main__":
    main()
