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
    assert_eq!(
        history_of(session),
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

/// Sets a session's stored row, binding `state` (each database's placeholder syntax).
async fn set_row(pool: &sqlx::AnyPool, session_id: &str, state: &Value, canvas_id: Option<&str>) {
    let postgres = server().database_url.starts_with("postgres");
    let sql = match postgres {
        true => "UPDATE agent_sessions SET state = $1, canvas_id = $2 WHERE id = $3",
        false => "UPDATE agent_sessions SET state = ?, canvas_id = ? WHERE id = ?",
    };
    sqlx::query(sql)
        .bind(state.to_string())
        .bind(canvas_id.map(str::to_string))
        .bind(session_id.to_string())
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// A session's stored row: its state document and canvas id.
async fn row(pool: &sqlx::AnyPool, session_id: &str) -> (Value, Option<String>) {
    use sqlx::Row;
    assert!(session_id.chars().all(|c| c.is_ascii_alphanumeric()));
    let sql = format!("SELECT state, canvas_id FROM agent_sessions WHERE id = '{session_id}'");
    let row = sqlx::query(&sql)
        .fetch_one(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let text = match row.try_get::<String, _>("state") {
        Ok(text) => text,
        Err(_) => String::from_utf8(row.get::<Vec<u8>, _>("state")).expect("UTF-8"),
    };
    let canvas_id = match row.try_get::<Option<String>, _>("canvas_id") {
        Ok(id) => id,
        Err(_) => row
            .get::<Option<Vec<u8>>, _>("canvas_id")
            .map(|b| String::from_utf8(b).expect("UTF-8")),
    };
    (serde_json::from_str(&text).expect("JSON"), canvas_id)
}

/// The history of a session's DSL as the API shows it (RAGFlow's: the user's text, then the
/// Message's outputs): `(role, text)` per entry.
fn history_of(session: &Value) -> Vec<(Value, Value)> {
    session["dsl"]["history"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|turn| {
            let said = &turn[1];
            (turn[0].clone(), said.get("content").unwrap_or(said).clone())
        })
        .collect()
}

/// Rows written by earlier versions of the server hold the session's whole DSL: with no
/// canvas (before canvases were stored apart), or as a patch against the canvas. Both go on
/// with their next turn as they would have, and are then stored in the current form where
/// they have a canvas.
#[tokio::test]
async fn sessions_stored_by_earlier_versions_go_on() {
    let t = tenant().await;
    let created = t
        .api
        .post(
            "/agents",
            json!({"title": unique("legacy"), "dsl": minimal_dsl()}),
        )
        .await;
    let agent_id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let pool = pool().await;
    let shown_session = |session_id: &str| {
        let path = format!("/agents/{agent_id}/sessions/{session_id}");
        let api = &t.api;
        async move { api.get(&path).await.expect(0).clone() }
    };
    for form in ["whole", "patch"] {
        let first = t
            .api
            .post(
                "/agents/chat/completions",
                json!({"agent_id": agent_id, "query": "one", "stream": false}),
            )
            .await;
        let session_id = first.expect(0)["session_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let shown = shown_session(&session_id).await;
        let (mut state, canvas_id) = row(&pool, &session_id).await;
        let object = state.as_object_mut().expect("an object");
        assert!(object.remove("run_state").is_some(), "{form}: {object:?}");
        let canvas_id = match form {
            "whole" => {
                object.insert("dsl".into(), shown["dsl"].clone());
                None
            }
            _ => {
                let ops: Vec<Value> = shown["dsl"]
                    .as_object()
                    .expect("a DSL")
                    .iter()
                    .map(|(key, value)| json!({"op": "add", "path": format!("/{key}"), "value": value}))
                    .collect();
                object.insert("dsl_patch".into(), Value::from(ops));
                canvas_id
            }
        };
        set_row(&pool, &session_id, &state, canvas_id.as_deref()).await;
        let again = shown_session(&session_id).await;
        assert_eq!(again["dsl"], shown["dsl"], "{form}: read back as it was");

        let next = t
            .api
            .post(
                "/agents/chat/completions",
                json!({"agent_id": agent_id, "session_id": session_id, "query": "two", "stream": false}),
            )
            .await;
        assert_eq!(next.expect(0)["data"]["content"], "two", "{form}");
        let session = shown_session(&session_id).await;
        assert_eq!(
            history_of(&session),
            [
                (json!("user"), json!("one")),
                (json!("assistant"), json!("one")),
                (json!("user"), json!("two")),
                (json!("assistant"), json!("two"))
            ],
            "{form}"
        );
        assert_eq!(session["round"], 2, "{form}");
        let (stored, _) = row(&pool, &session_id).await;
        match form {
            "whole" => assert!(stored.get("dsl").is_some(), "{stored}"),
            _ => assert!(
                stored.get("run_state").is_some() && stored.get("dsl_patch").is_none(),
                "{stored}"
            ),
        }
    }
}
