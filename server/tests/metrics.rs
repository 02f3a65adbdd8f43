//! `GET /metrics` of a running server after known turns: a server of its own in this process
//! (the http_api suite's harness and engine), so every counted turn is one of this test's.
//! Expected values come from the turns' own streams (their `node_finished` and
//! `workflow_finished` events), never typed in.

#[allow(dead_code)]
#[path = "http_api/engine.rs"]
mod engine;
#[allow(dead_code)]
#[path = "http_api/harness.rs"]
mod harness;

use std::collections::BTreeMap;

use futures::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};

use harness::{server, tenant, unique, Client};

const PATH: &str = "/agents/chat/completions";

/// One streamed turn: the response's program header and its JSON frames.
async fn streamed(client: &Client, body: Value) -> (String, Vec<Value>) {
    let response = client
        .request(Method::POST, PATH)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let text = response.text().await.expect("a body");
    (program, frames(&text))
}

fn frames(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str(l.trim_start()).ok())
        .collect()
}

/// The samples of a text exposition: `name{labels}` → value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            Some((key.to_string(), value.parse().ok()?))
        })
        .collect()
}

async fn scrape(auth: Option<&str>) -> (u16, String, String) {
    let mut request = reqwest::Client::new().get(format!("{}/metrics", server().base));
    if let Some(auth) = auth {
        request = request.header("Authorization", auth);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, content_type, response.text().await.expect("a body"))
}

/// What the turns' events say the metrics must hold.
#[derive(Default)]
struct Expected {
    components: usize,
    input_tokens: u64,
    output_tokens: u64,
}

impl Expected {
    fn add(&mut self, frames: &[Value]) {
        for f in frames {
            match f["event"].as_str() {
                Some("node_finished") => self.components += 1,
                Some("workflow_finished") => {
                    let usage = &f["data"]["usage"];
                    self.input_tokens += usage["prompt_tokens"].as_u64().unwrap_or(0);
                    self.output_tokens += usage["completion_tokens"].as_u64().unwrap_or(0);
                }
                _ => {}
            }
        }
    }
}

