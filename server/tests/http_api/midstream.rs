//! A model that fails mid-stream, over HTTP, against RAGFlow's engine.
//!
//! RAGFlow's chat model turns a stream that breaks into an `**ERROR**` delta, its LLM
//! component keeps that as `_ERROR` and stops, and the canvas goes on: the answer streamed so
//! far is the Message's content and the run finishes (no error frame: RAGFlow sends
//! `{"code":500,…}` only for an exception that escapes the canvas). `oracle/` holds RAGFlow's
//! stream for this case, made by its engine through the reference oracle:
//!
//! ```sh
//! cd shared/reference-oracle
//! $RAGFLOW_PY <repo>/server/tests/http_api/oracle/midstream.py \
//!   <repo>/fixtures/valid/llm-think-stream.json \
//!   --script <repo>/server/tests/http_api/oracle/midstream.script.json \
//!   --query midway --no-state > <repo>/server/tests/http_api/oracle/midstream.expected.jsonl
//! ```

use regex::Regex;
use serde_json::{json, Value};

use crate::completions::{post_raw, redacted_transcript};
use crate::engine::chat_dsl;
use crate::harness::{tenant, unique};

const PATH: &str = "/agents/chat/completions";
const EXPECTED: &str = include_str!("oracle/midstream.expected.jsonl");

/// The oracle's normalisation (`normalize()` of its `run_canvas.py`): clock readings and ids
/// by key, dates and uuid hex inside strings.
fn normalise(v: &mut Value) {
    const KEYS: &[(&str, &str)] = &[
        ("message_id", "<message_id>"),
        ("task_id", "<task_id>"),
        ("created_at", "<created_at>"),
        ("elapsed_time", "<elapsed_time>"),
        ("_created_time", "<created_time>"),
        ("_elapsed_time", "<elapsed_time>"),
    ];
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match KEYS.iter().find(|(key, _)| key == k) {
                    Some((_, placeholder)) if !x.is_null() => *x = json!(placeholder),
                    _ => normalise(x),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise),
        Value::String(s) => {
            let date = Regex::new(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}").expect("a pattern");
            let uuid = Regex::new(r"(^|[^0-9a-f])[0-9a-f]{32}($|[^0-9a-f])").expect("a pattern");
            let out = date.replace_all(s, "<datetime>");
            let out = uuid.replace_all(&out, "$1<uuid>$2");
            *s = out.into_owned();
        }
        _ => {}
    }
}

#[tokio::test]
async fn a_model_failing_mid_stream_streams_and_records_what_ragflow_s_engine_does() {
    let t = tenant().await;
    let created = t
        .api
        .post(
            "/agents",
            json!({"title": unique("midstream"), "dsl": chat_dsl()}),
        )
        .await;
    let id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let (status, _, body) = post_raw(
        &t.api,
        PATH,
        json!({"agent_id": id, "query": "midway", "stream": true}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    insta::assert_snapshot!("midstream_sse", redacted_transcript(&body));

    // The events are RAGFlow's, once the server's own envelope key is set aside.
    let mut session_id = String::new();
    let events: Vec<Value> = body
        .split("\n\n")
        .filter_map(|frame| frame.strip_prefix("data:"))
        .filter(|payload| *payload != "[DONE]")
        .map(|payload| {
            let mut frame: Value = serde_json::from_str(payload).expect("a JSON frame");
            if let Some(sid) = frame.as_object_mut().and_then(|f| f.remove("session_id")) {
                session_id = sid.as_str().unwrap_or_default().to_string();
            }
            normalise(&mut frame);
            frame
        })
        .collect();
    let expected: Vec<Value> = EXPECTED
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("an oracle line"))
        .filter(|e| !e["event"].as_str().unwrap_or_default().starts_with('_'))
        .collect();
    assert_eq!(events, expected);

    // The session records the answer as far as it got, and the saved state the LLM's failure.
    let session = t
        .api
        .get(&format!("/agents/{id}/sessions/{session_id}"))
        .await;
    let stored = session.expect(0);
    assert_eq!(stored["round"], 1);
    assert_eq!(stored["message"][1]["content"], "The ");
    let outputs = &stored["dsl"]["components"]["LLM:WriteReply"]["obj"]["params"]["outputs"];
    let error = outputs["_ERROR"]["value"].as_str().unwrap_or_default();
    assert!(error.starts_with("**ERROR**: "), "{outputs}");
}
