//! Reattachable streams (issue 42): a client that goes away leaves its run going
//! (`on_disconnect: continue`, the default) and reattaches with `Last-Event-ID` at
//! `GET /agents/{id}/runs/{message_id}/stream`, on any replica, receiving every event it missed
//! exactly once, in order, then the rest live.

use reqwest::Method;
use serde_json::json;

use crate::deployment::{answered, Deployment, Event};
use crate::engine::SLOW_CHUNKS;
use crate::harness::{api_key_at, extra_server, tenant, unique};

const PATH: &str = "/agents/chat/completions";

/// A client that read the run's first `keep` frames and left; then reattaches on `other`
/// (while the run still streams) and checks what it gets against a whole replay afterwards.
async fn leave_and_reattach(d: &Deployment, keep: usize) {
    let agent = d.chat_agent().await;
    let body = json!({"agent_id": agent, "query": "slow please", "stream": true});
    let mut first = d.stream(&d.a, PATH, body).await;
    let mut seen = Vec::new();
    while seen.len() < keep {
        seen.push(first.next().await.expect("a frame"));
    }
    drop(first);
    let frame = seen[0].json();
    let run = frame["message_id"].as_str().expect("a run id").to_string();
    let session = frame["session_id"].as_str().expect("a session").to_string();
    assert!(
        seen.iter().all(|e| e.id.is_none()),
        "the native stream has no ids"
    );

    let stream_path = format!("/agents/{agent}/runs/{run}/stream");
    let last = keep.to_string();
    let mut again = d
        .stream_with(
            &d.b,
            Method::GET,
            &stream_path,
            None,
            &[("Last-Event-ID", &last)],
        )
        .await;
    assert_eq!(again.response.status(), 200);
    let rest = again.rest().await;
    let ids: Vec<u64> = rest.iter().map(|e| e.id.expect("an id")).collect();
    let expected: Vec<u64> = (keep as u64 + 1..=(keep + rest.len()) as u64).collect();
    assert_eq!(ids, expected, "every event once, in order");
    assert_eq!(rest.last().map(|e| e.data.as_str()), Some("[DONE]"));
    assert!(
        rest.iter()
            .any(|e| e.json()["event"] == "workflow_finished"),
        "the reattached client saw the run's end live"
    );

    // The run went on to its end: the whole answer, saved.
    let whole: Vec<Event> = seen.iter().chain(&rest).cloned().collect();
    assert_eq!(
        answered(&whole).split_whitespace().count(),
        SLOW_CHUNKS,
        "{}",
        answered(&whole)
    );
    assert_eq!(d.ended_status(&agent, &run).await, "succeeded");
    let stored = d.session(&agent, &session).await;
    assert_eq!(stored["round"], 1, "{stored}");
    assert_eq!(
        stored["message"][1]["content"].as_str(),
        Some(answered(&whole).as_str())
    );

    // A replay from the start, on the run's own replica, is the same stream: what the first
    // client read, then what the reattached one did.
    let mut replay = d
        .stream_with(&d.a, Method::GET, &stream_path, None, &[])
        .await;
    let replayed = replay.rest().await;
    let datas = |events: &[Event]| events.iter().map(|e| e.data.clone()).collect::<Vec<_>>();
    assert_eq!(datas(&replayed), datas(&whole));
    let ids: Vec<u64> = replayed.iter().filter_map(|e| e.id).collect();
    assert_eq!(ids, (1..=whole.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_client_that_leaves_reattaches_and_receives_every_event_once_in_memory() {
    leave_and_reattach(&Deployment::in_memory().await, 6).await;
}

#[tokio::test]
async fn a_client_that_leaves_reattaches_through_the_other_replica_on_redis() {
    leave_and_reattach(&Deployment::redis_pair("reattach").await, 6).await;
}

#[tokio::test]
async fn on_disconnect_cancel_stops_the_run_and_its_stream_ends_with_the_cancel() {
    let d = Deployment::in_memory().await;
    let agent = d.chat_agent().await;
    let body = json!({"agent_id": agent, "query": "slow please", "stream": true,
        "on_disconnect": "cancel"});
    let mut first = d.stream(&d.a, PATH, body).await;
    let seen = first.until(|f| f["event"] == "message").await;
    drop(first);
    let run = seen[0].json()["message_id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_eq!(d.ended_status(&agent, &run).await, "cancelled");
    let path = format!("/agents/{agent}/runs/{run}/stream");
    let replayed = d
        .stream_with(&d.a, Method::GET, &path, None, &[])
        .await
        .rest()
        .await;
    assert!(answered(&replayed).split_whitespace().count() < SLOW_CHUNKS);
    assert_eq!(replayed.last().map(|e| e.data.as_str()), Some("[DONE]"));
}

/// A run of a new agent that answered (not streamed): the agent, the run and its stream's path.
async fn finished_run(d: &Deployment) -> (String, String, String) {
    let agent = d.chat_agent().await;
    let body = json!({"agent_id": agent, "query": "hi"});
    let answer = d.call(&d.a, Method::POST, PATH, Some(body)).await;
    let run = answer.expect(0)["message_id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let path = format!("/agents/{agent}/runs/{run}/stream");
    (agent, run, path)
}

#[tokio::test]
async fn reattaching_is_refused_with_a_reason() {
    let d = Deployment::in_memory().await;
    let (agent, run, path) = finished_run(&d).await;

    let bad = crate::harness::call_at(
        &d.a,
        Method::GET,
        &path,
        Some(&d.auth),
        None,
        &[("Last-Event-ID", "seven")],
    )
    .await;
    assert_eq!(bad.code(), 101, "{}", bad.body);
    assert!(bad.message().contains("Last-Event-ID"), "{}", bad.body);

    let unknown = d
        .call(
            &d.a,
            Method::GET,
            &format!("/agents/{agent}/runs/nope/stream"),
            None,
        )
        .await;
    assert_eq!((unknown.code(), unknown.message()), (102, "Run not found."));

    // Another tenant's run is not found, and its agent not reachable.
    let other = tenant().await;
    let theirs = other
        .api
        .get(&format!("/agents/{agent}/runs/{run}/stream"))
        .await;
    assert_ne!(theirs.code(), 0, "{}", theirs.body);

    let bad_choice = d
        .call(
            &d.a,
            Method::POST,
            PATH,
            Some(json!({"agent_id": agent, "query": "hi", "on_disconnect": "pause"})),
        )
        .await;
    assert_eq!(bad_choice.code(), 101, "{}", bad_choice.body);

    // Replaying after the last event gives nothing but the end.
    let whole = d
        .stream_with(&d.a, Method::GET, &path, None, &[])
        .await
        .rest()
        .await;
    let last = whole.len().to_string();
    let after = d
        .stream_with(&d.a, Method::GET, &path, None, &[("Last-Event-ID", &last)])
        .await
        .rest()
        .await;
    assert!(after.is_empty(), "{after:?}");
}

#[tokio::test]
async fn a_runs_events_are_gone_after_the_retention_window() {
    let base = extra_server(|config| {
        config.streams.retention = std::time::Duration::from_secs(1);
        config.registration = canvasc_server::Registration::Open;
    })
    .await;
    let auth = api_key_at(&base, &format!("{}@example.com", unique("retention"))).await;
    let d = Deployment {
        a: base.clone(),
        b: base,
        auth,
    };
    let (_, _, path) = finished_run(&d).await;
    let kept = d
        .stream_with(&d.a, Method::GET, &path, None, &[])
        .await
        .rest()
        .await;
    assert_eq!(kept.last().map(|e| e.data.as_str()), Some("[DONE]"));
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    let gone = d.call(&d.a, Method::GET, &path, None).await;
    assert_eq!(gone.code(), 102, "{}", gone.body);
    assert!(gone.message().contains("no longer kept"), "{}", gone.body);
}
