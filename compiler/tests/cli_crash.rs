//! No input may crash the engine (issue 31): each trigger, and a variant of it, run through the
//! real `canvasc` binary. A panic (exit 101), an abort or a signal fails the test; each case must
//! end with RAGFlow's error shape, the component's `_ERROR` text the reference oracle reported.
//!
//! The canvases and `crash/expected.json` are made by `crash/make_canvases.py` and
//! `crash/regen.py` (the oracle command is in both); `__HOST__` in a URL is this test's own
//! HTTP server. Each case is its own test
//! (`cargo test -p canvasc --test cli_crash -- <case>`; libtest-mimic, `harness = false`).

mod common;
use common::fixture;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output, Stdio};

/// The cases of `crash/expected.json`. Update when a case is added.
const HOSTILE_CASES: usize = 11;

fn crash_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crash")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The pages RAGFlow's runs were served (`regen.py`'s `pages()`).
fn page(path: &str) -> Option<String> {
    match path {
        "/deep-div" => Some(format!(
            "<html><body>{}x{}</body></html>",
            "<div>".repeat(50_000),
            "</div>".repeat(50_000)
        )),
        "/deep-span" => Some(format!(
            "<html><body><p>{}y{}</p></body></html>",
            "<span>".repeat(3000),
            "</span>".repeat(3000)
        )),
        "/ok" => Some("ok".to_string()),
        _ => None,
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 answering [`page`]s; returns its `host:port`.
fn serve_pages() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                let n = stream.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, body) = match page(&path) {
                    Some(b) => ("200 OK", b),
                    None => ("404 Not Found", String::new()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    addr
}

fn assert_no_crash(name: &str, o: &Output) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.code().is_some(),
        "{name}: killed by a signal: {:?}\n{stderr}",
        o.status
    );
    assert_ne!(o.status.code(), Some(101), "{name}: panicked\n{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("overflow"),
        "{name}: {stderr}"
    );
}

/// The outputs of `node`'s `node_finished` event.
fn node_outputs(name: &str, o: &Output, node: &str) -> Value {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|ev| ev["event"] == "node_finished" && ev["data"]["component_id"] == node)
        .map(|ev| ev["data"]["outputs"].clone())
        .unwrap_or_else(|| {
            panic!(
                "{name}: no node_finished for {node}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&o.stdout)
                    .chars()
                    .take(2000)
                    .collect::<String>(),
                String::from_utf8_lossy(&o.stderr)
            )
        })
}

/// One case of `crash/expected.json`: the canvas (its `__HOST__` the page server at `host`)
/// runs through the binary and ends in the component's `_ERROR` the oracle reported.
fn hostile_input(name: &str, want: &Value, query: &str, host: &str, tmp: &Path) {
    let text = read(&crash_dir().join(format!("{name}.json"))).replace("__HOST__", host);
    let file = tmp.join(format!("{name}.json"));
    std::fs::write(&file, text).expect("write canvas");
    let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(["run", file.to_str().expect("utf-8 path"), "--query", query])
        .env("ALLOW_ANY_HOST", "1")
        .output()
        .expect("canvasc runs");
    assert_no_crash(name, &o);
    let node = want["node"].as_str().expect("node");
    let outputs = node_outputs(name, &o, node);
    assert_eq!(outputs["_ERROR"], want["_ERROR"], "{name}: _ERROR");
    if !want["result"].is_null() {
        assert_eq!(outputs["result"], want["result"], "{name}: result");
    }
}

/// A reader that has gone away: the write end of a pipe whose read end is already closed.
fn closed_stdout() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

