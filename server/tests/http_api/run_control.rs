//! Which program runs a turn (a released version compiled in runs compiled, a draft on the
//! interpreter), cancelling mid-stream, a client that disconnects (its run stops within a
//! second and the session keeps what ran), keep-alive comments, failed runs, and tenant
//! isolation of the run endpoints.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};

use crate::completions::post_raw;
use crate::engine::{chat_dsl, SLOW_CHUNKS, SLOW_DELAY_MS};
use crate::fault_rounds::{run_rounds, Turns};
use crate::harness::{tenant, unique, Client};
use crate::integrity::run_status;
use canvasc_server::coord::RunStatus;

const PATH: &str = "/agents/chat/completions";

/// Creates an agent on the compiled canvas, released or as a draft.
async fn chat_agent(client: &Client, release: bool) -> String {
    let created = client
        .post(
            "/agents",
            json!({"title": unique("chat"), "dsl": chat_dsl(), "release": release}),
        )
        .await;
    created.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string()
}

#[tokio::test]
async fn released_versions_run_compiled_and_drafts_interpreted() {
    let t = tenant().await;
    let released = chat_agent(&t.api, true).await;
    let (_, program, body) = post_raw(
        &t.api,
        PATH,
        json!({"agent_id": released, "query": "Paris?", "release": true, "stream": true}),
    )
    .await;
    assert_eq!(program, "compiled", "{body}");
    let (_, drafted, _) = post_raw(
        &t.api,
        PATH,
        json!({"agent_id": released, "query": "Paris?", "stream": true}),
    )
    .await;
    assert_eq!(drafted, "interpreted");
    // Both paths answer alike, and the run log records the path.
    let answer = t
        .api
        .post(
            PATH,
            json!({"agent_id": released, "query": "Rome?", "release": "true"}),
        )
        .await;
    assert_eq!(answer.headers["x-canvasc-program"], "compiled");
    let data = answer.expect(0);
    assert!(
        data["data"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Rome?")),
        "{data}"
    );
    let mid = data["message_id"].as_str().unwrap_or_default();
    let log = t.api.get(&format!("/agents/{released}/logs/{mid}")).await;
    assert_eq!(log.body["program"], "compiled");
    // A draft agent never runs compiled, even asked for a release: it has none.
    let draft = chat_agent(&t.api, false).await;
    let none = t
        .api
        .post(
            PATH,
            json!({"agent_id": draft, "query": "x", "release": true}),
        )
        .await;
    assert_eq!(none.code(), 102, "{}", none.body);
}

/// The JSON frames of an SSE text read so far (keep-alive comments and `[DONE]` skipped).
fn frames_of(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Whether the answer has begun streaming (a `message` frame).
fn answering(frames: &[Value]) -> bool {
    frames.iter().any(|f| f["event"] == "message")
}

/// Starts a slow streaming run and returns the response once its answer has begun streaming,
/// with its session id and the text read. A cancel from then on cuts the answer; one that
/// lands earlier, between the run's components, ends the run before its answer (RAGFlow's
/// `TaskCanceledException`), which the tests of a cut answer do not expect.
async fn slow_stream(client: &Client, agent_id: &str) -> (reqwest::Response, String, String) {
    slow_stream_until(client, agent_id, answering).await
}

/// [`slow_stream`], returning as soon as `enough` holds for the frames read (keep-alive
/// comments, which come when the run is slow to start, are not frames).
async fn slow_stream_until(
    client: &Client,
    agent_id: &str,
    enough: fn(&[Value]) -> bool,
) -> (reqwest::Response, String, String) {
    let mut response = client
        .request(Method::POST, PATH)
        .header("Content-Type", "application/json")
        // The client's going away cancels these runs, as RAGFlow's do (the default lets them
        // go on: `reattach.rs`).
        .body(
            json!({"agent_id": agent_id, "query": "slow please", "stream": true,
                "on_disconnect": "cancel"})
            .to_string(),
        )
        .send()
        .await
        .expect("the server answers");
    let mut seen = String::new();
    while !seen.ends_with("\n\n") || !enough(&frames_of(&seen)) {
        let chunk = response.chunk().await.expect("a chunk").expect("not ended");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let sid = frames_of(&seen)[0]["session_id"]
        .as_str()
        .expect("a session id")
        .to_string();
    (response, sid, seen)
}

#[tokio::test]
async fn cancel_ends_the_stream_with_ragflows_cancel_events() {
    let t = tenant().await;
    let id = chat_agent(&t.api, false).await;
    let (response, sid, mut body) = slow_stream(&t.api, &id).await;
    let started = Instant::now();
    let cancelled = t.api.post(&format!("/tasks/{sid}/cancel"), json!({})).await;
    assert_eq!(cancelled.expect(0), &json!(true));
    let mut rest = response.bytes_stream();
    while let Some(chunk) = rest.next().await {
        body.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
    }
    let full = SLOW_CHUNKS as u64 * SLOW_DELAY_MS;
    assert!(
        started.elapsed() < Duration::from_millis(full / 2),
        "cancel took {:?}",
        started.elapsed()
    );
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    let finished: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|f| f["event"] == "workflow_finished")
        .collect();
    // The run ends with one `workflow_finished`: the scheduler's cancel outcome where the flag
    // is seen between batches (`Task has been canceled`), or the last node's outputs when the
    // cancel cut the model's stream inside the final Message, as RAGFlow's engine does.
    assert_eq!(finished.len(), 1, "{body}");
    let answered: String = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|f| f["event"] == "message")
        .filter_map(|f| f["data"]["content"].as_str().map(String::from))
        .collect();
    assert!(
        answered.split_whitespace().count() < SLOW_CHUNKS,
        "{answered}"
    );
    // Cancelling again, or a session with no run, is fine.
    let again = t.api.post(&format!("/tasks/{sid}/cancel"), json!({})).await;
    assert_eq!(again.expect(0), &json!(true));
    let patch = t
        .api
        .call(
            Method::PATCH,
            &format!("/tasks/{sid}"),
            Some(json!({"action": "go"})),
        )
        .await;
    assert_eq!(
        (patch.code(), patch.message()),
        (101, "Invalid action 'go'. Only 'stop' is supported.")
    );
}

#[tokio::test]
async fn a_client_that_disconnects_stops_its_run_within_a_second() {
    run_rounds("a client that disconnects mid-stream", disconnect_round).await;
}

/// The session once the turn of a client that went away at `dropped` is saved (`done`
/// holds), and how long that took; panics when it is not saved within 5 s.
async fn saved_after_disconnect(
    client: &Client,
    agent: &str,
    session: &str,
    dropped: Instant,
    done: fn(&Value) -> bool,
) -> (Value, Duration) {
    loop {
        let answer = client
            .get(&format!("/agents/{agent}/sessions/{session}"))
            .await;
        let stored = answer.expect(0).clone();
        if done(&stored) {
            return (stored, dropped.elapsed());
        }
        assert!(
            dropped.elapsed() < Duration::from_secs(5),
            "the run never stopped: {stored}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The run's record once it has left `Running` (it ends after the turn is saved).
async fn ended_status(run_id: &str) -> RunStatus {
    let waited = Instant::now();
    loop {
        let status = run_status(run_id).await.0;
        if status != RunStatus::Running || waited.elapsed() >= Duration::from_secs(10) {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn first_run_id(seen: &str) -> String {
    frames_of(seen)[0]["message_id"]
        .as_str()
        .expect("the run's id")
        .to_string()
}

/// One round: a client that goes away while the answer streams (then the session's next
/// turn), and one that goes away at the run's first frame, which may be before the answer.
async fn disconnect_round(turns: Turns) {
    let t = tenant().await;
    let id = chat_agent(&t.api, false).await;
    let (response, sid, seen) = slow_stream(&t.api, &id).await;
    let run_id = first_run_id(&seen);
    drop(response);
    let dropped = Instant::now();
    // The turn is saved (round 1) once the run has stopped.
    let (stored, stopped) =
        saved_after_disconnect(&t.api, &id, &sid, dropped, |s| s["round"] == 1).await;
    eprintln!("disconnect → run stopped and saved in {stopped:?}");
    let messages = stored["message"].clone();
    let status = ended_status(&run_id).await;
    turns.turn(
        "the answer cut by the departing client",
        messages[0]["content"] == "slow please" && messages[1]["role"] == "assistant",
        stored["errors"] == "Task has been canceled" && status == RunStatus::Cancelled,
        format!("{status:?}: {stored}"),
    );
    assert!(stopped <= Duration::from_secs(1), "took {stopped:?}");
    assert_eq!(messages[0]["role"], "user");
    // What ran is recorded: the assistant turn holds the words streamed before the cancel.
    let answer = messages[1]["content"].as_str().unwrap_or_default();
    assert!(answer.split_whitespace().count() < SLOW_CHUNKS, "{answer}");
    // The session takes a new run afterwards.
    let next = t
        .api
        .post(
            PATH,
            json!({"agent_id": id, "session_id": sid, "query": "quick"}),
        )
        .await;
    let stored = t
        .api
        .get(&format!("/agents/{id}/sessions/{sid}"))
        .await
        .expect(0)
        .clone();
    turns.turn(
        "the next turn",
        stored["round"] == 2 && stored["message"][2]["content"] == "quick",
        next.code() == 0 && stored["errors"] == Value::Null,
        format!("{}\n{stored}", next.body),
    );
    next.expect(0);

    // Gone at the first frame: the cancel cuts the answer, or, when it lands before the
    // answer's component started, ends the run between components (RAGFlow's
    // `TaskCanceledException`: no answer, the round not counted). Either way the question
    // stays and the turn says it was cancelled, within the same second.
    let (response, sid, seen) = slow_stream_until(&t.api, &id, |f| !f.is_empty()).await;
    let run_id = first_run_id(&seen);
    drop(response);
    let dropped = Instant::now();
    let (stored, stopped) = saved_after_disconnect(&t.api, &id, &sid, dropped, |s| {
        s["errors"].as_str().is_some_and(|e| e.contains("canceled"))
    })
    .await;
    let status = ended_status(&run_id).await;
    let messages = stored["message"].as_array().cloned().unwrap_or_default();
    let cut_answer = messages.len() == 2
        && messages[1]["role"] == "assistant"
        && stored["round"] == 1
        && stored["errors"] == "Task has been canceled";
    let before_answer = messages.len() == 1
        && stored["round"] == 0
        && stored["errors"]
            .as_str()
            .is_some_and(|e| e.ends_with("has been canceled during batch execution."));
    eprintln!(
        "disconnect at the first frame → run stopped and saved in {stopped:?}, {}",
        if before_answer {
            "before the answer"
        } else {
            "in the answer"
        }
    );
    turns.turn(
        "the run left at its first frame",
        messages[0]["content"] == "slow please" && messages[0]["id"] == run_id.as_str(),
        (cut_answer || before_answer) && status == RunStatus::Cancelled,
        format!("{status:?}: {stored}"),
    );
    assert!(stopped <= Duration::from_secs(1), "took {stopped:?}");
}

#[tokio::test]
async fn idle_streams_get_keep_alive_comments_and_a_second_run_is_refused() {
    let t = tenant().await;
    let id = chat_agent(&t.api, false).await;
    let (response, sid, mut body) = slow_stream(&t.api, &id).await;
    let busy = t
        .api
        .post(
            PATH,
            json!({"agent_id": id, "session_id": sid, "query": "x"}),
        )
        .await;
    assert_eq!(
        (busy.code(), busy.message()),
        (103, "This agent session is already running.")
    );
    let mut rest = response.bytes_stream();
    while let Some(chunk) = rest.next().await {
        body.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
    }
    assert!(
        body.contains("\n: keep-alive\n\n") || body.starts_with(": keep-alive"),
        "{body}"
    );
    assert!(body.ends_with("data:[DONE]\n\n"));
}

#[tokio::test]
async fn a_model_failing_mid_stream_still_records_the_turn() {
    let t = tenant().await;
    let id = chat_agent(&t.api, false).await;
    let answer = t
        .api
        .post(PATH, json!({"agent_id": id, "query": "explode now"}))
        .await;
    let data = answer.expect(0).clone();
    let sid = data["session_id"].as_str().unwrap_or_default().to_string();
    // A model that fails mid-stream leaves the streamed answer as far as it got (here
    // nothing); the turn is recorded with it and its run log.
    let mid = data["message_id"].as_str().unwrap_or_default();
    let log = t.api.get(&format!("/agents/{id}/logs/{mid}")).await;
    assert!(log.expect(0).as_array().is_some_and(|l| !l.is_empty()));
    let session = t.api.get(&format!("/agents/{id}/sessions/{sid}")).await;
    let stored = session.expect(0).clone();
    assert_eq!(stored["round"], 1);
    assert_eq!(stored["message"][1]["content"], data["data"]["content"]);
}

#[tokio::test]
async fn another_tenant_cannot_run_cancel_or_reset_anothers_agent() {
    let owner = tenant().await;
    let other = tenant().await;
    let id = chat_agent(&owner.api, false).await;
    let answer = owner
        .api
        .post(PATH, json!({"agent_id": id, "query": "mine"}))
        .await;
    let data = answer.expect(0).clone();
    let sid = data["session_id"].as_str().unwrap_or_default().to_string();
    let mid = data["message_id"].as_str().unwrap_or_default().to_string();
    let run = other
        .api
        .post(PATH, json!({"agent_id": id, "query": "x"}))
        .await;
    assert_eq!(
        (run.code(), run.message()),
        (103, "Make sure you have permission to access the agent.")
    );
    let cont = other
        .api
        .post(
            PATH,
            json!({"agent_id": id, "session_id": sid, "query": "x"}),
        )
        .await;
    assert_eq!(
        (cont.code(), cont.message()),
        (103, "Only authorized users can access this agent session.")
    );
    let oai = other
        .api
        .post(
            &format!("/agents_openai/{id}/chat/completions"),
            json!({"messages": [{"role": "user", "content": "x"}]}),
        )
        .await;
    assert_eq!(oai.code(), 103, "{}", oai.body);
    let cancel = other
        .api
        .post(&format!("/tasks/{sid}/cancel"), json!({}))
        .await;
    assert_eq!(
        (cancel.code(), cancel.message()),
        (
            103,
            "Only the owner of the agent is authorized for this operation."
        )
    );
    let reset = other
        .api
        .post(&format!("/agents/{id}/reset"), json!({}))
        .await;
    assert_eq!(reset.code(), 103);
    let log = other.api.get(&format!("/agents/{id}/logs/{mid}")).await;
    assert_eq!(log.code(), 103);
    // The owner's session is untouched.
    let session = owner.api.get(&format!("/agents/{id}/sessions/{sid}")).await;
    assert_eq!(session.expect(0)["round"], 1);
}
