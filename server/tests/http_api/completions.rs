//! Chat completions in every mode (`http-api.md` §7): native SSE and JSON, OpenAI-compatible
//! streaming and not, the deprecated `agents_openai` path, the session a run creates or
//! continues, and the request errors. Streams are pinned as insta snapshots with ids and
//! clock readings redacted.

use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::chat_dsl;
use crate::harness::{agent, session, tenant, unique, Client};

/// The values that differ per run, by key.
const REDACTED: &[&str] = &[
    "message_id",
    "created_at",
    "task_id",
    "session_id",
    "elapsed_time",
    "_created_time",
    "_elapsed_time",
    "id",
    "created",
    "model",
    "sys.date",
];

fn redact(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if REDACTED.contains(&k.as_str()) && !x.is_null() {
                    *x = json!("[redacted]");
                } else {
                    redact(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// An SSE body with every JSON frame redacted and keep-alive comments (sent whenever the run
/// is quiet for a moment, so their number varies) left out; other lines as sent.
pub fn redacted_transcript(body: &str) -> String {
    body.replace(": keep-alive\n\n", "")
        .split('\n')
        .map(|line| {
            let (prefix, rest) = match line.strip_prefix("data: ") {
                Some(rest) => ("data: ", rest),
                None => match line.strip_prefix("data:") {
                    Some(rest) => ("data:", rest),
                    None => return line.to_string(),
                },
            };
            match serde_json::from_str::<Value>(rest) {
                Ok(mut frame) => {
                    redact(&mut frame);
                    format!("{prefix}{frame}")
                }
                Err(_) => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Posts a completion and returns status, the program header and the raw body.
pub async fn post_raw(client: &Client, path: &str, body: Value) -> (u16, String, String) {
    let response = client
        .request(Method::POST, path)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, program, response.text().await.expect("a body"))
}

/// The JSON frames of a native SSE body.
fn frames(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str(l.trim_start()).ok())
        .collect()
}

#[tokio::test]
async fn native_json_answers_the_final_event_and_records_the_turn() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("json")).await;
    let answer = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "hello there", "stream": false}),
        )
        .await;
    assert_eq!(answer.headers["x-canvasc-program"], "interpreted");
    let data = answer.expect(0);
    assert_eq!(data["event"], "message_end");
    assert_eq!(data["data"]["content"], "hello there");
    let sid = data["session_id"]
        .as_str()
        .expect("a session id")
        .to_string();
    assert_eq!(data["task_id"], data["session_id"]);
    let stored = t.api.get(&format!("/agents/{id}/sessions/{sid}")).await;
    let stored = stored.expect(0);
    let roles: Vec<&str> = stored["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(stored["message"][1]["content"], "hello there");
    assert_eq!(stored["round"], 1);
    assert_eq!(stored["source"], "workflow");
    // The run log of the turn names its program.
    let mid = data["message_id"].as_str().unwrap_or_default();
    let log = t.api.get(&format!("/agents/{id}/logs/{mid}")).await;
    assert_eq!(log.body["program"], "interpreted");
    assert!(log.expect(0).as_array().is_some_and(|l| !l.is_empty()));
    // The same session continues; `return_trace` adds the trace.
    let again = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "again", "session_id": sid,
                   "return_trace": true}),
        )
        .await;
    let again = again.expect(0);
    assert_eq!(again["session_id"], json!(sid));
    assert_eq!(again["data"]["content"], "again");
    assert!(again["data"]["trace"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
}

#[tokio::test]
async fn native_sse_frames_as_ragflow_does() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("sse")).await;
    let (status, program, body) = post_raw(
        &t.api,
        "/agents/chat/completions",
        json!({"agent_id": id, "query": "hi", "stream": true}),
    )
    .await;
    assert_eq!((status, program.as_str()), (200, "interpreted"));
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    assert!(!body.contains("data: {"), "native frames carry no space");
    insta::assert_snapshot!("native_sse", redacted_transcript(&body));
}

#[tokio::test]
async fn a_session_made_by_post_sessions_runs_with_the_full_event_set() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("sess")).await;
    let sid = session(&t.api, &id, "mine").await;
    let (_, _, body) = post_raw(
        &t.api,
        "/agents/chat/completions",
        json!({"agent_id": id, "query": "hey", "stream": true, "session_id": sid}),
    )
    .await;
    let frames = frames(&body);
    let events: Vec<&str> = frames.iter().filter_map(|f| f["event"].as_str()).collect();
    assert!(events.contains(&"workflow_started") && events.contains(&"workflow_finished"));
    assert!(frames.iter().all(|f| f["session_id"] == json!(sid)));
}

