//! Publishing compiles (issue 41), over real HTTP against `canvasc serve`: releasing a version
//! answers at once and its first run is interpreted; the build of its program runs in the
//! background (`canvasc build` with cargo, out of the server's process) while a slow answer
//! streams, and that stream finishes intact; the version then says `compiled`, the next run is
//! compiled (`X-Canvasc-Program`), and `/metrics` counts the build. Without a toolchain the
//! build fails visibly and the version keeps serving interpreted.
//!
//! Builds use the dev profile and share `$CARGO_TARGET_DIR` with the other suites that build
//! generated crates (`tests/compiled_corpus.rs`, `tests/program_bundles.rs`), so the runtime's
//! dependencies are compiled once per target directory.

#![cfg(unix)]

mod serve_child;

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch, Server};

const CHAT: &str = include_str!("../../fixtures/valid/llm-think-stream.json");

/// `slow` streams 40 words over 6 s; anything else is echoed.
fn script() -> Value {
    let chunks: Vec<String> = (0..40).map(|i| format!("w{i} ")).collect();
    json!({
        "chunking": "words",
        "responses": [{"match": "slow", "chunks": chunks, "delay_ms": 150, "times": -1}],
        "default": "echo"
    })
}

/// `canvasc serve` with open registration and the scripted model, plus `args` and `env`.
fn serve_scripted(scratch: &Scratch, args: &[&str], env: &[(&str, String)]) -> Server {
    let script_path = scratch.0.join("script.json");
    std::fs::write(&script_path, script().to_string()).expect("script written");
    let script_arg = script_path.to_string_lossy().into_owned();
    let mut all = vec!["--registration", "open", "--llm-script", &script_arg];
    all.extend_from_slice(args);
    serve(&scratch.0, &all, env)
}

/// Where the builds' cargo target directory is: the workspace's, shared with the suites that
/// build generated crates.
fn build_target() -> String {
    std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_string())
}

/// An account (the first, so the administrator), logged in: the `Authorization` value.
async fn account(http: &Http) -> String {
    http.send(
        reqwest::Method::POST,
        "/users",
        "",
        json!({"email": "pub@example.com", "nickname": "pub", "password": "cHVi"}),
    )
    .await;
    http.login("pub@example.com", "cHVi").await
}

/// One streamed completion of the released version: the program header and the frames' data.
async fn completion(http: &Http, auth: &str, agent: &str, query: &str) -> (String, Vec<Value>) {
    let response = http
        .client
        .post(format!("{}/api/v1/agents/chat/completions", http.base))
        .header("Authorization", auth)
        .json(&json!({"agent_id": agent, "query": query, "stream": true, "release": true}))
        .send()
        .await
        .expect("the server answers");
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = response.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = body.next().await {
        text.push_str(&String::from_utf8_lossy(&chunk.expect("the stream reads")));
    }
    let frames = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    (program, frames)
}

/// The answer text of a stream's `message` events.
fn answer(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["event"] == "message")
        .filter_map(|f| f["data"]["content"].as_str())
        .collect()
}

