//! A command line a user can trust (issue 25), through the real binary: diagnostics render on
//! any input, `check` says what this build cannot run, state files are never someone else's
//! file, the fixtures' scripts drive `--llm-script`, an empty `llm_id` says how to fix it,
//! `convert` says what v2 drops, a runaway canvas stops, and `build` names its binary after the
//! output directory.

mod common;
use common::fixture;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn canvasc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .output()
        .expect("canvasc runs")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-trust-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The jsonl lines of a run.
fn events(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A golden stream of RAGFlow's engine (`tests/golden/`).
fn golden(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/golden/{name}.jsonl"));
    std::fs::read_to_string(&path)
        .expect("golden stream")
        .lines()
        .map(|l| serde_json::from_str(l).expect("golden jsonl"))
        .collect()
}

const ECHO: &str = r#"{
  "components": {
    "begin": {"obj": {"component_name": "Begin", "params": {"prologue": "Hi"}}, "downstream": ["Message:Reply"], "upstream": []},
    "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": ["Turn [{sys.conversation_turns}] [{sys.query}]"]}},
                      "downstream": [], "upstream": ["begin"]}
  },
  "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
  "history": [], "path": [], "retrieval": []
}"#;

/// A one-line DSL of about 300 KB whose bad reference sits past column 65,535, among
/// multi-byte and wide characters: miette panicked on it (exit 101).
#[test]
fn check_reports_a_diagnostic_far_along_one_line() {
    let dir = temp_dir("long-line");
    let pad = "中é😀 ".repeat(30_000);
    let mut canvas: Value = serde_json::from_str(ECHO).expect("canvas");
    canvas["components"]["Message:Reply"]["obj"]["params"]["content"][0] =
        Value::String(format!("{pad}{{Agent:Gone@content}}{pad}"));
    let text = serde_json::to_string(&canvas).expect("one line");
    let file = dir.join("one-line.json");
    std::fs::write(&file, &text).expect("write");
    // RAGFlow's reference grammar takes the space before `{` into the match.
    let column = text.find(" {Agent:Gone@content}").expect("present") + 1;
    assert!(column > 65_535);
    let o = canvasc(&["check", utf8(&file)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error[unknown-component]"), "{err}");
    assert!(err.contains(&format!("one-line.json:1:{column}]")), "{err}");
    assert!(err.contains("{Agent:Gone@content}"), "{err}");
    assert!(
        err.len() < 4_000,
        "an excerpt, not the line: {} bytes",
        err.len()
    );
}

/// A component the runtime cannot execute is a warning naming it, an error with
/// `--deny-warnings`; the legacy `Answer`, which RAGFlow cannot build either, is an error.
#[test]
fn check_names_what_this_build_cannot_run() {
    let file = fixture("broken/unsupported-kind-answer-node.json");
    let o = canvasc(&["check", &file]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error[legacy-kind]"), "{err}");
    assert!(err.contains("warning[unsupported-kind]"), "{err}");
    assert!(err.contains("Answer:Reply"), "{err}");
    assert!(
        err.contains("/components/Answer:Reply/obj/component_name"),
        "{err}"
    );
    let denied = canvasc(&["check", "--deny-warnings", &file]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(stderr(&denied).contains("error[unsupported-kind]"));

    let tools = canvasc(&[
        "check",
        "--format",
        "json",
        &fixture("valid/support-triage.json"),
    ]);
    let found: Vec<Value> = serde_json::from_slice(&tools.stdout).expect("json");
    // The Agent's Retrieval tool runs (the local knowledge base or a RAGFlow server).
    assert!(
        !found.iter().any(|d| d["code"] == "unsupported-kind"
            && d["message"]
                .as_str()
                .is_some_and(|m| m.contains("Retrieval"))),
        "{found:?}"
    );

    let answer = ECHO.replace(
        r#""component_name": "Message""#,
        r#""component_name": "Answer""#,
    );
    let dir = temp_dir("answer");
    let file = dir.join("answer.json");
    std::fs::write(&file, answer).expect("write");
    let o = canvasc(&["check", "--format", "json", utf8(&file)]);
    let found: Vec<Value> = serde_json::from_slice(&o.stdout).expect("json");
    let message = |code: &str| {
        found
            .iter()
            .find(|d| d["code"] == code)
            .and_then(|d| d["message"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        message("legacy-kind")
            .ends_with("building the canvas fails with `AssertionError: Can't import AnswerParam`"),
        "{found:?}"
    );
    assert!(
        message("unsupported-kind").contains("cannot run Answer components"),
        "{found:?}"
    );
}

/// `--state` refuses (exit 2, file untouched) a file that is not canvasc's state, writes a
/// marker and a version, leaves no temporary file, and still reads an unmarked saved session.
#[test]
fn state_files_are_recognised_and_never_clobbered() {
    let dir = temp_dir("state");
    let canvas = dir.join("echo.json");
    std::fs::write(&canvas, ECHO).expect("write");

    let other = dir.join("other-canvas.json");
    std::fs::write(&other, ECHO).expect("write");
    let o = canvasc(&[
        "run",
        utf8(&canvas),
        "--query",
        "hi",
        "--state",
        utf8(&other),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a canvasc state file"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty(), "nothing ran");
    assert_eq!(std::fs::read_to_string(&other).expect("kept"), ECHO);

    let state = dir.join("state.json");
    let first = canvasc(&[
        "run",
        utf8(&canvas),
        "--query",
        "one",
        "--state",
        utf8(&state),
    ]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("saved")).expect("json");
    assert_eq!(saved["canvasc_state"]["version"], 1);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // What the previous canvasc wrote: the same session without the marker.
    let mut unmarked = saved.clone();
    unmarked
        .as_object_mut()
        .expect("object")
        .shift_remove("canvasc_state");
    std::fs::write(&state, unmarked.to_string()).expect("write");
    let second = canvasc(&[
        "run",
        utf8(&canvas),
        "--query",
        "two",
        "--state",
        utf8(&state),
    ]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let reply: String = events(&second)
        .iter()
        .filter(|e| e["event"] == "message")
        .filter_map(|e| e["data"]["content"].as_str())
        .collect();
    assert_eq!(reply, "Turn [2] [two]");

    let mut newer = saved;
    newer["canvasc_state"]["version"] = Value::from(99);
    std::fs::write(&state, newer.to_string()).expect("write");
    let o = canvasc(&[
        "run",
        utf8(&canvas),
        "--query",
        "three",
        "--state",
        utf8(&state),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("newer canvasc"), "{}", stderr(&o));
}

/// The fixtures' wrapped scripts drive the model (the answer is the one RAGFlow's engine
/// gave with the same file), and an unknown key is refused by name and line.
#[test]
fn llm_script_takes_the_fixtures_and_refuses_unknown_keys() {
    let o = canvasc(&[
        "run",
        &fixture("valid/categorize-routing.json"),
        "--query",
        "I want a refund",
        "--llm-script",
        &fixture("scripts/categorize-routing.json"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let finished = |evs: Vec<Value>| {
        evs.into_iter()
            .find(|e| e["event"] == "workflow_finished")
            .map(|e| e["data"]["outputs"]["content"].clone())
    };
    assert_eq!(
        finished(events(&o)),
        finished(golden("categorize-routing-billing"))
    );

    let dir = temp_dir("script-keys");
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        "{\n  \"llm\": {\n    \"responses\": [\n      {\"mach\": \"refund\", \"content\": \"x\"}\n    ]\n  }\n}\n",
    )
    .expect("write");
    let o = canvasc(&[
        "run",
        &fixture("valid/categorize-routing.json"),
        "--llm-script",
        utf8(&script),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("script.json:4:"), "{err}");
    assert!(err.contains("unknown key `mach`"), "{err}");
}

/// A template's empty `llm_id` with no default model: the component's error shows the
/// one-line fix.
#[test]
fn an_empty_llm_id_says_how_to_configure_a_default() {
    let dir = temp_dir("empty-llm-id");
    let config = dir.join("canvasc.toml");
    std::fs::write(&config, "").expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args([
            "run",
            &fixture("valid/template-faq-bot.json"),
            "--query",
            "hi",
        ])
        .env("CANVASC_CONFIG", &config)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CANVASC_LLM_API_KEY")
        .env_remove("CANVASC_LLM_BASE_URL")
        .output()
        .expect("canvasc runs");
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        all.contains(r#"printf '[llm]\\ndefault = \"gpt-4o@OpenAI\"\\n' >> canvasc.toml"#),
        "{all}"
    );
}

/// v1 → v2 names on stderr what the v2 form cannot carry.
#[test]
fn convert_says_what_v2_drops() {
    let o = canvasc(&[
        "convert",
        &fixture("valid/support-triage.json"),
        "--to",
        "v2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("the editor's graph (layout of"), "{err}");
    assert!(err.contains("will not restore them"), "{err}");
    let v2: Value = serde_json::from_slice(&o.stdout).expect("v2 on stdout");
    assert_eq!(v2["version"], 2);
    let dir = temp_dir("convert");
    let file = dir.join("v2.json");
    std::fs::write(&file, &o.stdout).expect("write");
    let back = canvasc(&["convert", utf8(&file), "--to", "v2"]);
    assert_eq!(back.status.code(), Some(0));
    assert!(
        stderr(&back).is_empty(),
        "v2 to v2 drops nothing: {}",
        stderr(&back)
    );
}

/// A cycle without a Loop ends at the step limit, naming the cycle; the same canvas leaving
/// the cycle early keeps RAGFlow's stream.
#[test]
fn a_runaway_canvas_stops_at_the_step_limit() {
    let canvas = fixture("broken/structural-cycle-without-loop.json");
    let o = canvasc(&["run", &canvas, "--query", "hello", "--max-steps", "300"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let evs = events(&o);
    let last = evs.last().expect("the abort frame");
    assert_eq!(last["code"], 500, "{last}");
    let message = last["message"].as_str().unwrap_or("");
    assert!(message.contains("step limit reached"), "{message}");
    assert!(
        message.contains("`StringTransform:Draft` → `Switch:GoodEnough`"),
        "{message}"
    );
    let started = evs.iter().filter(|e| e["event"] == "node_started").count();
    assert!(
        (300..=310).contains(&started),
        "{started} components started"
    );

    let ok = canvasc(&["run", &canvas, "--query", "ok"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let steps = |evs: &[Value]| -> Vec<String> {
        evs.iter()
            .filter(|e| !e["event"].as_str().unwrap_or("_").starts_with('_'))
            .map(|e| format!("{} {}", e["event"], e["data"]["component_id"]))
            .collect()
    };
    assert_eq!(
        steps(&events(&ok)),
        steps(&golden("structural-cycle-without-loop-ok"))
    );
}

/// On a terminal, `build` draws a bar over the canvases it generates (`script` gives the
/// process a pseudo-terminal); off a terminal it prints no bar.
#[test]
fn build_shows_progress_on_a_terminal_only() {
    let dir = temp_dir("progress");
    let out = dir.join("crate");
    let command = format!(
        "{} build {} --emit-only --out {}",
        env!("CARGO_BIN_EXE_canvasc"),
        fixture("valid/diamond-uneven.json"),
        utf8(&out)
    );
    let plain = canvasc(&[
        "build",
        &fixture("valid/diamond-uneven.json"),
        "--emit-only",
        "--out",
        utf8(&out),
    ]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(!stderr(&plain).contains("generating"), "{}", stderr(&plain));
    let toml = std::fs::read_to_string(out.join("Cargo.toml")).expect("manifest");
    assert!(toml.contains("name = \"crate\"\n"), "{toml}");
    let Ok(tty) = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
    else {
        eprintln!("NOT RUN: build_shows_progress_on_a_terminal_only needs `script` for a pty");
        return;
    };
    let shown = String::from_utf8_lossy(&tty.stdout);
    assert!(shown.contains("generating"), "{shown}");
}
