//! Double-texting (issue 42): a message for a session that is running follows the request's
//! `multitask_strategy` (reject, enqueue, interrupt, rollback), the same in memory and on two
//! replicas sharing Redis, where the second message lands on the other replica.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use crate::deployment::{answered, Deployment, Event, Stream};
use crate::engine::{SLOW_CHUNKS, SLOW_DELAY_MS};

const PATH: &str = "/agents/chat/completions";

/// A session whose run is streaming its (slow) answer on replica `a`.
struct Busy {
    agent: String,
    session: String,
    run: String,
    stream: Stream,
    seen: Vec<Event>,
}

async fn busy(d: &Deployment) -> Busy {
    let agent = d.chat_agent().await;
    let body = json!({"agent_id": agent, "query": "slow please", "stream": true});
    let mut stream = d.stream(&d.a, PATH, body).await;
    let seen = stream.until(|f| f["event"] == "message").await;
    let frame = seen[0].json();
    Busy {
        run: frame["message_id"].as_str().expect("a run").to_string(),
        session: frame["session_id"].as_str().expect("a session").to_string(),
        agent,
        stream,
        seen,
    }
}

fn message(busy: &Busy, query: &str, strategy: &str) -> Value {
    json!({"agent_id": busy.agent, "session_id": busy.session, "query": query,
        "multitask_strategy": strategy})
}

