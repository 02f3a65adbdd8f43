//! LLM components over the real client path: canvases run against the scripted
//! OpenAI-compatible server on 127.0.0.1 (429 then success, a stream broken mid-answer,
//! cancellation mid-stream, images for a vision model). The event-stream goldens of the same components, derived from
//! RAGFlow's engine, are in `tests/golden/` (`llm-*`, `categorize-*`, `agent-*`).

use canvasc_engine::events::Event;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, RunOutcome, Services, Session};
use canvasc_tests::scripted_server::ScriptedServer;
use canvasc_tests::workspace_root;
use serde_json::{json, Value as Json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A session of `fixture` whose LLM gets `params` merged into its parameters.
fn session(fixture: &str, server: &ScriptedServer, params: Json) -> Session<Interpreter> {
    let mut config = LlmConfig::single(&server.base_url(), Some("sk-test"));
    config.client.timeout = Duration::from_secs(20);
    session_with(fixture, config, params)
}

fn session_with(fixture: &str, config: LlmConfig, params: Json) -> Session<Interpreter> {
    let path = workspace_root().join("fixtures/valid").join(fixture);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let mut dsl: Json = serde_json::from_str(&text).expect("fixture is JSON");
    if let (Some(Json::Object(p)), Json::Object(extra)) = (
        dsl.pointer_mut("/components/LLM:WriteReply/obj/params"),
        params,
    ) {
        p.extend(extra);
    }
    let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("fixture loads");
    let program = Arc::new(Interpreter::from_analysis(&analysis));
    let services = Services {
        llm: Some(Arc::new(OpenAiProvider::new(
            Services::default().http,
            config,
        ))),
        ..Services::default()
    };
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    Session::new(program, analysis.document.dsl.clone(), services, rng, true)
}

fn query(q: &str) -> RunInput {
    RunInput {
        query: Some(json!(q)),
        user_id: Some(json!("user-1")),
        inputs: Some(json!({})),
        ..RunInput::default()
    }
}

fn message_text(events: &[Json]) -> String {
    events
        .iter()
        .filter(|e| e["event"] == "message")
        .filter_map(|e| e["data"]["content"].as_str())
        .collect()
}

fn finished<'a>(events: &'a [Json], id: &str) -> &'a Json {
    events
        .iter()
        .find(|e| e["event"] == "node_finished" && e["data"]["component_id"] == id)
        .unwrap_or_else(|| panic!("{id} finished: {events:#?}"))
}

#[tokio::test]
async fn a_429_is_retried_and_the_answer_streams() {
    let server = ScriptedServer::from_json(&json!({"chunking": "words", "responses": [
        {"match": "Question:", "status": 429, "times": 1},
        {"match": "Question:", "content": "Paris is the capital.", "times": -1}
    ]}))
    .expect("script");
    // The component's `max_retries` is the model layer's retry budget (0 would give up).
    let s = session(
        "llm-think-stream.json",
        &server,
        json!({"max_retries": 2, "delay_after_error": 0.01}),
    );
    let mut events: Vec<Json> = Vec::new();
    let outcome = s.run(query("Capital of France?"), &mut events).await;
    assert!(matches!(outcome, RunOutcome::Finished), "{outcome:?}");
    assert_eq!(message_text(&events), "Paris is the capital.");
    assert_eq!(server.request_count(), 2, "one 429, one answer");
    let llm = &finished(&events, "LLM:WriteReply")["data"];
    assert_eq!(llm["error"], Json::Null);
    assert_eq!(llm["outputs"]["content"], "Paris is the capital.");
}

#[tokio::test]
async fn a_stream_broken_mid_answer_is_the_components_error() {
    let server = ScriptedServer::from_json(&json!({"chunking": "words", "responses": [
        {"match": "Question:", "content": "Paris is the capital of France.", "error": "broken-stream"}
    ]}))
    .expect("script");
    let s = session("llm-think-stream.json", &server, json!({}));
    let mut events: Vec<Json> = Vec::new();
    let outcome = s.run(query("Capital of France?"), &mut events).await;
    // What arrived was shown, and the LLM's error (RAGFlow's `**ERROR**` text) names the broken
    // connection; as in RAGFlow, a stream that failed leaves no `node_finished` for its LLM.
    assert!(matches!(outcome, RunOutcome::Finished), "{outcome:?}");
    assert_eq!(message_text(&events), "Paris ");
    assert!(!events
        .iter()
        .any(|e| e["event"] == "node_finished" && e["data"]["component_id"] == "LLM:WriteReply"));
    let saved = s.save();
    let err = saved["components"]["LLM:WriteReply"]["obj"]["params"]["outputs"]["_ERROR"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        err.starts_with("**ERROR**: ") && err.contains("connection closed"),
        "{err}"
    );
}

#[tokio::test]
async fn cancel_mid_stream_stops_the_answer_and_the_request() {
    let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let server = ScriptedServer::from_json(&json!({"chunking": "words", "responses": [
        {"match": "Question:", "content": words.join(" "), "delay_ms": 50}
    ]}))
    .expect("script");
    let s = session("llm-think-stream.json", &server, json!({}));
    let cancel = s.cancel_flag();
    let mut texts = 0usize;
    let mut last = String::new();
    let mut sink = |e: Event<'_>| {
        let j = e.to_json();
        if j["event"] == "message" {
            texts += 1;
            if texts == 3 {
                cancel.cancel();
            }
        }
        last = j["event"].as_str().unwrap_or_default().to_string();
    };
    let outcome = tokio::time::timeout(Duration::from_secs(20), s.run(query("Go"), &mut sink))
        .await
        .expect("the run stops soon after the cancel");
    // Canceled inside the last batch: RAGFlow still finishes the workflow.
    assert!(matches!(outcome, RunOutcome::Finished), "{outcome:?}");
    assert!(texts < 10, "the stream stopped early ({texts} pieces)");
    assert_eq!(last, "workflow_finished");
    assert!(
        server.wait_for_disconnects(1, Duration::from_secs(5)).await,
        "the HTTP request was dropped"
    );
}

#[tokio::test]
async fn images_go_to_a_vision_model_as_a_cv_request() {
    let server = ScriptedServer::from_json(&json!({"responses": [
        {"match": "Question:", "content": "A red square.", "times": -1}
    ]}))
    .expect("script");
    let image = "data:image/png;base64,iVBORw0KGgo=";
    let turn = || RunInput {
        files: vec![json!(image)],
        ..query("What is in the picture?")
    };
    let text = |vision: bool| {
        format!(
            "[[models]]\nid = \"scripted-chat\"\nbase_url = \"{}\"\nvision = {vision}\n",
            server.base_url()
        )
    };
    for vision in [true, false] {
        server.clear_requests();
        let config = LlmConfig::from_toml_str(&text(vision), &|_| None).expect("config");
        let s = session_with("llm-think-stream.json", config, json!({}));
        let mut events: Vec<Json> = Vec::new();
        let outcome = s.run(turn(), &mut events).await;
        assert!(matches!(outcome, RunOutcome::Finished), "{outcome:?}");
        assert_eq!(message_text(&events), "A red square.");
        let requests = server.requests();
        let body = &requests[0].body;
        let user = &body["messages"][1];
        if vision {
            // RAGFlow's CV model: the image joins the first user message; no settings.
            assert_eq!(
                user["content"][1],
                json!({"type": "image_url", "image_url": {"url": image}})
            );
            assert!(user["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("Question:"));
            assert!(body.get("temperature").is_none(), "{body}");
        } else {
            assert!(user["content"].is_string(), "{body}");
            assert!(body.get("temperature").is_some(), "{body}");
        }
    }
}
