//! The endpoints of issue 42 that `http-api.md` lists beside the chat completions: the
//! deprecated completions path (#17), tags (#31), the OpenAI-compatible model list, and the
//! OpenAI-compatible answer of a failed run (§7.6).

use futures::StreamExt;
use serde_json::{json, Value};

use crate::harness::{minimal_dsl, server, tenant, unique};

async fn agent_with(t: &crate::harness::Tenant, dsl: Value) -> String {
    crate::harness::agent_with(&t.api, &unique("endpoints"), dsl).await
}

#[tokio::test]
async fn the_deprecated_completions_path_runs_the_agent_it_names() {
    let t = tenant().await;
    let id = agent_with(&t, minimal_dsl()).await;
    // The path's agent wins over a body's, as in RAGFlow.
    let answer = t
        .api
        .post(
            &format!("/agents/{id}/completions"),
            json!({"query": "hello there", "agent_id": "not-this-one"}),
        )
        .await;
    let data = answer.expect(0);
    assert_eq!(data["data"]["content"], "hello there", "{data}");
    let session = data["session_id"].as_str().expect("a session");
    let sessions = t
        .api
        .get(&format!("/agents/{id}/sessions?id={session}"))
        .await;
    assert_eq!(sessions.expect(0).as_array().map(Vec::len), Some(1));
    let openai = t
        .api
        .post(
            &format!("/agents/{id}/completions"),
            json!({"openai-compatible": true, "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(openai.body["object"], "chat.completion", "{}", openai.body);
    assert_eq!(openai.body["choices"][0]["message"]["content"], "hi");
    let other = tenant().await;
    let refused = other
        .api
        .post(&format!("/agents/{id}/completions"), json!({"query": "x"}))
        .await;
    assert_eq!(refused.code(), 103, "{}", refused.body);
}

#[tokio::test]
async fn tags_are_set_normalised_and_counted_per_tenant() {
    let t = tenant().await;
    let first = agent_with(&t, minimal_dsl()).await;
    let second = agent_with(&t, minimal_dsl()).await;
    let set = t
        .api
        .put(
            &format!("/agents/{first}/tags"),
            json!({"tags": ["ops", "B", "b", "x,y", " "]}),
        )
        .await;
    assert_eq!(set.expect(0), &json!(true));
    let set = t
        .api
        .put(&format!("/agents/{second}/tags"), json!({"tags": "ops, c"}))
        .await;
    set.expect(0);
    let agent = t.api.get(&format!("/agents/{first}")).await;
    assert_eq!(agent.expect(0)["tags"], "ops,B,x y");
    let counted = t.api.get("/agents/tags").await;
    assert_eq!(
        counted.expect(0),
        &json!([{"tag": "ops", "count": 2}, {"tag": "B", "count": 1},
                {"tag": "c", "count": 1}, {"tag": "x y", "count": 1}])
    );
    let pipelines = t
        .api
        .get("/agents/tags?canvas_category=dataflow_canvas")
        .await;
    assert_eq!(pipelines.expect(0), &json!([]));
    // Another tenant neither sees nor sets them.
    let other = tenant().await;
    assert_eq!(other.api.get("/agents/tags").await.expect(0), &json!([]));
    let refused = other
        .api
        .put(&format!("/agents/{first}/tags"), json!({"tags": ["mine"]}))
        .await;
    assert_eq!(
        (refused.code(), refused.message()),
        (103, "Agent not found or no permission.")
    );
}

#[tokio::test]
async fn the_openai_base_url_lists_its_agent_as_the_model() {
    let t = tenant().await;
    let id = agent_with(&t, minimal_dsl()).await;
    let listed = t.api.get(&format!("/agents_openai/{id}/models")).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body["object"], "list");
    assert_eq!(listed.body["data"][0]["id"], id.as_str());
    assert_eq!(listed.body["data"][0]["object"], "model");
    let other = tenant().await;
    let hidden = other.api.get(&format!("/agents_openai/{id}/models")).await;
    assert_eq!(hidden.status, 404);
    assert_eq!(
        hidden.body["error"]["code"], "model_not_found",
        "{}",
        hidden.body
    );
}

/// Begin → Invoke that fails (no exception route) → Message.
fn failing_dsl() -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["Invoke:Fail"], "upstream": []},
            "Invoke:Fail": {"obj": {"component_name": "Invoke", "params": {
                "url": "http://127.0.0.1:9/never", "method": "GET", "timeout": 2,
                "headers": "", "proxy": "", "clean_html": false, "datatype": "json",
                "variables": [], "max_retries": 0}},
                "downstream": ["message"], "upstream": ["begin"]},
            "message": {"obj": {"component_name": "Message", "params": {"content": ["{Invoke:Fail@result}"]}},
                        "downstream": [], "upstream": ["Invoke:Fail"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    })
}

