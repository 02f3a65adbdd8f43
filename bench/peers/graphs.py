"""The serve_peers bench's two flows as LangGraph StateGraphs, the same as llm.json and
chain.json beside this file run on canvasc:

* ``llm``: begin -> write_reply (a streamed chat completion, the prompts of llm.json's LLM
  component) -> message;
* ``chain``: begin -> step1 ... step20 (each appends `` s<i>``, as chain.json's StringTransform
  merges ``{previous} s<i>`` do) -> message.

Both LangGraph's API server (langgraph.json) and the FastAPI app (app.py) serve these objects.
The model is the bench's scripted OpenAI-compatible server, at ``CANVASC_PEERS_LLM_URL``.
Nodes are coroutines, so neither server sends them to a thread pool.
"""

import os
from typing import TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph

CHAIN_STEPS = 20


class Flow(TypedDict, total=False):
    query: str
    user_id: str
    text: str
    answer: str


async def begin(state: Flow) -> Flow:
    return {"text": state.get("query", "")}


async def message(state: Flow) -> Flow:
    return {"answer": state["text"]}


_model = ChatOpenAI(
    model="scripted-chat",
    base_url=os.environ.get("CANVASC_PEERS_LLM_URL", "http://127.0.0.1:9/v1"),
    api_key="sk-bench",
    temperature=0.2,
    streaming=True,
    max_retries=0,
)


async def write_reply(state: Flow) -> Flow:
    reply = await _model.ainvoke(
        [
            SystemMessage(f"You are a concise geography tutor for {state.get('user_id', '')}."),
            HumanMessage(f"Question: {state.get('query', '')}"),
        ]
    )
    return {"text": reply.content}


def _llm_graph():
    graph = StateGraph(Flow)
    graph.add_node("begin", begin)
    graph.add_node("write_reply", write_reply)
    graph.add_node("message", message)
    graph.add_edge(START, "begin")
    graph.add_edge("begin", "write_reply")
    graph.add_edge("write_reply", "message")
    graph.add_edge("message", END)
    return graph.compile()


def _step(i: int):
    async def step(state: Flow) -> Flow:
        return {"text": f"{state['text']} s{i}"}

    step.__name__ = f"step{i}"
    return step


def _chain_graph():
    graph = StateGraph(Flow)
    graph.add_node("begin", begin)
    previous = "begin"
    for i in range(1, CHAIN_STEPS + 1):
        graph.add_node(f"step{i}", _step(i))
        graph.add_edge(previous, f"step{i}")
        previous = f"step{i}"
    graph.add_node("message", message)
    graph.add_edge(previous, "message")
    graph.add_edge(START, "begin")
    graph.add_edge("message", END)
    return graph.compile()


llm = _llm_graph()
chain = _chain_graph()
