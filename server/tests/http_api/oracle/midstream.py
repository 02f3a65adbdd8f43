"""RAGFlow's engine on a model that fails mid-stream (shared/reference-oracle).

The oracle's scripted model raises at call time for any `error`, while scripted-llm.md says
`"error": "broken-stream"` cuts a streamed answer after its first delta. This driver gives the
oracle's fake OpenAI client (below RAGFlow's real chat model, `LLMBundle` and components) that
behaviour, then runs the oracle's own `run_canvas` CLI with the arguments it is given. From the
reference-oracle directory:

  $RAGFLOW_PY <this file> <DSL.json> --script <script.json> --query <text> [run_canvas options]
"""
import runpy
import sys

sys.path.insert(0, ".")
from ragflow_ref import bootstrap  # noqa: F401,E402  (the import hooks come first)
from ragflow_ref import fake_llm  # noqa: E402

_pick = fake_llm._Script.pick
_stream = fake_llm._Completions._stream


def pick(self, messages, tools, stream):
    idx, reply = _pick(self, messages, tools, stream)
    if stream and reply.get("error") == "broken-stream":
        reply = {k: v for k, v in reply.items() if k != "error"}
        reply["_broken"] = True
    return idx, reply


async def stream(self, messages, content, reasoning, tcs, reply):
    sent = 0
    async for chunk in _stream(self, messages, content, reasoning, tcs, reply):
        if reply.get("_broken") and sent == 1:
            raise Exception("broken-stream")
        sent += 1
        yield chunk


fake_llm._Script.pick = pick
fake_llm._Completions._stream = stream
sys.argv = ["run_canvas"] + sys.argv[1:]
runpy.run_module("ragflow_ref.run_canvas", run_name="__main__")
