//! `canvasc run`: event output, saved state across turns, UserFillUp resume, and clear errors
//! for bad input.

mod common;
use common::fixture;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn canvasc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .output()
        .expect("canvasc runs")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-run-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The jsonl events of a run.
fn events(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn names(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap_or(""))
        .collect()
}

const ECHO: &str = r#"{
  "components": {
    "begin": {"obj": {"component_name": "Begin", "params": {"prologue": "Hi"}}, "downstream": ["Message:Reply"], "upstream": []},
    "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": ["Turn {sys.conversation_turns}: {sys.query}"]}},
                      "downstream": [], "upstream": ["begin"]}
  },
  "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
  "history": [], "path": [], "retrieval": []
}"#;

#[test]
fn jsonl_prints_every_event_of_the_turn() {
    let dir = temp_dir("jsonl");
    let canvas = dir.join("echo.json");
    std::fs::write(&canvas, ECHO).expect("write");
    let o = canvasc(&["run", canvas.to_str().expect("utf8"), "--query", "hello"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let evs = events(&o);
    assert_eq!(
        names(&evs),
        [
            "workflow_started",
            "node_started",
            "node_finished",
            "node_started",
            "message",
            "message",
            "message",
            "message",
            "message_end",
            "node_finished",
            "workflow_finished"
        ]
    );
    let last = &evs[evs.len() - 1]["data"]["outputs"]["content"];
    // Message strips the text around each reference (as RAGFlow does).
    assert_eq!(last, "Turn1:hello");
    // Compact JSON, as RAGFlow's SSE frames carry it.
    let first = String::from_utf8_lossy(&o.stdout);
    assert!(first.starts_with(r#"{"event":"workflow_started","message_id":"#));
}

#[test]
fn state_file_carries_the_conversation_to_the_next_turn() {
    let dir = temp_dir("state");
    let canvas = dir.join("echo.json");
    let state = dir.join("state.json");
    std::fs::write(&canvas, ECHO).expect("write");
    let (c, s) = (
        canvas.to_str().expect("utf8"),
        state.to_str().expect("utf8"),
    );
    let first = canvasc(&["run", c, "--state", s, "--query", "one"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(state.exists(), "the state file is written after the turn");
    let second = canvasc(&["run", c, "--state", s, "--query", "two"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let evs = events(&second);
    assert_eq!(
        evs[evs.len() - 1]["data"]["outputs"]["content"],
        "Turn2:two"
    );
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("read")).expect("JSON");
    let history: Vec<&str> = saved["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|h| h[0].as_str().unwrap_or(""))
        .collect();
    assert_eq!(history, ["user", "assistant", "user", "assistant"]);
    assert_eq!(saved["globals"]["sys.conversation_turns"], 2);
}

#[test]
fn userfillup_pauses_then_resumes_from_the_state_file() {
    let dir = temp_dir("fillup");
    let state = dir.join("state.json");
    let canvas = fixture("valid/userfillup-resume.json");
    let s = state.to_str().expect("utf8");
    let first = canvasc(&[
        "run",
        &canvas,
        "--state",
        s,
        "--query",
        "I want to order widgets",
    ]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let evs = events(&first);
    assert_eq!(names(&evs).last(), Some(&"user_inputs"));
    let asked: Vec<&String> = evs[evs.len() - 1]["data"]["inputs"]
        .as_object()
        .expect("inputs")
        .keys()
        .collect();
    assert_eq!(asked, ["customer", "quantity", "express", "notes"]);

    let inputs = r#"{"customer": {"value": "Ada"}, "quantity": {"value": 12}, "express": {"value": true}, "notes": {"value": "leave at the door"}}"#;
    let second = canvasc(&["run", &canvas, "--state", s, "--inputs", inputs]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let evs = events(&second);
    assert_eq!(
        names(&evs).first(),
        Some(&"node_started"),
        "a resume has no workflow_started"
    );
    assert_eq!(names(&evs).last(), Some(&"workflow_finished"));
    let content = evs[evs.len() - 1]["data"]["outputs"]["content"]
        .as_str()
        .expect("content");
    assert!(content.contains("Ada"), "{content}");
}

#[test]
fn pretty_shows_a_readable_timeline() {
    let dir = temp_dir("pretty");
    let canvas = dir.join("echo.json");
    std::fs::write(&canvas, ECHO).expect("write");
    let o = canvasc(&[
        "run",
        canvas.to_str().expect("utf8"),
        "--query",
        "hi",
        "--format",
        "pretty",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("▶ run started"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("● Message:Reply (Message)")),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.contains("💬 Turn1:hi")), "{out}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("■ run finished")),
        "{out}"
    );
}

#[test]
fn bad_inputs_json_is_a_usage_error() {
    let o = canvasc(&[
        "run",
        &fixture("valid/diamond-uneven.json"),
        "--inputs",
        "{not json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: --inputs is not JSON"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty(), "nothing runs");
}

#[test]
fn bad_model_configuration_is_a_usage_error() {
    let dir = temp_dir("bad-config");
    let config = dir.join("canvasc.toml");
    std::fs::write(&config, "[[models]]\nid = 3\n").expect("written");
    let config = config.to_string_lossy().into_owned();
    let o = canvasc(&[
        "run",
        &fixture("valid/diamond-uneven.json"),
        "--config",
        &config,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("error: ") && err.contains(&config), "{err}");
    assert!(o.stdout.is_empty(), "nothing runs");

    let missing = dir.join("missing.toml").to_string_lossy().into_owned();
    let o = canvasc(&[
        "run",
        &fixture("valid/diamond-uneven.json"),
        "--config",
        &missing,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.toml"), "{}", stderr(&o));
}

#[test]
fn unknown_file_is_a_usage_error() {
    let o = canvasc(&["run", "/no/such/canvas.json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("/no/such/canvas.json"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// RAGFlow runs a canvas whose required Begin fields are missing (they read as empty), so
/// `canvasc run` does too, naming them in a warning.
#[test]
fn missing_required_input_warns_and_runs() {
    let o = canvasc(&[
        "run",
        &fixture("valid/begin-missing-inputs.json"),
        "--query",
        "hi",
        "--inputs",
        r#"{"name": {"value": "Ada"}, "age": {"value": 20}}"#,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("missing_required_input_warning", stderr(&o));
    let evs = events(&o);
    assert_eq!(names(&evs).last(), Some(&"workflow_finished"));
    let echo = evs
        .iter()
        .find(|e| e["event"] == "node_finished" && e["data"]["component_id"] == "Message:EchoForm")
        .expect("the echo Message finishes");
    assert_eq!(
        echo["data"]["outputs"]["content"],
        "name=[Ada] bio=[] color=[] age=[20] score=[] vip=[] doc=[] nick=[] attach=[]"
    );
}

/// A single missing field is named alone; `sys.query` fills a form of one field, as Begin does.
#[test]
fn missing_required_input_of_a_single_field_form() {
    let o = canvasc(&["run", &fixture("valid/timeout-invoke.json"), "--query", ""]);
    // Only the warning: what the Invoke then does depends on the host (the SSRF guard).
    let warning = stderr(&o).lines().next().unwrap_or_default().to_string();
    insta::assert_snapshot!("missing_required_input_single", warning);
    let filled = canvasc(&[
        "run",
        &fixture("valid/timeout-invoke.json"),
        "--query",
        "0",
        "--require-inputs",
    ]);
    assert_ne!(filled.status.code(), Some(2), "{}", stderr(&filled));
    assert!(
        !stderr(&filled).contains("missing required"),
        "{}",
        stderr(&filled)
    );
}

/// `--require-inputs` keeps the refusal: exit 2 before anything runs.
#[test]
fn require_inputs_refuses_a_missing_required_input() {
    let o = canvasc(&[
        "run",
        &fixture("valid/begin-missing-inputs.json"),
        "--query",
        "hi",
        "--require-inputs",
    ]);
    assert_eq!(o.status.code(), Some(2));
    insta::assert_snapshot!("require_inputs_refusal", stderr(&o));
    assert!(o.stdout.is_empty(), "nothing runs");
    let given = canvasc(&[
        "run",
        &fixture("valid/begin-missing-inputs.json"),
        "--require-inputs",
        "--inputs",
        r#"{"name": {"value": "Ada"}, "bio": {"value": "b"}, "color": {"value": "red"},
            "age": {"value": 20}, "vip": {"value": true}, "doc": {"value": []}}"#,
    ]);
    assert_eq!(given.status.code(), Some(0), "{}", stderr(&given));
    assert!(stderr(&given).is_empty(), "{}", stderr(&given));
}

#[test]
fn bad_llm_script_names_the_file() {
    let dir = temp_dir("script");
    let script = dir.join("script.json");
    std::fs::write(&script, "[1, 2").expect("write");
    let o = canvasc(&[
        "run",
        &fixture("valid/diamond-uneven.json"),
        "--llm-script",
        script.to_str().expect("utf8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("script.json") && err.contains("not JSON"),
        "{err}"
    );
}

#[test]
fn a_failing_component_exits_one_after_its_events() {
    let o = canvasc(&[
        "run",
        &fixture("broken/unknown-global-env-undeclared.json"),
        "--query",
        "hello",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let evs = events(&o);
    let failed = evs
        .iter()
        .find(|e| e["event"] == "node_finished" && !e["data"]["error"].is_null())
        .expect("the failing node's event");
    assert_eq!(failed["data"]["error"], "'env.api_key'");
    assert!(
        stderr(&o).contains("the run stopped: 'env.api_key'"),
        "{}",
        stderr(&o)
    );
}

/// The webhook golden of `case` (`tests/golden/webhook/expected.json`, RAGFlow's own run).
fn webhook_golden(case: &str) -> Value {
    let path = format!(
        "{}/../tests/golden/webhook/expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let all: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    all["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["name"] == case))
        .map(|c| c["results"][0].clone())
        .unwrap_or_else(|| panic!("no golden {case}"))
}

/// Each `node_finished`'s component and outputs, without the timings.
fn finished_outputs(events: &[Value]) -> Vec<(String, Value)> {
    events
        .iter()
        .filter(|e| e["event"] == "node_finished")
        .map(|e| {
            let mut outputs = e["data"]["outputs"].clone();
            if let Some(o) = outputs.as_object_mut() {
                o.remove("_created_time");
                o.remove("_elapsed_time");
            }
            (
                e["data"]["component_id"].as_str().unwrap_or("").to_string(),
                outputs,
            )
        })
        .collect()
}

#[test]
fn a_webhook_payload_file_runs_the_canvas_as_the_server_would() {
    let golden = webhook_golden("json-valid");
    let input = &golden["webhook_payload"]["input"];
    let dir = temp_dir("webhook");
    let request = dir.join("request.json");
    let file = serde_json::json!({"query": input["query"], "headers": input["headers"], "body": input["body"]});
    std::fs::write(&request, file.to_string()).expect("write");
    let canvas = format!(
        "{}/../fixtures/webhook/json-streaming.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let request_arg = request.to_str().expect("utf8");
    let o = canvasc(&["run", &canvas, "--webhook-payload", request_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ours = events(&o);
    let theirs = golden["events"].as_array().cloned().unwrap_or_default();
    assert_eq!(names(&ours), names(&theirs));
    assert_eq!(finished_outputs(&ours), finished_outputs(&theirs));
    assert_eq!(
        ours[0]["data"]["inputs"],
        Value::Null,
        "a webhook run has no form inputs"
    );

    // The Begin's schema refuses a request as the server would, naming the field.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"headers": {"x-trace": "t"}, "body": {"age": 3}}"#).expect("write");
    let o = canvasc(&[
        "run",
        &canvas,
        "--webhook-payload",
        bad.to_str().expect("utf8"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the webhook refuses it: body missing required field: name"),
        "{}",
        stderr(&o)
    );
    // A canvas whose Begin is not a webhook has nothing to take the payload.
    let echo = dir.join("echo.json");
    std::fs::write(&echo, ECHO).expect("write");
    let o = canvasc(&[
        "run",
        echo.to_str().expect("utf8"),
        "--webhook-payload",
        request_arg,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Begin is in Webhook mode"),
        "{}",
        stderr(&o)
    );
}
