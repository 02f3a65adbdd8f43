//! The `canvasc` command line: exit codes, messages and output formats.

use std::path::PathBuf;
use std::process::{Command, Output};

fn canvasc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .output()
        .expect("canvasc runs")
}

/// A file in a per-test temporary directory.
fn temp_file(test: &str, name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, content).expect("write");
    p
}

const VALID: &str = r#"{
  "components": {
    "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Message:Reply"], "upstream": []},
    "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": ["You said: {sys.query}"]}},
                      "downstream": [], "upstream": ["begin"]}
  },
  "history": [], "path": [], "retrieval": []
}"#;

const BROKEN: &str = r#"{
  "components": {
    "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Message:Reply"], "upstream": []},
    "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": ["{Agent:Gone@content}"]}},
                      "downstream": [], "upstream": ["begin"]}
  },
  "history": [], "path": [], "retrieval": []
}"#;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn valid_canvas_exits_zero() {
    let p = temp_file("valid", "ok.json", VALID);
    let o = canvasc(&["check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 errors, 0 warnings"));
}

#[test]
fn errors_exit_one_and_name_component_field_and_reference() {
    let p = temp_file("broken", "broken.json", BROKEN);
    let o = canvasc(&["check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[unknown-component]"), "{err}");
    assert!(err.contains("Message:Reply"), "{err}");
    assert!(
        err.contains("/components/Message:Reply/obj/params/content/0"),
        "{err}"
    );
    assert!(
        err.contains("{Agent:Gone@content}"),
        "the snippet shows the reference: {err}"
    );
}

#[test]
fn draft_mode_demotes_errors_and_exits_zero() {
    let p = temp_file("draft", "broken.json", BROKEN);
    let o = canvasc(&["check", "--draft", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("warning[unknown-component]"));
}

#[test]
fn json_format_lists_every_field() {
    let p = temp_file("json", "broken.json", BROKEN);
    let o = canvasc(&["check", "--format", "json", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json on stdout");
    let d = &v[0];
    for key in [
        "severity",
        "code",
        "message",
        "component",
        "pointer",
        "span",
        "help",
        "file",
    ] {
        assert!(d.get(key).is_some(), "missing {key} in {d}");
    }
    assert_eq!(d["code"], "unknown-component");
    assert_eq!(d["span"], serde_json::json!([0, 20]));
}

#[test]
fn unreadable_file_exits_two_with_one_line() {
    let o = canvasc(&["check", "/nonexistent/canvas.json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: cannot read /nonexistent/canvas.json"),
        "{err}"
    );
}

#[test]
fn not_json_and_not_a_canvas_exit_two() {
    let p = temp_file("notjson", "bad.json", "{\"components\": {");
    let o = canvasc(&["check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not JSON: EOF while parsing an object at line 1 column 16"),
        "{}",
        stderr(&o)
    );

    let p = temp_file("notcanvas", "list.json", "[1, 2]");
    let o = canvasc(&["check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a canvas: the top level is a list, expected an object"),
        "{}",
        stderr(&o)
    );

    let p = temp_file("notcanvas2", "obj.json", "{\"name\": \"x\"}");
    let o = canvasc(&["check", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a canvas"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(canvasc(&["check"]).status.code(), Some(2));
    assert_eq!(canvasc(&["convert", "x.json"]).status.code(), Some(2));
}

#[test]
fn convert_round_trips_through_v2() {
    let p = temp_file("convert", "ok.json", VALID);
    let o = canvasc(&["convert", p.to_str().expect("utf8"), "--to", "v2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v2: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v2["version"], 2);
    assert!(v2["components"]["message_Reply"].is_object(), "{v2}");
    let back = temp_file("convert", "v2.json", &String::from_utf8_lossy(&o.stdout));
    let o = canvasc(&["convert", back.to_str().expect("utf8"), "--to", "v1"]);
    let v1: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        v1["components"]["Message:Reply"]["obj"]["params"]["content"][0],
        "You said: {sys.query}"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("\n  \"components\": {"),
        "2-space indent"
    );
}

#[test]
fn reset_empties_runtime_state() {
    let stored = VALID.replace("\"path\": []", "\"path\": [\"begin\", \"Message:Reply\"]");
    let p = temp_file("reset", "stored.json", &stored);
    let o = canvasc(&["reset", p.to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["path"], serde_json::json!([]));
    assert_eq!(v["memory"], serde_json::json!([]));
}