#[tokio::test]
async fn a_failed_run_answers_its_error_in_openai_mode_whole_and_streamed() {
    let t = tenant().await;
    let id = agent_with(&t, failing_dsl()).await;
    let body = json!({"agent_id": id, "openai-compatible": true,
        "messages": [{"role": "user", "content": "go"}]});
    let whole = t.api.post("/agents/chat/completions", body.clone()).await;
    let content = whole.body["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        content.starts_with("**ERROR**: ") && content.len() > "**ERROR**: ".len(),
        "{}",
        whole.body
    );
    assert_eq!(whole.body["choices"][0]["finish_reason"], "stop");
    let mut streamed = body;
    streamed["stream"] = json!(true);
    let response = reqwest::Client::new()
        .post(format!("{}/api/v1/agents/chat/completions", server().base))
        .header("Authorization", format!("Bearer {}", t.api_key))
        .json(&streamed)
        .send()
        .await
        .expect("the server answers");
    let mut text = String::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
    }
    let frames: Vec<Value> = text
        .split("\n\n")
        .filter_map(|f| f.strip_prefix("data: "))
        .filter(|f| *f != "[DONE]")
        .filter_map(|f| serde_json::from_str(f).ok())
        .collect();
    let last = frames.last().expect("frames");
    assert_eq!(last["choices"][0]["finish_reason"], "stop", "{text}");
    assert_eq!(
        last["choices"][0]["delta"]["content"],
        content.as_str(),
        "the stream ends with the same error: {text}"
    );
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
}

#[tokio::test]
async fn an_embedded_agent_answers_its_page_with_a_beta_token() {
    let t = tenant().await;
    let id = agent_with(&t, minimal_dsl()).await;
    let bot = crate::harness::Client::anonymous().with_auth(&format!("Bearer {}", t.beta));
    let inputs = bot.get(&format!("/agentbots/{id}/inputs")).await;
    let data = inputs.expect(0);
    assert_eq!(
        (&data["inputs"], &data["mode"], &data["prologue"]),
        (
            &json!({}),
            &json!("conversational"),
            &json!("Hi! I'm your smart assistant. What can I do for you?")
        ),
        "{data}"
    );
    assert!(data["title"]
        .as_str()
        .is_some_and(|t| t.starts_with("endpoints")));

    // Not streamed: the last event with the whole answer.
    let answer = bot
        .post(
            &format!("/agentbots/{id}/completions"),
            json!({"query": "embedded hello", "stream": false}),
        )
        .await;
    assert_eq!(answer.body.get("message"), None, "{}", answer.body);
    let last = answer.expect(0).clone();
    assert_eq!(last["data"]["content"], "embedded hello", "{last}");
    let message_id = last["message_id"]
        .as_str()
        .expect("a message id")
        .to_string();
    let session_id = last["session_id"].as_str().expect("a session").to_string();
    let session = t
        .api
        .get(&format!("/agents/{id}/sessions?id={session_id}"))
        .await;
    assert_eq!(session.expect(0)[0]["source"], "agent", "{}", session.body);
    let logs = bot.get(&format!("/agentbots/{id}/logs/{message_id}")).await;
    let trace = logs.expect(0);
    assert!(
        trace
            .as_array()
            .is_some_and(|t| t.iter().any(|c| c["component_id"] == "message")),
        "{trace}"
    );

    // Streamed by default: RAGFlow's frames, without a terminator.
    let response = reqwest::Client::new()
        .post(format!(
            "{}/api/v1/agentbots/{id}/completions",
            server().base
        ))
        .header("Authorization", format!("Bearer {}", t.beta))
        .json(&json!({"query": "streamed"}))
        .send()
        .await
        .expect("the server answers");
    let text = response.text().await.expect("a body");
    assert!(
        text.starts_with("data:{\"event\":\"workflow_started\""),
        "{text}"
    );
    assert!(text.contains("\"content\":\"streamed\""), "{text}");
    assert!(!text.contains("[DONE]"), "{text}");

    // Another tenant's token reaches nothing.
    let stranger = tenant().await;
    let other = crate::harness::Client::anonymous().with_auth(&format!("Bearer {}", stranger.beta));
    for path in [
        format!("/agentbots/{id}/inputs"),
        format!("/agentbots/{id}/logs/{message_id}"),
    ] {
        let refused = other.get(&path).await;
        assert_eq!(
            (refused.code(), refused.message().to_string()),
            (102, format!("Can't find agent by ID: {id}")),
            "{path}"
        );
    }
    let refused = other
        .post(
            &format!("/agentbots/{id}/completions"),
            json!({"query": "x"}),
        )
        .await;
    assert_eq!(refused.code(), 102);
}

/// RAGFlow's answers for the components of `canvas` (`tests/golden/input_forms/`).
fn input_form_goldens(canvas: &str) -> Value {
    let path = format!(
        "{}/../tests/golden/input_forms/expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let all: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    all[canvas].clone()
}

#[tokio::test]
async fn a_components_input_form_is_ragflows_answer() {
    let t = tenant().await;
    let canvas = "fixtures/valid/llm-think-stream.json";
    let id = agent_with(&t, crate::engine::chat_dsl()).await;
    let goldens = input_form_goldens(canvas);
    let components = goldens.as_object().cloned().unwrap_or_default();
    // The LLM's form, the Message's `AttributeError`, the missing component's `TypeError`.
    assert_eq!(components.len(), 4, "{goldens}");
    for (cid, theirs) in components {
        let answer = t
            .api
            .get(&format!("/agents/{id}/components/{cid}/input-form"))
            .await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body, theirs, "{cid}");
    }
    // Another tenant's agent, or none: RAGFlow's access refusal.
    let other = tenant().await;
    for agent in [id.as_str(), "no-such-agent"] {
        let refused = other
            .api
            .get(&format!("/agents/{agent}/components/begin/input-form"))
            .await;
        assert_eq!(
            (refused.code(), refused.message()),
            (103, "Make sure you have permission to access the agent.")
        );
    }
}
