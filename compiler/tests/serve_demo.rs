//! `canvasc serve --demo` (issue 43): a newcomer tries the server in 30 seconds. The demo
//! account, key and agents are made at start and printed with lines to paste; the printed
//! curl line, run as printed, answers; a second start finds the same demo data; a server
//! started without the flag makes none of it. (`--build-jobs 0`: the released demo agent
//! would start a program build of minutes, which this test does not need.)

#![cfg(unix)]

mod serve_child;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch, Server};

/// The server's stdout once the demo's instructions are printed (within 60 s).
fn instructions(server: &Server) -> String {
    let started = Instant::now();
    loop {
        let text = server
            .stdout
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if text.contains("python3 -c") {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no demo instructions: {text}\n{}",
            server.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The value after `label` on its line (`  API key   <key>`).
fn field(text: &str, label: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix(label))
        .filter_map(|rest| rest.split_whitespace().next().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn the_demo_prints_an_account_a_key_and_agents_and_its_curl_line_answers() {
    let scratch = Scratch::new("demo");
    let mut server = serve(&scratch.0, &["--demo", "--build-jobs", "0"], &[]);
    let text = instructions(&server);
    let keys = field(&text, "API key");
    let agents = field(&text, "agent ");
    assert_eq!((keys.len(), agents.len()), (1, 2), "{text}");
    assert!(
        scratch.0.join("data/demo-llm-script.json").is_file(),
        "the demo's script is in its data dir"
    );

    // The curl line, run as printed, streams the released agent's answer.
    let curl = text
        .lines()
        .find(|l| l.trim_start().starts_with("curl "))
        .expect("a curl line")
        .trim()
        .to_string();
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(&curl)
        .output()
        .expect("bash runs curl");
    let streamed = String::from_utf8_lossy(&output.stdout);
    assert!(streamed.ends_with("data:[DONE]\n\n"), "{streamed}");
    let answer: String = streamed
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|f| f["event"] == "message")
        .filter_map(|f| f["data"]["content"].as_str().map(str::to_string))
        .collect();
    assert!(answer.contains("canvasc's demo agent"), "{streamed}");

    // The agents are the demo's: marked, one released.
    let http = Http::new(&server.base);
    let auth = format!("Bearer {}", keys[0]);
    let listed = http.ok(Method::GET, "/agents", &auth, Value::Null).await;
    let listed = listed["canvas"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 2, "{listed:?}");
    for agent in &listed {
        assert!(agent["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("Demo: ")));
        assert!(agent["description"]
            .as_str()
            .is_some_and(|d| d.contains("canvasc serve --demo")));
    }
    let versions = http
        .ok(
            Method::GET,
            &format!("/agents/{}/versions", agents[0]),
            &auth,
            Value::Null,
        )
        .await;
    assert!(
        versions
            .as_array()
            .is_some_and(|v| v.iter().any(|v| v["release"] == true)),
        "{versions}"
    );

    // A second start finds the demo data: the same agents, no more of them.
    server.interrupt();
    let server = serve(&scratch.0, &["--demo", "--build-jobs", "0"], &[]);
    let again = instructions(&server);
    assert_eq!(field(&again, "agent "), agents, "{again}");
    let http = Http::new(&server.base);
    let auth = format!("Bearer {}", field(&again, "API key")[0]);
    let listed = http.ok(Method::GET, "/agents", &auth, Value::Null).await;
    assert_eq!(listed["canvas"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn a_server_without_the_flag_makes_no_demo_data() {
    let scratch = Scratch::new("no-demo");
    let server = serve(&scratch.0, &[], &[]);
    let http = Http::new(&server.base);
    let (answer, token) = http
        .send(
            Method::POST,
            "/auth/login",
            "",
            json!({"email": "demo@canvasc.demo", "password": "canvasc-demo"}),
        )
        .await;
    assert!(token.is_none(), "{answer}");
    assert_ne!(answer["code"], 0, "{answer}");
    assert!(!scratch.0.join("data/demo-llm-script.json").exists());
}
