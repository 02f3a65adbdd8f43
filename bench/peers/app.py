"""The serve_peers bench's FastAPI peer: graphs.py's StateGraphs streamed over SSE by one
uvicorn process, as a hand-written Python service would serve them.

``POST /runs/{flow}/stream`` with ``{"query": ...}`` answers one ``data:`` frame per LangGraph
stream item (``updates`` per node, ``messages`` per model token), then ``data: [DONE]``.
"""

import json

from fastapi import FastAPI, HTTPException
from fastapi.responses import StreamingResponse

import graphs

GRAPHS = {"llm": graphs.llm, "chain": graphs.chain}

app = FastAPI()


@app.get("/ok")
async def ok():
    return {"ok": True}


def _frame(mode, chunk) -> str:
    if mode == "messages":
        token, meta = chunk
        data = {"event": mode, "node": meta.get("langgraph_node"), "content": token.content}
    else:
        data = {"event": mode, "data": chunk}
    return f"data: {json.dumps(data)}\n\n"


@app.post("/runs/{flow}/stream")
async def stream(flow: str, body: dict):
    graph = GRAPHS.get(flow)
    if graph is None:
        raise HTTPException(status_code=404, detail=f"no flow {flow!r}")
    start = {"query": str(body.get("query", "")), "user_id": str(body.get("user_id", ""))}

    async def frames():
        async for mode, chunk in graph.astream(start, stream_mode=["updates", "messages"]):
            yield _frame(mode, chunk)
        yield "data: [DONE]\n\n"

    return StreamingResponse(frames(), media_type="text/event-stream")