#[tokio::test]
async fn metrics_count_known_turns_without_authentication() {
    let t = tenant().await;
    let created = t
        .api
        .post(
            "/agents",
            json!({"title": unique("metrics"), "dsl": engine::chat_dsl(), "release": true}),
        )
        .await;
    let agent = created.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string();
    let mut expected = Expected::default();

    // Two compiled turns (a released version compiled in) and one interpreted (the draft).
    for query in ["Paris?", "Rome?"] {
        let (program, released) = streamed(
            &t.api,
            json!({"agent_id": agent, "query": query, "release": true, "stream": true}),
        )
        .await;
        assert_eq!(program, "compiled");
        expected.add(&released);
    }
    let (program, drafted) = streamed(
        &t.api,
        json!({"agent_id": agent, "query": "Oslo?", "stream": true}),
    )
    .await;
    assert_eq!(program, "interpreted");
    expected.add(&drafted);

    // A slow turn canceled through the API once its first frame arrived.
    let response = t
        .api
        .request(Method::POST, PATH)
        .header("Content-Type", "application/json")
        .body(json!({"agent_id": agent, "query": "slow", "stream": true}).to_string())
        .send()
        .await
        .expect("the server answers");
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let mut canceled = false;
    while let Some(chunk) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
        if !canceled {
            if let Some(session) = frames(&text).first().and_then(|f| f["session_id"].as_str()) {
                t.api
                    .post(&format!("/tasks/{session}/cancel"), json!({}))
                    .await
                    .expect(0);
                canceled = true;
            }
        }
    }
    assert!(canceled, "the slow turn sent no frame: {text}");
    expected.add(&frames(&text));

    // A slow turn whose client goes away mid-answer (`on_disconnect: cancel`): the answer is
    // cut, the turn cancelled.
    let mut response = t
        .api
        .request(Method::POST, PATH)
        .header("Content-Type", "application/json")
        .body(
            json!({"agent_id": agent, "query": "slow", "stream": true,
                "on_disconnect": "cancel"})
            .to_string(),
        )
        .send()
        .await
        .expect("the server answers");
    let mut text = String::new();
    while frames(&text)
        .iter()
        .filter(|f| f["event"] == "message")
        .count()
        < 2
    {
        let chunk = response.chunk().await.expect("a chunk");
        text.push_str(&String::from_utf8_lossy(
            &chunk.expect("the answer goes on"),
        ));
    }
    let first = frames(&text).first().cloned().expect("a frame");
    let session = first["session_id"].as_str().expect("a session").to_string();
    let run_id = first["message_id"].as_str().expect("a run").to_string();
    drop(response);
    let left = std::time::Instant::now();
    loop {
        let stored = t
            .api
            .get(&format!("/agents/{agent}/sessions/{session}"))
            .await;
        if stored.expect(0)["round"] == 1 {
            break;
        }
        assert!(left.elapsed() < std::time::Duration::from_secs(5));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // Its components finished after the client left: the run's log has every one.
    let log = t.api.get(&format!("/agents/{agent}/logs/{run_id}")).await;
    expected.components += log
        .expect(0)
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["trace"].as_array())
        .map(Vec::len)
        .sum::<usize>();

    // No credential, and a wrong one: the metrics answer either way.
    let (status, content_type, exposition) = scrape(None).await;
    assert_eq!(status, 200, "{exposition}");
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    assert_eq!(scrape(Some("Bearer not-a-key")).await.0, 200);
    let s = samples(&exposition);
    let get = |k: &str| {
        s.get(k)
            .copied()
            .unwrap_or_else(|| panic!("no {k} in\n{exposition}"))
    };
    assert_eq!(
        get(r#"canvasc_runs_total{outcome="finished",mode="compiled"}"#),
        2.0
    );
    // Both cancelled turns count as `canceled`, whether the cancel was seen between batches or
    // cut the model's stream inside the final Message (which ends the engine's run with an
    // ordinary `workflow_finished`, as RAGFlow's does).
    let interpreted = |outcome: &str| {
        s.get(&format!(
            r#"canvasc_runs_total{{outcome="{outcome}",mode="interpreted"}}"#
        ))
        .copied()
        .unwrap_or(0.0)
    };
    assert_eq!(interpreted("finished"), 1.0, "{exposition}");
    assert_eq!(interpreted("canceled"), 2.0, "{exposition}");
    assert_eq!(
        get(r#"canvasc_run_duration_seconds_count{mode="compiled"}"#),
        2.0
    );
    assert_eq!(
        get(r#"canvasc_run_duration_seconds_count{mode="interpreted"}"#),
        3.0
    );
    assert_eq!(get("canvasc_runs_in_flight"), 0.0);
    // The finished runs' streams are kept in this process for clients that reattach.
    assert!(get("canvasc_kept_stream_bytes") > 0.0, "{exposition}");
    assert_eq!(get("canvasc_cancel_latency_seconds_count"), 2.0);
    assert!(get("canvasc_cancel_latency_seconds_sum") < 5.0);
    assert_eq!(get("canvasc_store_errors_total"), 0.0);
    let components: f64 = s
        .iter()
        .filter(|(k, _)| k.starts_with("canvasc_component_duration_seconds_count{"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(components, expected.components as f64, "{exposition}");
    let tokens = |kind: &str| {
        s.get(&format!(r#"canvasc_model_tokens_total{{type="{kind}"}}"#))
            .copied()
            .unwrap_or(0.0)
    };
    assert_eq!(
        tokens("input"),
        expected.input_tokens as f64,
        "{exposition}"
    );
    assert_eq!(
        tokens("output"),
        expected.output_tokens as f64,
        "{exposition}"
    );
    // The suite's scripted model reports no usage, so both are the streams' zero here; the
    // OTLP test (tests/tests/telemetry_otlp.rs) checks token counts with a model that does.
    // The API key never shows in the exposition.
    assert!(!exposition.contains(&t.api_key));
}
