//! A run that fails says why in the server's log at the default level (issue 43, "baffling
//! failures"): the client gets RAGFlow's own answer, and the operator reads which agent, run
//! and session failed, and, for a canvas RAGFlow cannot build, canvasc's finding: the
//! component, its kind and where in the DSL.

#![cfg(unix)]

mod serve_child;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch};

const PASSWORD: &str = "c2VjcmV0IHBhc3N3b3Jk";

/// The server's first account (closed registration lets the first in), its API key, and an
/// agent on the fixture `canvas`: `(Authorization, agent id)`.
async fn account_and_agent(http: &Http, canvas: &str, title: &str) -> (String, String) {
    let email = "ops@example.com";
    let user = json!({"email": email, "nickname": "ops", "password": PASSWORD});
    http.ok(Method::POST, "/users", "", user).await;
    let token = http.login(email, PASSWORD).await;
    let key = http
        .ok(Method::POST, "/system/tokens", &token, json!({}))
        .await;
    let auth = format!("Bearer {}", key["token"].as_str().expect("a key"));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(canvas);
    let text = std::fs::read_to_string(&path).expect("the fixture");
    let dsl: Value = serde_json::from_str(&text).expect("JSON");
    let body = json!({"title": title, "dsl": dsl});
    let created = http.ok(Method::POST, "/agents", &auth, body).await;
    let agent = created["id"].as_str().expect("an id").to_string();
    (auth, agent)
}

#[tokio::test]
async fn a_canvas_ragflow_cannot_build_is_logged_with_canvascs_finding() {
    let scratch = Scratch::new("failures");
    let server = serve(&scratch.0, &["--build-jobs", "0"], &[]);
    let http = Http::new(&server.base);
    let (auth, agent) =
        account_and_agent(&http, "fixtures/broken/legacy-kind-generate.json", "legacy").await;
    let (answer, _) = http
        .send(
            Method::POST,
            "/agents/chat/completions",
            &auth,
            json!({"agent_id": agent, "query": "hi"}),
        )
        .await;
    // The client: RAGFlow's answer, word for word.
    assert_eq!(answer["code"], 100, "{answer}");
    let said = answer["message"].as_str().unwrap_or_default().to_string();
    assert!(
        said.starts_with("AssertionError(\"Can't import"),
        "{answer}"
    );
    // The log: the agent, RAGFlow's text and where canvasc found it.
    let started = Instant::now();
    let line = loop {
        let log = server.stderr();
        if let Some(line) = log
            .lines()
            .find(|l| l.contains("RAGFlow cannot build this canvas"))
        {
            break line.to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nothing logged: {log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(line.contains(&agent), "{line}");
    assert!(line.contains(&said), "{line}");
    assert!(line.contains("/components/"), "{line}");
}

#[tokio::test]
async fn a_run_that_fails_is_logged_with_its_agent_session_and_error() {
    let scratch = Scratch::new("run-failure");
    let script = scratch.0.join("prose.json");
    let down = json!({"responses": [{"content": "not a list", "times": -1}]});
    std::fs::write(&script, down.to_string()).expect("the script");
    let script = script.display().to_string();
    let server = serve(
        &scratch.0,
        &["--build-jobs", "0", "--llm-script", &script],
        &[],
    );
    let http = Http::new(&server.base);
    let (auth, agent) = account_and_agent(
        &http,
        "fixtures/broken/type-mismatch-iteration-over-string.json",
        "down",
    )
    .await;
    let answered = http
        .ok(
            Method::POST,
            "/agents/chat/completions",
            &auth,
            json!({"agent_id": agent, "query": "hi"}),
        )
        .await;
    let session = answered["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let started = Instant::now();
    let line = loop {
        let log = server.stderr();
        if let Some(line) = log
            .lines()
            .find(|l| l.contains(" failed: ") && l.contains(&agent))
        {
            break line.to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nothing logged: {log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(line.contains(&session), "{line}");
    // The Iteration's error (the model's text is no list of ideas), as `canvas.error` says.
    assert!(line.contains("must be an array"), "{line}");
}
