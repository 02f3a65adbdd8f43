"""RAGFlow's Python SDK (`ragflow-sdk`) against `canvasc serve`, used as its users use it:
create an agent, list, update, create sessions, ask streaming and not, delete. The expected
answers are those RAGFlow's own engine gave on the same canvas and script (tests/golden/)."""

from __future__ import annotations

import uuid

import pytest
from ragflow_sdk import RAGFlow


@pytest.fixture
def rag(served) -> RAGFlow:
    return RAGFlow(api_key=served.api_key, base_url=served.base_url)


def find(rag: RAGFlow, agent_id: str):
    return [a for a in rag.list_agents(page_size=100) if a.id == agent_id]


def test_agent_lifecycle_and_asking(rag: RAGFlow, golden):
    title = f"sdk-{uuid.uuid4().hex[:10]}"
    rag.create_agent(title=title, dsl=golden.dsl, description="made by ragflow-sdk")

    listed = [a for a in rag.list_agents(page_size=100, orderby="update_time", desc=True) if a.title == title]
    assert len(listed) == 1, [a.title for a in rag.list_agents(page_size=100)]
    agent = listed[0]
    assert agent.description == "made by ragflow-sdk"

    renamed = f"{title}-renamed"
    rag.update_agent(agent.id, title=renamed, description="updated by ragflow-sdk", dsl=golden.dsl)
    fetched = rag.get_agent(agent.id)
    assert (fetched.title, fetched.description) == (renamed, "updated by ragflow-sdk")
    assert sorted(fetched.dsl.components.to_json()) == sorted(golden.dsl["components"])

    streaming = agent.create_session()
    streamed = list(streaming.ask(golden.query, stream=True))
    assert streamed, "the stream yielded no message"
    assert "".join(m.content for m in streamed) == golden.streamed_text()
    assert all(m.role == "assistant" for m in streamed)

    blocking = agent.create_session()
    [answer] = list(blocking.ask(golden.query, stream=False))
    assert answer.content == golden.json_text()

    sessions = {s.id for s in agent.list_sessions(page_size=100)}
    assert {streaming.id, blocking.id} <= sessions
    agent.delete_sessions(ids=[streaming.id])
    assert {s.id for s in agent.list_sessions(page_size=100)} == sessions - {streaming.id}

    rag.delete_agent(agent.id)
    assert find(rag, agent.id) == []
    with pytest.raises(Exception):
        rag.get_agent(agent.id)


def test_a_bad_key_is_refused(served, golden):
    rag = RAGFlow(api_key="ragflow-not-a-key", base_url=served.base_url)
    with pytest.raises(Exception, match="Unauthorized"):
        rag.list_agents()