/// `canvasc convert x.json | true` and friends end quietly: the status a SIGPIPE gives (141) or
/// success, and no panic message.
fn a_closed_stdout_ends_the_cli_quietly() {
    let canvas = fixture("valid/list-operations.json");
    let runs: [&[&str]; 4] = [
        &["convert", "--to", "v2", &canvas],
        &["reset", &canvas],
        &["check", "--format", "json", &canvas],
        &["run", &canvas, "--query", "hi"],
    ];
    for args in runs {
        let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
            .args(args)
            .stdout(closed_stdout())
            .stderr(Stdio::piped())
            .output()
            .expect("canvasc runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(0 | 141)),
            "{args:?}: {:?}\n{stderr}",
            o.status
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// `canvasc check` knows statically what the Invoke triggers above do at run time.
fn check_warns_about_seconds_cpython_cannot_hold() {
    for (name, param) in [
        ("timeout-u64", "`timeout`"),
        ("delay-1e300", "`delay_after_error`"),
    ] {
        let file = crash_dir().join(format!("{name}.json"));
        let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
            .args(["check", file.to_str().expect("utf-8 path")])
            .output()
            .expect("canvasc runs");
        assert_no_crash(name, &o);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: only a warning\n{stderr}");
        assert!(
            stderr.contains("warning[out-of-range]") && stderr.contains(param),
            "{name}: {stderr}"
        );
    }
}

/// A state file whose turn count is past what a JSON number holds: a clear error naming the
/// field, not a wrap (release) or a panic (debug).
fn a_state_file_with_a_huge_turn_count_is_a_clear_error() {
    let tmp = std::env::temp_dir().join(format!("canvasc-crash-state-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let canvas = fixture("valid/list-operations.json");
    let mut state: Value = serde_json::from_str(&read(Path::new(&canvas))).expect("fixture");
    state["globals"]["sys.conversation_turns"] = Value::from(u64::MAX);
    state["canvasc_state"] = serde_json::json!({"version": 1});
    let state_file = tmp.join("state.json");
    std::fs::write(&state_file, state.to_string()).expect("write state");
    let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(["run", &canvas, "--query", "hi", "--state"])
        .arg(&state_file)
        .output()
        .expect("canvasc runs");
    assert_no_crash("huge turn count", &o);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(all.contains("sys.conversation_turns is too large"), "{all}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A VariableAssigner target 200,000 keys deep. RAGFlow builds the dicts and then cannot save the
/// session: the oracle ends the run with `RecursionError: maximum recursion depth exceeded while
/// encoding a JSON object` (`regen.py`'s command on this canvas). Such a tree would overflow the
/// stack wherever it is printed or dropped, so the assigning component fails with that text.
fn an_assignment_too_deep_to_save_fails_with_pythons_text() {
    let target = format!("begin@x{}", ".a".repeat(200_000));
    let canvas = serde_json::json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"prologue": ""}}, "downstream": ["VariableAssigner:A"], "upstream": []},
            "VariableAssigner:A": {"obj": {"component_name": "VariableAssigner", "params": {"variables": [
                {"variable": target, "operator": "overwrite", "parameter": "sys.query"}]}},
                "downstream": ["Message:Out"], "upstream": ["begin"]},
            "Message:Out": {"obj": {"component_name": "Message", "params": {"content": ["done"]}}, "downstream": [], "upstream": ["VariableAssigner:A"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
        "history": [], "path": [], "retrieval": []
    });
    let tmp = std::env::temp_dir().join(format!("canvasc-crash-deep-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let file = tmp.join("deep-path.json");
    std::fs::write(&file, canvas.to_string()).expect("write canvas");
    let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args([
            "run",
            file.to_str().expect("utf-8 path"),
            "--query",
            "hi",
            "--state",
        ])
        .arg(tmp.join("state.json"))
        .output()
        .expect("canvasc runs");
    assert_no_crash("deep assignment", &o);
    let outputs = node_outputs("deep assignment", &o, "VariableAssigner:A");
    assert_eq!(
        outputs["_ERROR"],
        "maximum recursion depth exceeded while encoding a JSON object"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A test that passes when `check` returns (a failed assertion panics, which fails it).
fn trial(name: &str, check: impl FnOnce() + Send + 'static) -> Trial {
    Trial::test(name, move || {
        check();
        Ok::<(), Failed>(())
    })
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let expected: Value =
        serde_json::from_str(&read(&crash_dir().join("expected.json"))).expect("expected.json");
    let cases = expected["cases"].as_object().expect("cases").clone();
    assert_eq!(
        cases.len(),
        HOSTILE_CASES,
        "the cases of crash/expected.json"
    );
    let host = serve_pages();
    let tmp = std::env::temp_dir().join(format!("canvasc-crash-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut trials = Vec::new();
    for (name, want) in cases {
        let query = expected["queries"][&name]
            .as_str()
            .unwrap_or("go")
            .to_string();
        let (host, tmp) = (host.clone(), tmp.clone());
        trials.push(trial(
            &format!("hostile_inputs_end_in_the_components_error::{name}"),
            move || hostile_input(&name, &want, &query, &host, &tmp),
        ));
    }
    trials.push(trial(
        "a_closed_stdout_ends_the_cli_quietly",
        a_closed_stdout_ends_the_cli_quietly,
    ));
    trials.push(trial(
        "check_warns_about_seconds_cpython_cannot_hold",
        check_warns_about_seconds_cpython_cannot_hold,
    ));
    trials.push(trial(
        "a_state_file_with_a_huge_turn_count_is_a_clear_error",
        a_state_file_with_a_huge_turn_count_is_a_clear_error,
    ));
    trials.push(trial(
        "an_assignment_too_deep_to_save_fails_with_pythons_text",
        an_assignment_too_deep_to_save_fails_with_pythons_text,
    ));
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&tmp);
    conclusion.exit_code()
}
