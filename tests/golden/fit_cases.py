#!/usr/bin/env python3
"""Write what RAGFlow's own `message_fit_in` and `num_tokens_from_string` return for the cases
the `exec::llm::fit` unit tests pin, one JSON line per case with its input, to
engine/src/llm/fit_cases.jsonl.

Runs in the reference oracle's venv, importing RAGFlow's exported sources (no RAGFlow code is
in this file; it only calls it):

    PYTHONPATH=../shared/reference-oracle $RAGFLOW_PY tests/golden/fit_cases.py \
        > engine/src/llm/fit_cases.jsonl

The oracle's bootstrap stubs RAGFlow's service modules so that `rag.prompts.generator` imports.
"""
import json
import sys

from ragflow_ref import bootstrap

bootstrap.install()  # the stubs RAGFlow's service imports need

from common.token_utils import num_tokens_from_string  # noqa: E402
from rag.prompts.generator import message_fit_in  # noqa: E402

LONG = "The quick brown fox jumps over the lazy dog. " * 40
CJK = "深度研究助手会先规划再检索然后总结答案。" * 30

CASES = [
    ("under_limit", [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "hello world"}], 100),
    ("keeps_system_and_last", [{"role": "system", "content": "Be brief."}, {"role": "user", "content": LONG}, {"role": "assistant", "content": LONG}, {"role": "user", "content": "And now?"}], 60),
    ("long_system_over_80_percent", [{"role": "system", "content": LONG}, {"role": "user", "content": "Summarise the text above please."}], 50),
    ("short_system_long_user", [{"role": "system", "content": "Answer in one line."}, {"role": "user", "content": LONG}], 40),
    ("non_positive_limit_is_8192", [{"role": "system", "content": "s"}, {"role": "user", "content": LONG * 6}], 0),
    ("single_user_over_limit", [{"role": "user", "content": LONG}], 10),
    ("last_is_system_listed_twice", [{"role": "user", "content": LONG}, {"role": "system", "content": LONG}], 30),
    ("cjk_cut_inside_a_character", [{"role": "system", "content": "系统"}, {"role": "user", "content": CJK}], 25),
    ("special_token_trim_raises", [{"role": "system", "content": "a <|fim_prefix|> b <|endoftext|>"}, {"role": "user", "content": LONG}], 5),
    ("special_token_counts_zero", [{"role": "system", "content": "x <|endoftext|> y"}, {"role": "user", "content": "hi"}], 100),
]


def main():
    for name, msgs, limit in CASES:
        try:
            count, fitted = message_fit_in([dict(m) for m in msgs], limit)
            out = {"count": count, "messages": fitted}
        except Exception as e:  # the exception RAGFlow's caller would see
            out = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps({"name": name, "input": msgs, "limit": limit, **out}, ensure_ascii=False))
    for text in ["hello world", "tiktoken is great!", LONG, CJK, "😀 emoji", "a <|endoftext|> b", ""]:
        print(json.dumps({"text": text, "count": num_tokens_from_string(text)}, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
