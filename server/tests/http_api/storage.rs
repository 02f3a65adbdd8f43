//! What a session costs the database: its canvas is stored once per agent and content, and a
//! session's row holds what its runs changed, so the row grows with the conversation, not
//! with the canvas. The API still answers RAGFlow's session objects, DSL and all.

use serde_json::{json, Value};

use crate::harness::{minimal_dsl, server, tenant, unique};

/// Bytes of text the canvas carries in a parameter no run changes.
const PADDING: usize = 48 * 1024;

async fn pool() -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::AnyPool::connect(&server().database_url)
        .await
        .expect("the test's database")
}

/// `(canvases of the agent, the largest stored session state in bytes)`.
async fn stored(pool: &sqlx::AnyPool, agent_id: &str) -> (usize, usize) {
    use sqlx::Row;
    // The agent id is the server's (letters and digits): inlined, one query text serves every
    // database's placeholder syntax.
    assert!(
        agent_id.chars().all(|c| c.is_ascii_alphanumeric()),
        "{agent_id}"
    );
    let rows = |sql: String| async move {
        sqlx::query(&sql)
            .fetch_all(pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    };
    let canvases = rows(format!(
        "SELECT id FROM canvases WHERE agent_id = '{agent_id}'"
    ))
    .await;
    let states = rows(format!(
        "SELECT state FROM agent_sessions WHERE agent_id = '{agent_id}'"
    ))
    .await;
    let largest = states
        .iter()
        // MariaDB's LONGTEXT reaches sqlx's `Any` driver as bytes.
        .map(|row| match row.try_get::<String, _>("state") {
            Ok(text) => text.len(),
            Err(_) => row.get::<Vec<u8>, _>("state").len(),
        })
        .max()
        .unwrap_or(0);
    (canvases.len(), largest)
}

#[tokio::test]
async fn sessions_store_their_canvas_once_and_answer_it_whole() {
    let t = tenant().await;
    let mut dsl = minimal_dsl();
    let padding = "x".repeat(PADDING);
    dsl["components"]["begin"]["obj"]["params"]["prologue"] = json!(padding);
    let created = t
        .api
        .post("/agents", json!({"title": unique("storage"), "dsl": dsl}))
        .await;
    let agent_id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    // Three sessions of one turn, and a second turn on the first.
    let mut sessions = Vec::new();
    for query in ["one", "two", "three"] {
        let answer = t
            .api
            .post(
                "/agents/chat/completions",
                json!({"agent_id": agent_id, "query": query, "stream": false}),
            )
            .await;
        let data = answer.expect(0);
        assert_eq!(data["data"]["content"], query, "{data}");
        sessions.push(data["session_id"].as_str().unwrap_or_default().to_string());
    }
    let again = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": agent_id, "session_id": sessions[0], "query": "four", "stream": false}),
        )
        .await;
    assert_eq!(again.expect(0)["data"]["content"], "four");

    let pool = pool().await;
    let (canvases, largest) = stored(&pool, &agent_id).await;
    assert_eq!(canvases, 1, "one canvas for every session of one DSL");
    assert!(
        largest > 0 && largest < PADDING / 8,
        "a session's row holds its conversation, not the {PADDING}-byte canvas: {largest} bytes"
    );

    // The API answers the session's whole DSL: the canvas with the run state of its turns.
    let session = t
        .api
        .get(&format!("/agents/{agent_id}/sessions/{}", sessions[0]))
        .await;
    let session = session.expect(0);
    let dsl = &session["dsl"];
    assert!(dsl["components"]["begin"]["obj"]["params"]["prologue"] == json!(padding));
    // RAGFlow's history: the user's text, then the Message's outputs.
    let history: Vec<(Value, Value)> = dsl["history"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|turn| {
            let said = &turn[1];
            (turn[0].clone(), said.get("content").unwrap_or(said).clone())
        })
        .collect();
    assert_eq!(
        history,
        [
            (json!("user"), json!("one")),
            (json!("assistant"), json!("one")),
            (json!("user"), json!("four")),
            (json!("assistant"), json!("four"))
        ]
    );
    assert_eq!(session["round"], 2);
    let listed = t
        .api
        .get(&format!("/agents/{agent_id}/sessions?id={}", sessions[1]))
        .await;
    let listed = &listed.expect(0)[0]["dsl"]["history"];
    assert_eq!(
        (&listed[0], &listed[1][1]["content"]),
        (&json!(["user", "two"]), &json!("two"))
    );

    // A canvas goes with its agent.
    t.api.delete(&format!("/agents/{agent_id}")).await.expect(0);
    assert_eq!(stored(&pool, &agent_id).await.0, 0);
}