/// The released version's build object, once it is no longer queued or building.
async fn settled_build(http: &Http, auth: &str, agent: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let versions = http
            .ok(
                reqwest::Method::GET,
                &format!("/agents/{agent}/versions"),
                auth,
                Value::Null,
            )
            .await;
        let build = versions
            .as_array()
            .and_then(|list| list.iter().find(|v| v["release"] == true))
            .map(|v| v["build"].clone())
            .unwrap_or(Value::Null);
        let state = build["state"].as_str().unwrap_or_default();
        if state == "compiled" || state == "failed" {
            return build;
        }
        assert!(
            Instant::now() < deadline,
            "the build did not end in time: {build}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn released_agent(http: &Http, auth: &str, title: &str) -> (String, Duration) {
    let dsl: Value = serde_json::from_str(CHAT).expect("the fixture is JSON");
    let asked = Instant::now();
    let created = http
        .ok(
            reqwest::Method::POST,
            "/agents",
            auth,
            json!({"title": title, "dsl": dsl, "release": true}),
        )
        .await;
    let took = asked.elapsed();
    let id = created["id"].as_str().expect("an agent id").to_string();
    (id, took)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_version_serves_interpreted_at_once_then_compiled_without_a_restart() {
    let scratch = Scratch::new("publish");
    let server = serve_scripted(
        &scratch,
        &["--build-profile", "dev"],
        &[("CANVASC_BUILD_TARGET_DIR", build_target())],
    );
    let http = Http::new(&server.base);
    let auth = account(&http).await;
    let (agent, took) = released_agent(&http, &auth, "Published chat").await;
    assert!(
        took < Duration::from_secs(2),
        "publishing answered in {took:?}"
    );

    // A slow answer starts on the interpreter before the build can have finished, and
    // streams while it runs.
    let slow = {
        let http = Http::new(&server.base);
        let (auth, agent) = (auth.clone(), agent.clone());
        tokio::spawn(async move { completion(&http, &auth, &agent, "slow please").await })
    };
    let build = settled_build(&http, &auth, &agent, Duration::from_secs(1500)).await;
    assert_eq!(build["state"], "compiled", "{build}\n{}", server.stderr());
    let (program, frames) = slow.await.expect("the slow stream's task");
    assert_eq!(program, "interpreted");
    let words: String = (0..40).map(|i| format!("w{i} ")).collect();
    assert_eq!(
        answer(&frames),
        words,
        "the stream across the switch is whole"
    );
    assert!(frames.iter().any(|f| f["event"] == "workflow_finished"));

    // Bundles are looked at every second.
    let deadline = Instant::now() + Duration::from_secs(10);
    let (program, frames) = loop {
        let (program, frames) = completion(&http, &auth, &agent, "Question: hi").await;
        if program == "compiled" || Instant::now() > deadline {
            break (program, frames);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(program, "compiled", "{}", server.stderr());
    assert!(frames.iter().any(|f| f["event"] == "workflow_finished"));
    assert!(!answer(&frames).is_empty());

    let metrics = http
        .client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    assert!(
        metrics.contains("canvasc_program_builds_total{outcome=\"compiled\"} 1"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_toolchain_the_build_fails_visibly_and_the_version_serves_interpreted() {
    let scratch = Scratch::new("no-toolchain");
    let server = serve_scripted(&scratch, &[], &[("CARGO", "/nonexistent/cargo".into())]);
    assert!(
        server
            .stderr()
            .contains("released versions will not be compiled here")
            || wait_for_stderr(&server, "released versions will not be compiled here"),
        "{}",
        server.stderr()
    );
    let http = Http::new(&server.base);
    let auth = account(&http).await;
    let (agent, _) = released_agent(&http, &auth, "No toolchain").await;
    let build = settled_build(&http, &auth, &agent, Duration::from_secs(10)).await;
    assert_eq!(build["state"], "failed");
    let error = build["error"].as_str().unwrap_or_default();
    assert!(error.contains("cargo"), "{build}");
    let (program, frames) = completion(&http, &auth, &agent, "Question: hi").await;
    assert_eq!(program, "interpreted");
    assert!(frames.iter().any(|f| f["event"] == "workflow_finished"));

    // A retry on a server that still cannot build fails again, with why.
    let versions = http
        .ok(
            reqwest::Method::GET,
            &format!("/agents/{agent}/versions"),
            &auth,
            Value::Null,
        )
        .await;
    let version = versions
        .as_array()
        .and_then(|l| l.iter().find(|v| v["release"] == true))
        .and_then(|v| v["id"].as_str())
        .expect("the released version")
        .to_string();
    let retried = http
        .ok(
            reqwest::Method::POST,
            &format!("/agents/{agent}/versions/{version}/build"),
            &auth,
            json!({}),
        )
        .await;
    assert_eq!(retried["state"], "failed", "{retried}");
}

fn wait_for_stderr(server: &Server, text: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if server.stderr().contains(text) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compiled_only_refuses_a_draft_with_an_error_envelope() {
    let scratch = Scratch::new("compiled-only");
    let server = serve(
        &scratch.0,
        &["--registration", "open", "--compiled-only"],
        &[],
    );
    let http = Http::new(&server.base);
    let auth = account(&http).await;
    let dsl: Value = serde_json::from_str(CHAT).expect("the fixture is JSON");
    let created = http
        .ok(
            reqwest::Method::POST,
            "/agents",
            &auth,
            json!({"title": "Draft", "dsl": dsl}),
        )
        .await;
    let agent = created["id"].as_str().expect("an agent id");
    let (answer, _) = http
        .send(
            reqwest::Method::POST,
            "/agents/chat/completions",
            &auth,
            json!({"agent_id": agent, "query": "Question: hi"}),
        )
        .await;
    assert_eq!(answer["code"], 102, "{answer}");
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(message.contains("compiled programs only"), "{answer}");
}
