"""The `openai` Python package against `canvasc serve`'s OpenAI-compatible agent endpoint,
streaming and not, through both ways a client reaches it (http-api.md §7.6): the deprecated
`/agents_openai/{agent_id}` base URL that stock clients use, and the unified endpoint with
`extra_body`. Expected answers are RAGFlow's own engine's on the same canvas (tests/golden/)."""

from __future__ import annotations

import uuid

import pytest
import requests
from openai import OpenAI


@pytest.fixture(scope="module")
def agent_id(served, golden) -> str:
    created = requests.post(
        served.api("/agents"),
        headers={"Authorization": f"Bearer {served.api_key}"},
        json={"title": f"openai-{uuid.uuid4().hex[:10]}", "dsl": golden.dsl},
    ).json()
    assert created["code"] == 0, created
    return created["data"]["id"]


def clients(served, agent_id: str) -> dict[str, tuple[OpenAI, dict]]:
    return {
        "agents_openai": (
            OpenAI(api_key=served.api_key, base_url=served.api(f"/agents_openai/{agent_id}")),
            {},
        ),
        "unified": (
            OpenAI(api_key=served.api_key, base_url=served.api("/agents")),
            {"extra_body": {"agent_id": agent_id, "openai-compatible": True}},
        ),
    }


# RAGFlow's completion_openai (api/db/services/canvas_service.py) builds the non-streaming
# answer from the `message` deltas alone, so a think block's markers add no text.
@pytest.mark.parametrize("route", ["agents_openai", "unified"])
def test_non_streaming(served, golden, agent_id, route):
    client, extra = clients(served, agent_id)[route]
    completion = client.chat.completions.create(
        model="canvasc",
        messages=[{"role": "user", "content": golden.query}],
        stream=False,
        **extra,
    )
    assert completion.object == "chat.completion"
    assert completion.model == agent_id
    [choice] = completion.choices
    assert choice.message.role == "assistant"
    assert choice.finish_reason == "stop"
    assert completion.usage.completion_tokens > 0
    assert choice.message.content == golden.streamed_text()


@pytest.mark.parametrize("route", ["agents_openai", "unified"])
def test_streaming(served, golden, agent_id, route):
    client, extra = clients(served, agent_id)[route]
    stream = client.chat.completions.create(
        model="canvasc",
        messages=[{"role": "user", "content": golden.query}],
        stream=True,
        **extra,
    )
    chunks = list(stream)
    assert chunks, "the stream yielded no chunk"
    assert all(c.object == "chat.completion.chunk" and c.model == agent_id for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == golden.streamed_text()
    assert chunks[-1].choices[0].finish_reason == "stop"
    # Every chunk names the session the run used, so a client can continue it.
    assert len({c.id for c in chunks}) == 1


def test_continuing_a_session(served, golden, agent_id):
    client, _ = clients(served, agent_id)["agents_openai"]
    first = client.chat.completions.create(
        model="canvasc", messages=[{"role": "user", "content": golden.query}]
    )
    sessions = requests.get(
        served.api(f"/agents/{agent_id}/sessions"),
        headers={"Authorization": f"Bearer {served.api_key}"},
        params={"id": first.id},
    ).json()
    assert sessions["code"] == 0, sessions
    assert [s["id"] for s in sessions["data"]] == [first.id]


def test_no_messages_is_refused(served, agent_id):
    answer = requests.post(
        served.api("/agents/chat/completions"),
        headers={"Authorization": f"Bearer {served.api_key}"},
        json={"agent_id": agent_id, "openai-compatible": True, "model": "m", "messages": []},
    ).json()
    assert answer["code"] == 102, answer
    assert "at least one message" in answer["message"], answer