#[tokio::test]
async fn openai_mode_answers_in_openai_shapes() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("oai")).await;
    let messages = json!([{"role": "system", "content": "x"},
                          {"role": "user", "content": [{"type": "text", "text": "bonjour"}]}]);
    let whole = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "openai-compatible": true, "messages": messages,
                   "model": "anything"}),
        )
        .await;
    assert_eq!(whole.status, 200);
    let mut body = whole.body.clone();
    assert_eq!(body["choices"][0]["message"]["content"], "bonjour");
    redact(&mut body);
    insta::assert_json_snapshot!("openai_whole", body);
    let (status, _, stream) = post_raw(
        &t.api,
        &format!("/agents_openai/{id}/chat/completions"),
        json!({"messages": messages, "stream": true}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(stream.ends_with("data: [DONE]\n\n"), "{stream}");
    insta::assert_snapshot!("openai_stream", redacted_transcript(&stream));
}

#[tokio::test]
async fn request_errors_answer_ragflows_envelopes() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("err")).await;
    let path = "/agents/chat/completions";
    let missing = t.api.post(path, json!({"query": "x"})).await;
    assert_eq!(
        (missing.code(), missing.message()),
        (101, "`agent_id` is required.")
    );
    assert_eq!(missing.body["data"], false);
    let unknown = t
        .api
        .post(
            path,
            json!({"agent_id": id, "session_id": "nope", "query": "x"}),
        )
        .await;
    assert_eq!(
        (unknown.code(), unknown.message()),
        (102, "Session not found!")
    );
    let other = agent(&t.api, &unique("other")).await;
    let sid = session(&t.api, &other, "s").await;
    let wrong = t
        .api
        .post(
            path,
            json!({"agent_id": id, "session_id": sid, "query": "x"}),
        )
        .await;
    assert_eq!(
        (wrong.code(), wrong.message()),
        (103, "Session does not belong to the requested agent.")
    );
    let inputs = t
        .api
        .post(path, json!({"agent_id": id, "inputs": [1], "query": "x"}))
        .await;
    assert_eq!(inputs.code(), 101, "{}", inputs.body);
    let query = t.api.post(path, json!({"agent_id": id, "query": 5})).await;
    assert_eq!(query.code(), 101, "{}", query.body);
    let messages = t
        .api
        .post(
            path,
            json!({"agent_id": id, "openai-compatible": true, "messages": []}),
        )
        .await;
    assert_eq!(
        (messages.code(), messages.message()),
        (102, "You must provide at least one message.")
    );
    let malformed = t
        .api
        .send(
            t.api
                .request(Method::POST, path)
                .header("Content-Type", "application/json")
                .body("{\"agent_id\": "),
        )
        .await;
    assert_eq!((malformed.status, malformed.code()), (200, 101));
    let huge = "x".repeat(100 * 1024);
    let too_big = t
        .api
        .post(path, json!({"agent_id": id, "query": huge}))
        .await;
    assert_eq!(
        (too_big.status, too_big.code()),
        (200, 100),
        "{}",
        too_big.body
    );
}

#[tokio::test]
async fn reset_clears_the_agents_run_state() {
    let t = tenant().await;
    let mut dsl = chat_dsl();
    dsl["path"] = json!(["begin", "LLM:WriteReply"]);
    dsl["history"] = json!([["user", "old"]]);
    let created = t
        .api
        .post("/agents", json!({"title": unique("reset"), "dsl": dsl}))
        .await;
    let id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let reset = t.api.post(&format!("/agents/{id}/reset"), json!({})).await;
    let data = reset.expect(0);
    assert_eq!(data["path"], json!([]));
    assert_eq!(data["history"], json!([]));
    let stored = t.api.get(&format!("/agents/{id}")).await;
    assert_eq!(stored.expect(0)["dsl"]["path"], json!([]));
}

#[tokio::test]
async fn a_canvas_ragflow_cannot_build_is_refused_as_ragflow_refuses_it() {
    // A legacy `Generate` node: RAGFlow's `Canvas(dsl)` raises
    // `AssertionError("Can't import GenerateParam")` and its API answers
    // `server_error_response(e)` before storing a session.
    let dsl: Value = serde_json::from_str(include_str!(
        "../../../fixtures/broken/legacy-kind-generate.json"
    ))
    .expect("the fixture is JSON");
    let t = tenant().await;
    let created = t
        .api
        .post("/agents", json!({"title": unique("legacy"), "dsl": dsl}))
        .await;
    let id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let refusal = |answer: &crate::harness::Answer| {
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(
            answer.body,
            json!({"code": 100, "message": "AssertionError(\"Can't import GenerateParam\")", "data": null})
        );
    };
    for stream in [false, true] {
        let answer = t
            .api
            .post(
                "/agents/chat/completions",
                json!({"agent_id": id, "query": "hi", "stream": stream}),
            )
            .await;
        refusal(&answer);
    }
    refusal(
        &t.api
            .post(&format!("/agents/{id}/sessions"), json!({"name": "s"}))
            .await,
    );
    refusal(&t.api.post(&format!("/agents/{id}/reset"), json!({})).await);
    let sessions = t.api.get(&format!("/agents/{id}/sessions")).await;
    assert_eq!(sessions.body["total"], 0, "{}", sessions.body);
    // The OpenAI-compatible route builds the canvas inside its answer: `**ERROR**: <str(e)>`.
    let whole = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "openai-compatible": true,
                   "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(
        whole.body["choices"][0]["message"]["content"], "**ERROR**: Can't import GenerateParam",
        "{}",
        whole.body
    );
}
