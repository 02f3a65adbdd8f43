//! What a person at a terminal is told about failures: a model that cannot be reached (a
//! closed port on 127.0.0.1) gives RAGFlow's `**ERROR**` answer text in the stream, unchanged,
//! and a one-line summary per failure on stderr with exit 3. `--timeline` draws the run.

mod common;
use common::fixture;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The exit code README documents for a run that finished with failed components or calls.
const EXIT_FAILED_CALLS: i32 = 3;

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-summary-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A port on 127.0.0.1 nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CANVASC_LLM_API_KEY")
        .env_remove("CANVASC_LLM_BASE_URL")
        .env_remove("CANVASC_CONFIG")
        .output()
        .expect("canvasc runs")
}

fn events(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A configuration whose model `scripted-chat@Scripted` is at a closed port, with no retries.
fn unreachable_model(dir: &std::path::Path) -> PathBuf {
    let config = dir.join("canvasc.toml");
    std::fs::write(
        &config,
        format!(
            "[llm]\nmax_retries = 0\nretry_delay = 0.0\n\n[[models]]\nid = \"scripted-chat\"\nfactory = \"Scripted\"\nbase_url = \"http://127.0.0.1:{}/v1\"\napi_key = \"unused\"\n",
            closed_port()
        ),
    )
    .expect("write config");
    config
}

/// Begin → Agent (no tools) → Message.
fn agent_canvas(dir: &std::path::Path) -> PathBuf {
    let canvas = dir.join("agent.json");
    let dsl = serde_json::json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"prologue": "Hi"}},
                      "downstream": ["Agent:Helper"], "upstream": []},
            "Agent:Helper": {"obj": {"component_name": "Agent", "params": {
                "llm_id": "scripted-chat@Scripted", "sys_prompt": "You help.",
                "prompts": [{"role": "user", "content": "{sys.query}"}], "tools": [], "max_retries": 0}},
                      "downstream": ["Message:Reply"], "upstream": ["begin"]},
            "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": ["{Agent:Helper@content}"]}},
                      "downstream": [], "upstream": ["Agent:Helper"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
        "history": [], "path": [], "retrieval": []
    });
    std::fs::write(&canvas, dsl.to_string()).expect("write canvas");
    canvas
}

/// The stderr lines of the summary.
fn summary(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("failed: "))
        .collect()
}

#[test]
fn an_agent_whose_model_is_unreachable_is_summarised_with_exit_3() {
    let dir = temp_dir("agent");
    let config = unreachable_model(&dir);
    let canvas = agent_canvas(&dir);
    let o = run(&[
        "run",
        canvas.to_str().expect("utf8"),
        "--query",
        "hello",
        "--config",
        config.to_str().expect("utf8"),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(EXIT_FAILED_CALLS), "stderr: {stderr}");
    // The stream stays RAGFlow's and finishes; the summary names the Agent and its error.
    let evs = events(&o);
    assert_eq!(
        evs.last().map(|e| e["event"].clone()),
        Some(Value::from("workflow_finished"))
    );
    let lines = summary(&stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("failed: Agent:Helper (Agent): ") && l.contains("**ERROR**")),
        "{stderr}"
    );
}

#[test]
fn a_streaming_llm_whose_model_is_unreachable_is_summarised_with_exit_3() {
    let dir = temp_dir("llm");
    let config = unreachable_model(&dir);
    let timeline = dir.join("run.svg");
    let o = run(&[
        "run",
        &fixture("valid/llm-think-stream.json"),
        "--query",
        "Question: capital?",
        "--config",
        config.to_str().expect("utf8"),
        "--timeline",
        timeline.to_str().expect("utf8"),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(EXIT_FAILED_CALLS), "stderr: {stderr}");
    // RAGFlow's stream shows nothing of this failure (the LLM's stream ends, its
    // `node_finished` never comes): only the summary tells.
    let evs = events(&o);
    assert!(!evs.iter().any(|e| e.to_string().contains("**ERROR**")));
    assert_eq!(
        evs.last().map(|e| e["event"].clone()),
        Some(Value::from("workflow_finished"))
    );
    let lines = summary(&stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0]
            .starts_with("failed: LLM:WriteReply (LLM): failed: **ERROR**: MAX_RETRIES_EXCEEDED"),
        "{stderr}"
    );
    // The timeline names every component that ran.
    let svg = std::fs::read_to_string(&timeline).expect("timeline written");
    let doc = roxmltree::Document::parse(&svg).expect("the timeline is well-formed XML");
    let text: String = doc.descendants().filter_map(|n| n.text()).collect();
    for id in ["begin", "LLM:WriteReply", "Message:Reply"] {
        assert!(text.contains(id), "the timeline does not name {id}");
    }
}

#[test]
fn a_clean_run_has_no_summary_and_exit_0() {
    let dir = temp_dir("clean");
    let timeline = dir.join("run.svg");
    let o = run(&[
        "run",
        &fixture("valid/diamond-uneven.json"),
        "--query",
        "rust, python; go, zig",
        "--timeline",
        timeline.to_str().expect("utf8"),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("failed: "), "{stderr}");
    let svg = std::fs::read_to_string(&timeline).expect("timeline written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert!(doc
        .descendants()
        .any(|n| n.text().is_some_and(|t| t.starts_with("batch "))));
}