/// The session's messages as `role: content` of the user's, `assistant` for the answers.
fn turns(stored: &Value) -> Vec<String> {
    stored["message"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|m| match m["role"].as_str() {
                    Some("user") => format!("user: {}", m["content"].as_str().unwrap_or("")),
                    other => other.unwrap_or("?").to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The whole answer of the busy run, once its stream ended.
async fn busy_answer(busy: &mut Busy) -> String {
    let rest = busy.stream.rest().await;
    let whole: Vec<Event> = busy.seen.iter().chain(&rest).cloned().collect();
    answered(&whole)
}

async fn reject(d: Deployment) {
    let mut busy = busy(&d).await;
    let second = d
        .call(
            &d.b,
            Method::POST,
            PATH,
            Some(message(&busy, "again", "reject")),
        )
        .await;
    assert_eq!(
        (second.code(), second.message()),
        (103, "This agent session is already running.")
    );
    // No strategy is `reject`.
    let mut plain = message(&busy, "again", "reject");
    plain
        .as_object_mut()
        .map(|b| b.remove("multitask_strategy"));
    let third = d.call(&d.b, Method::POST, PATH, Some(plain)).await;
    assert_eq!(third.code(), 103, "{}", third.body);
    let answer = busy_answer(&mut busy).await;
    assert_eq!(answer.split_whitespace().count(), SLOW_CHUNKS, "{answer}");
    assert_eq!(d.ended_status(&busy.agent, &busy.run).await, "succeeded");
    let stored = d.session(&busy.agent, &busy.session).await;
    assert_eq!(turns(&stored), ["user: slow please", "assistant"]);
}

async fn enqueue(d: Deployment) {
    let mut busy = busy(&d).await;
    // Two waiting messages, one on each replica, in this order.
    let first = {
        let (d_b, auth, body) = (
            d.b.clone(),
            d.auth.clone(),
            message(&busy, "one", "enqueue"),
        );
        tokio::spawn(async move {
            crate::harness::call_at(&d_b, Method::POST, PATH, Some(&auth), Some(body), &[]).await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = {
        let (d_a, auth, body) = (
            d.a.clone(),
            d.auth.clone(),
            message(&busy, "two", "enqueue"),
        );
        tokio::spawn(async move {
            crate::harness::call_at(&d_a, Method::POST, PATH, Some(&auth), Some(body), &[]).await
        })
    };
    // The running turn is not disturbed.
    let answer = busy_answer(&mut busy).await;
    assert_eq!(answer.split_whitespace().count(), SLOW_CHUNKS, "{answer}");
    let (first, second) = (first.await.expect("ran"), second.await.expect("ran"));
    for answer in [first, second] {
        let content = &answer.expect(0)["data"]["content"];
        assert!(
            content.as_str().is_some_and(|c| !c.is_empty()),
            "{}",
            answer.body
        );
    }
    assert_eq!(d.ended_status(&busy.agent, &busy.run).await, "succeeded");
    let stored = d.session(&busy.agent, &busy.session).await;
    assert_eq!(
        turns(&stored),
        [
            "user: slow please",
            "assistant",
            "user: one",
            "assistant",
            "user: two",
            "assistant"
        ]
    );
    assert_eq!(stored["round"], 3, "{stored}");
}

/// `interrupt` (the cancelled turn is kept) or `rollback` (it is discarded).
async fn cut_short(d: Deployment, strategy: &str) {
    let mut busy = busy(&d).await;
    let asked = Instant::now();
    let second = {
        let (base, auth, body) = (
            d.b.clone(),
            d.auth.clone(),
            message(&busy, "instead", strategy),
        );
        tokio::spawn(async move {
            crate::harness::call_at(&base, Method::POST, PATH, Some(&auth), Some(body), &[]).await
        })
    };
    // The running turn stops at once (its answer cut short), and the new message runs.
    let answer = busy_answer(&mut busy).await;
    let full = Duration::from_millis(SLOW_CHUNKS as u64 * SLOW_DELAY_MS);
    assert!(asked.elapsed() < full / 2, "took {:?}", asked.elapsed());
    assert!(answer.split_whitespace().count() < SLOW_CHUNKS, "{answer}");
    // (Its answer is slow too when the session's history asks for one.)
    let second = second.await.expect("ran");
    let content = &second.expect(0)["data"]["content"];
    assert!(
        content.as_str().is_some_and(|c| !c.is_empty()),
        "{}",
        second.body
    );
    let stored = d.session(&busy.agent, &busy.session).await;
    let status = d.ended_status(&busy.agent, &busy.run).await;
    if strategy == "interrupt" {
        assert_eq!(status, "cancelled");
        assert_eq!(
            turns(&stored),
            [
                "user: slow please",
                "assistant",
                "user: instead",
                "assistant"
            ]
        );
        // What the interrupted turn finished is kept.
        assert_eq!(
            stored["message"][1]["content"].as_str(),
            Some(answer.as_str())
        );
        assert_eq!(stored["round"], 2, "{stored}");
    } else {
        assert_eq!(status, "rolled_back");
        assert_eq!(turns(&stored), ["user: instead", "assistant"]);
        assert_eq!(stored["round"], 1, "{stored}");
        // Nothing of it can be resumed either.
        let resume = d
            .call(
                &d.a,
                Method::POST,
                PATH,
                Some(json!({"agent_id": busy.agent, "session_id": busy.session,
                    "resume_from": busy.run})),
            )
            .await;
        assert_ne!(resume.code(), 0, "{}", resume.body);
    }
    assert_eq!(stored["errors"], Value::Null, "{stored}");
}

#[tokio::test]
async fn reject_refuses_a_second_message_in_memory() {
    reject(Deployment::in_memory().await).await;
}

#[tokio::test]
async fn reject_refuses_a_second_message_across_replicas() {
    reject(Deployment::redis_pair("reject").await).await;
}

#[tokio::test]
async fn enqueue_runs_waiting_messages_after_the_turn_in_order_in_memory() {
    enqueue(Deployment::in_memory().await).await;
}

#[tokio::test]
async fn enqueue_runs_waiting_messages_after_the_turn_in_order_across_replicas() {
    enqueue(Deployment::redis_pair("enqueue").await).await;
}

#[tokio::test]
async fn interrupt_cancels_the_turn_keeps_what_it_finished_and_runs_in_memory() {
    cut_short(Deployment::in_memory().await, "interrupt").await;
}

#[tokio::test]
async fn interrupt_cancels_the_turn_keeps_what_it_finished_and_runs_across_replicas() {
    cut_short(Deployment::redis_pair("interrupt").await, "interrupt").await;
}

#[tokio::test]
async fn rollback_cancels_the_turn_discards_it_and_runs_in_memory() {
    cut_short(Deployment::in_memory().await, "rollback").await;
}

#[tokio::test]
async fn rollback_cancels_the_turn_discards_it_and_runs_across_replicas() {
    cut_short(Deployment::redis_pair("rollback").await, "rollback").await;
}

#[tokio::test]
async fn an_unknown_strategy_is_refused_by_name() {
    let d = Deployment::in_memory().await;
    let agent = d.chat_agent().await;
    let answer = d
        .call(
            &d.a,
            Method::POST,
            PATH,
            Some(json!({"agent_id": agent, "query": "hi", "multitask_strategy": "queue"})),
        )
        .await;
    assert_eq!(answer.code(), 101, "{}", answer.body);
    assert!(
        answer.message().contains("multitask_strategy"),
        "{}",
        answer.body
    );
}
