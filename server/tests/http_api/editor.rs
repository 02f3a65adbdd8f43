//! The agent editor's support endpoints (http-api.md §12–§13): prompts, templates, the webhook
//! test-run poll, the database connection test against the machine's MariaDB and PostgreSQL,
//! and the pipeline re-run's validation.

use serde_json::json;

use crate::harness::{agent, tenant, unique, Client};

#[tokio::test]
async fn prompts_and_templates_need_a_key_and_answer_their_shapes() {
    let anonymous = Client::anonymous();
    for path in ["/agents/prompts", "/agents/templates"] {
        let answer = anonymous.get(path).await;
        assert_eq!((answer.status, answer.code()), (401, 401), "{path}");
    }
    let t = tenant().await;
    let prompts = t.api.get("/agents/prompts").await;
    let prompts = prompts.expect(0);
    for key in [
        "task_analysis",
        "plan_generation",
        "reflection",
        "citation_guidelines",
    ] {
        assert!(
            prompts[key].as_str().is_some_and(|s| !s.is_empty()),
            "{key}: {prompts}"
        );
    }
    // Unrendered templates, as the editor shows them.
    assert!(prompts["task_analysis"]
        .as_str()
        .is_some_and(|s| s.contains("{{ task }}")));
    let templates = t.login.get("/agents/templates").await;
    assert_eq!(templates.expect(0), &json!([]), "no templates configured");
}

#[tokio::test]
async fn webhook_logs_poll_answers_for_an_agent_with_no_recorded_run() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("webhook_logs")).await;
    let path = format!("/agents/{agent_id}/webhook/logs");

    let polled = t.api.get(&format!("{path}?since_ts=0")).await;
    assert_eq!(
        polled.body,
        json!({"code": 0, "message": "success", "data":
            {"webhook_id": null, "events": [], "next_since_ts": 0.0, "finished": false}})
    );
    let now = t.api.get(&path).await;
    let data = now.expect(0);
    assert!(
        data["next_since_ts"].as_f64().is_some_and(|ts| ts > 1.6e9),
        "{data}"
    );
    assert_eq!(data["finished"], false);
    let by_id = t
        .api
        .get(&format!("{path}?since_ts=12.5&webhook_id=abc"))
        .await;
    // With nothing recorded for the agent, RAGFlow answers before it looks at the id.
    assert_eq!(
        by_id.expect(0),
        &json!({"webhook_id": null, "events": [], "next_since_ts": 12.5, "finished": false})
    );

    // Another tenant's agent is a missing one.
    let other = tenant().await;
    let denied = other.api.get(&format!("{path}?since_ts=0")).await;
    assert_eq!(
        denied.body,
        json!({"code": 102, "message": "Canvas not found."})
    );
}

#[tokio::test]
async fn db_connection_test_validates_before_authenticating() {
    let missing = Client::anonymous()
        .post("/agents/test_db_connection", json!({"db_type": "mysql"}))
        .await;
    assert_eq!(
        missing.body,
        json!({"code": 101, "data": null,
            "message": "required argument are missing: database,username,host,port,password; "})
    );
    let complete = json!({"db_type": "mysql", "database": "x", "username": "u",
        "host": "127.0.0.1", "port": 3306, "password": ""});
    let anonymous = Client::anonymous()
        .post("/agents/test_db_connection", complete)
        .await;
    assert_eq!((anonymous.status, anonymous.code()), (401, 401));

    let rerun = Client::anonymous()
        .post("/agents/rerun", json!({"id": "flow-1"}))
        .await;
    assert_eq!(
        rerun.body,
        json!({"code": 101, "data": null,
            "message": "required argument are missing: dsl,component_id; "})
    );
    let t = tenant().await;
    let rerun = t
        .api
        .post(
            "/agents/rerun",
            json!({"id": "flow-1", "dsl": {}, "component_id": "c"}),
        )
        .await;
    assert_eq!(
        rerun.body,
        json!({"code": 102, "message": "Document not found."})
    );
}

/// `SELECT 1` through ExeSQL's drivers on the machine's databases (loopback is on the test
/// engine's allowed hosts); wrong credentials and unknown types fail as RAGFlow's do.
#[tokio::test]
async fn db_connection_test_connects_to_mariadb_and_postgresql() {
    let t = tenant().await;
    let test = |body: serde_json::Value| {
        let api = t.api.clone();
        async move { api.post("/agents/test_db_connection", body).await }
    };
    for (db_type, database, username, port) in [
        ("mysql", "mysql", "root", json!(3306)),
        ("mariadb", "mysql", "root", json!("3306")),
        ("postgres", "postgres", "postgres", json!(5432)),
    ] {
        let ok = test(
            json!({"db_type": db_type, "database": database, "username": username,
            "host": "127.0.0.1", "port": port, "password": ""}),
        )
        .await;
        assert_eq!(
            ok.body,
            json!({"code": 0, "message": "success", "data": "Database Connection Successful!"}),
            "{db_type}"
        );
    }
    let wrong = test(
        json!({"db_type": "postgres", "database": "no_such_database_here",
        "username": "postgres", "host": "127.0.0.1", "port": 5432, "password": ""}),
    )
    .await;
    assert_eq!(wrong.code(), 100, "{}", wrong.body);
    assert!(
        wrong.message().contains("no_such_database_here"),
        "{}",
        wrong.body
    );

    let unknown = test(
        json!({"db_type": "sqlite", "database": "d", "username": "u",
        "host": "127.0.0.1", "port": 1, "password": ""}),
    )
    .await;
    assert_eq!(
        unknown.body,
        json!({"code": 100, "message": "'Unsupported database type.'", "data": null})
    );
    // Private hosts off the allow-list are refused by the host check, before any connection.
    let private = test(json!({"db_type": "mysql", "database": "d", "username": "u",
        "host": "10.1.2.3", "port": 3306, "password": ""}))
    .await;
    assert_eq!(
        private.body,
        json!({"code": 102,
            "message": "Host resolves to a non-public address (10.1.2.3), which is not allowed."})
    );
    let bad_port = test(json!({"db_type": "mysql", "database": "d", "username": "u",
        "host": "127.0.0.1", "port": "http", "password": ""}))
    .await;
    assert_eq!(bad_port.code(), 100, "{}", bad_port.body);
}
