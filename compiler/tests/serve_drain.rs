//! A rolling deploy drops nothing (issue 41): `/healthz` and `/readyz` answer a load balancer;
//! on SIGTERM `canvasc serve` refuses new connections at once, lets a stream in flight finish
//! whole, and exits; `--drain-secs` bounds how long it waits.

#![cfg(unix)]

mod serve_child;

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch, Server};

/// `slow` streams 20 words over 3 s.
fn serve_slow(scratch: &Scratch, args: &[&str]) -> Server {
    let chunks: Vec<String> = (0..20).map(|i| format!("w{i} ")).collect();
    let script = json!({
        "chunking": "words",
        "responses": [{"match": "slow", "chunks": chunks, "delay_ms": 150, "times": -1}],
        "default": "echo"
    });
    let path = scratch.0.join("script.json");
    std::fs::write(&path, script.to_string()).expect("script written");
    let path = path.to_string_lossy().into_owned();
    let mut all = vec!["--registration", "open", "--llm-script", &path];
    all.extend_from_slice(args);
    serve(&scratch.0, &all, &[])
}

/// An account, and a released Begin → LLM → Message agent: `(auth, agent)`.
async fn chat_agent(http: &Http) -> (String, String) {
    let user = json!({"email": "d@example.com", "nickname": "d", "password": "ZA=="});
    http.send(reqwest::Method::POST, "/users", "", user).await;
    let auth = http.login("d@example.com", "ZA==").await;
    let dsl: Value =
        serde_json::from_str(include_str!("../../fixtures/valid/llm-think-stream.json"))
            .expect("the fixture is JSON");
    let body = json!({"title": "chat", "dsl": dsl, "release": true});
    let created = http.ok(reqwest::Method::POST, "/agents", &auth, body).await;
    (
        auth,
        created["id"].as_str().expect("an agent id").to_string(),
    )
}

/// Starts a slow streamed answer; returns its response once its first frame arrived.
async fn slow_stream(http: &Http, auth: &str, agent: &str) -> reqwest::Response {
    let response = http
        .client
        .post(format!("{}/api/v1/agents/chat/completions", http.base))
        .header("Authorization", auth)
        .json(&json!({"agent_id": agent, "query": "slow please", "stream": true}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 200);
    response
}

/// Reads the rest of a stream: its text, or what is there when it broke off.
async fn rest(response: reqwest::Response) -> (String, bool) {
    let mut body = response.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(bytes) => text.push_str(&String::from_utf8_lossy(&bytes)),
            Err(_) => return (text, false),
        }
    }
    (text, true)
}

fn terminate(server: &Server) {
    // SAFETY: `kill` with a pid this test spawned and a valid signal number.
    unsafe {
        libc::kill(server.child.id() as libc::pid_t, libc::SIGTERM);
    }
}

fn exited_within(server: &mut Server, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = server.child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_refuses_new_connections_and_lets_the_stream_in_flight_finish() {
    let scratch = Scratch::new("drain");
    let mut server = serve_slow(&scratch, &[]);
    let http = Http::new(&server.base);
    for path in ["/healthz", "/readyz"] {
        let answer = http
            .client
            .get(format!("{}{path}", server.base))
            .send()
            .await
            .expect("it answers");
        assert_eq!(answer.status(), 200, "{path}");
    }
    let (auth, agent) = chat_agent(&http).await;
    let stream = slow_stream(&http, &auth, &agent).await;
    terminate(&server);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let refused = reqwest::Client::new()
        .get(format!("{}/healthz", server.base))
        .timeout(Duration::from_secs(2))
        .send()
        .await;
    assert!(
        refused.is_err(),
        "a new connection is refused while draining"
    );
    let (text, whole) = rest(stream).await;
    assert!(whole, "the stream broke off: {text}");
    assert!(text.contains("w19 "), "the whole answer: {text}");
    assert!(text.contains("workflow_finished"), "{text}");
    let status = exited_within(&mut server, Duration::from_secs(10)).expect("it exits");
    assert!(status.success(), "{status}");
    assert!(
        server.stderr().contains("canvasc serve: stopping"),
        "{}",
        server.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_secs_bounds_how_long_a_stream_may_keep_the_server() {
    let scratch = Scratch::new("drain-bound");
    let mut server = serve_slow(&scratch, &["--drain-secs", "1"]);
    let http = Http::new(&server.base);
    let (auth, agent) = chat_agent(&http).await;
    let stream = slow_stream(&http, &auth, &agent).await;
    let asked = Instant::now();
    terminate(&server);
    let status = exited_within(&mut server, Duration::from_secs(10)).expect("it exits");
    assert!(
        asked.elapsed() < Duration::from_millis(2500),
        "{:?}",
        asked.elapsed()
    );
    assert!(status.success(), "{status}");
    let (text, _) = rest(stream).await;
    assert!(!text.contains("w19 "), "the 3 s answer was cut: {text}");
    assert!(
        server.stderr().contains("still open after 1 s"),
        "{}",
        server.stderr()
    );
}
