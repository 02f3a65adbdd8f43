//! The integrity of turns (issue 39): turns racing for one session each read it only under
//! its lease.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engine::chat_dsl;
use crate::harness::{server, tenant, unique, Client};

const PATH: &str = "/agents/chat/completions";

/// Creates a draft agent on `dsl` (its turns run interpreted).
async fn agent_on(client: &Client, dsl: Value) -> String {
    let created = client
        .post("/agents", json!({"title": unique("integrity"), "dsl": dsl}))
        .await;
    created.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string()
}

async fn session_state(client: &Client, agent: &str, session: &str) -> Value {
    let answer = client
        .get(&format!("/agents/{agent}/sessions/{session}"))
        .await;
    answer.expect(0).clone()
}

/// Pads a session's stored transcript with `exchanges` old question-and-answer pairs: a long
/// session, whose state takes a while to read (the database's answer, then its JSON).
async fn pad_session(agent: &str, session: &str, exchanges: usize) {
    let store = &server().store;
    let record = store
        .session(agent, session)
        .await
        .expect("the store answers")
        .expect("the session");
    let mut state = record.state;
    let old = (0..exchanges).flat_map(|i| {
        let id = format!("old{i}");
        [
            json!({"role": "user", "content": format!("question {i}"), "id": id}),
            json!({"role": "assistant", "content": format!("answer {i}"), "id": id}),
        ]
    });
    if let Some(Value::Array(list)) = state.get_mut("message") {
        list.splice(0..0, old);
    }
    store
        .save_session_state(session, &state, 0)
        .await
        .expect("the padded state is stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_racing_for_a_session_each_read_it_under_their_lease() {
    let t = tenant().await;
    let agent = agent_on(&t.api, chat_dsl()).await;
    let first = t
        .api
        .post(PATH, json!({"agent_id": agent, "query": "first"}))
        .await;
    let session = first.expect(0)["session_id"]
        .as_str()
        .expect("a session")
        .to_string();
    pad_session(&agent, &session, 50_000).await;

    // Several turns on the session at once, each asking again while another holds it. A turn
    // that read the session before taking its lease would run (and save) from the state
    // before the turn that held it, and that turn would be lost.
    const TURNS: usize = 6;
    let racers = (0..TURNS).map(|i| {
        let (client, agent, session) = (t.api.clone(), agent.clone(), session.clone());
        tokio::spawn(async move {
            let query = format!("racer {i}");
            let started = Instant::now();
            loop {
                let body = json!({"agent_id": agent, "session_id": session, "query": query});
                let answer = client.post(PATH, body).await;
                match answer.code() {
                    0 => return query,
                    103 => {}
                    _ => panic!("{query}: {}", answer.body),
                }
                assert!(
                    started.elapsed() < Duration::from_secs(120),
                    "{query} never ran"
                );
            }
        })
    });
    let mut asked = Vec::new();
    for racer in futures::future::join_all(racers).await {
        asked.push(racer.expect("the racer ends"));
    }

    let stored = session_state(&t.api, &agent, &session).await;
    let said: Vec<&str> = stored["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.starts_with("racer "))
        .collect();
    let mut lost: Vec<&String> = asked
        .iter()
        .filter(|q| !said.contains(&q.as_str()))
        .collect();
    lost.sort();
    assert!(lost.is_empty(), "turns answered but lost: {lost:?}");
    assert_eq!(stored["round"], 1 + TURNS, "rounds");
}
