//! Ctrl-C through a real terminal: `canvasc run` is started in a pseudo-terminal (its
//! controlling terminal, as in a shell), and Ctrl-C is typed into it. A model call in flight
//! (a scripted model that answers after 20 s) is aborted at once; the run ends with RAGFlow's cancellation
//! events and exit 130. A second Ctrl-C ends the process on the spot.

#![cfg(unix)]

mod common;
use common::fixture;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The exit code README documents for a cancelled run.
const EXIT_CANCELED: i32 = 130;

/// RAGFlow's text for a cancelled component and run (`Task has been canceled`).
const CANCELED: &str = "Task has been canceled";

/// A running `canvasc` whose controlling terminal is a pty we hold the other end of.
struct InTerminal {
    child: Child,
    terminal: std::fs::File,
    lines: mpsc::Receiver<String>,
    stdout: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl InTerminal {
    fn start(args: &[&str], env: &[(&str, &str)]) -> InTerminal {
        InTerminal::start_reading(args, env, true)
    }

    /// `read_stdout: false` leaves stdout's pipe unread: once it is full, the run blocks
    /// writing its events (a shutdown that cannot finish).
    fn start_reading(args: &[&str], env: &[(&str, &str)], read_stdout: bool) -> InTerminal {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors into the integers we pass; no name, default
        // terminal settings (ISIG on: Ctrl-C sends SIGINT).
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_canvasc"));
        cmd.args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::from(slave))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: only async-signal-safe calls between fork and exec: a new session whose
        // controlling terminal is the pty on stdin, so the terminal's Ctrl-C reaches it.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().expect("canvasc starts");
        let stdout = child.stdout.take().expect("stdout piped");
        let mut stderr = child.stderr.take().expect("stderr piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            if !read_stdout {
                // Held open, unread, until the process has gone.
                let _ = tx.send(String::new());
                std::thread::sleep(Duration::from_secs(60));
                drop(stdout);
                return;
            }
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        InTerminal {
            child,
            terminal: std::fs::File::from(master),
            lines,
            stdout: Vec::new(),
            stderr,
        }
    }

    /// Waits (at most 60 s) for a stdout line containing `needle`.
    fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            match self.lines.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    let hit = line.contains(needle);
                    self.stdout.push(line);
                    if hit {
                        return;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        panic!("no `{needle}` on stdout; got {:#?}", self.stdout);
    }

    /// Types Ctrl-C into the terminal.
    fn ctrl_c(&mut self) {
        self.terminal.write_all(b"\x03").expect("type Ctrl-C");
        self.terminal.flush().expect("flush");
    }

    /// Waits for the exit (at most `limit`, else kills it and fails): the exit code, how long
    /// it took, the stdout events and the stderr text.
    fn exit_within(mut self, limit: Duration) -> (i32, Duration, Vec<Value>, String) {
        let since = Instant::now();
        let code = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status.code().unwrap_or(-1);
            }
            if since.elapsed() > limit + Duration::from_secs(20) {
                let _ = self.child.kill();
                panic!("canvasc did not exit 20 s past the limit");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let took = since.elapsed();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(500)) {
            self.stdout.push(line);
        }
        let stderr = self.stderr.join().unwrap_or_default();
        let events = self
            .stdout
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        assert!(
            took <= limit,
            "exit took {took:?} (limit {limit:?}); stderr: {stderr}"
        );
        (code, took, events, stderr)
    }
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-cancel-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// RAGFlow's end of a cancelled run, which depends on where the cancel falls (canvas.py): a
/// component that sees it sets `_ERROR` to the cancellation text, so its `node_finished`
/// carries it and, when its batch is post-processed, `workflow_finished`'s outputs are that
/// text; a cancel seen between batches raises, and the host's abort frame names it. A model
/// streaming into the final Message only ends that stream (RAGFlow's LLM returns when it sees
/// the cancel), so there the model's `node_finished` carries the text and the run finishes.
fn assert_ends_canceled(events: &[Value], stderr: &str) {
    let last = events
        .last()
        .unwrap_or_else(|| panic!("no events; stderr: {stderr}"));
    let aborted = last["code"] == 500
        && last["message"]
            .as_str()
            .is_some_and(|m| m.contains("canceled"));
    let finished = last["event"] == "workflow_finished";
    let canceled_node = events
        .iter()
        .any(|e| e["event"] == "node_finished" && e["data"]["error"] == CANCELED);
    let canceled_run = finished && last["data"]["outputs"] == CANCELED;
    assert!(
        aborted || canceled_run || (finished && canceled_node),
        "the run does not end with RAGFlow's cancellation:\n{}\nstderr: {stderr}",
        events
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn slow_script(dir: &std::path::Path) -> String {
    let script = dir.join("slow.json");
    std::fs::write(
        &script,
        r#"{"responses": [{"content": "too late", "delay_ms": 20000, "times": -1}]}"#,
    )
    .expect("write script");
    script.to_string_lossy().into_owned()
}

#[test]
fn ctrl_c_aborts_a_model_call_in_flight() {
    let dir = temp_dir("model");
    let script = slow_script(&dir);
    // A blocking LLM call (structured output): the component sees the cancel when its call
    // ends, so RAGFlow's `workflow_finished` reports it.
    let canvas = fixture("valid/llm-structured-blocking.json");
    let mut run = InTerminal::start(
        &[
            "run",
            &canvas,
            "--query",
            "Lyon in May",
            "--llm-script",
            &script,
        ],
        &[],
    );
    run.wait_for("\"component_id\":\"LLM:ExtractTrip\"");
    std::thread::sleep(Duration::from_millis(300));
    run.ctrl_c();
    let (code, took, events, stderr) = run.exit_within(Duration::from_secs(1));
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    assert_ends_canceled(&events, &stderr);
    assert!(stderr.contains("canceling the run"), "{stderr}");
    let last = &events[events.len() - 1];
    assert_eq!(last["data"]["outputs"], CANCELED, "{last}");
    eprintln!("model call cancelled in {took:?}");
}

#[test]
fn ctrl_c_ends_a_streamed_answer_at_once() {
    let dir = temp_dir("stream");
    let script = slow_script(&dir);
    let canvas = fixture("valid/llm-think-stream.json");
    let mut run = InTerminal::start(
        &[
            "run",
            &canvas,
            "--query",
            "Question: capital?",
            "--llm-script",
            &script,
        ],
        &[],
    );
    run.wait_for("\"component_id\":\"Message:Reply\"");
    // The Message is reading the model's stream, which answers in 20 s.
    std::thread::sleep(Duration::from_millis(300));
    run.ctrl_c();
    let (code, took, events, stderr) = run.exit_within(Duration::from_secs(1));
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    // RAGFlow's LLM returns from its stream when it sees the cancel, leaving its content
    // unfinished: the Message ends with what was streamed, and the run finishes.
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some(Value::from("workflow_finished"))
    );
    assert!(!events.iter().any(|e| e.to_string().contains("too late")));
    assert!(
        stderr.contains("canceling the run") && stderr.contains("canceled: "),
        "{stderr}"
    );
    eprintln!("streamed answer cancelled in {took:?}");
}

#[test]
fn a_second_ctrl_c_quits_at_once() {
    let dir = temp_dir("twice");
    let script = slow_script(&dir);
    let canvas = fixture("valid/llm-think-stream.json");
    let mut run = InTerminal::start(
        &[
            "run",
            &canvas,
            "--query",
            "Question: capital?",
            "--llm-script",
            &script,
        ],
        &[],
    );
    run.wait_for("\"component_id\":\"Message:Reply\"");
    run.ctrl_c();
    run.ctrl_c();
    let (code, _, _, stderr) = run.exit_within(Duration::from_secs(1));
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    assert!(stderr.contains("canceling the run"), "{stderr}");
}

#[test]
fn a_second_ctrl_c_ends_a_shutdown_that_hangs() {
    // A Message of 1 MB: its event fills the unread stdout pipe, so the run hangs writing it
    // and cannot end after the first Ctrl-C.
    let dir = temp_dir("hang");
    let canvas = dir.join("big.json");
    let dsl = serde_json::json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"prologue": "Hi"}},
                      "downstream": ["Message:Big"], "upstream": []},
            "Message:Big": {"obj": {"component_name": "Message", "params": {"content": ["x".repeat(1 << 20)]}},
                      "downstream": [], "upstream": ["begin"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
        "history": [], "path": [], "retrieval": []
    });
    std::fs::write(&canvas, dsl.to_string()).expect("write canvas");
    let mut run = InTerminal::start_reading(
        &["run", canvas.to_str().expect("utf8"), "--query", "hi"],
        &[],
        false,
    );
    std::thread::sleep(Duration::from_secs(2));
    run.ctrl_c();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        run.child.try_wait().expect("wait").is_none(),
        "the run should still hang on its full stdout"
    );
    run.ctrl_c();
    let (code, took, _, stderr) = run.exit_within(Duration::from_secs(1));
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    assert!(stderr.contains("canceling the run"), "{stderr}");
    assert!(stderr.contains("quit: "), "{stderr}");
    eprintln!("second Ctrl-C ended the hung run in {took:?}");
}

/// How long a cancelled run may take to end while a tool's call hangs: the engine's grace for
/// an answer (2 s, `canvasc_engine::cancel::CALL_GRACE`: RAGFlow shows the result of a call
/// that answers after the cancel) and a second to end.
const SILENT_CALL_LIMIT: Duration = Duration::from_secs(3);

/// A listener on 127.0.0.1 that accepts connections and never answers: an endpoint that hangs.
fn silent_listener() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().map_while(Result::ok) {
            held.push(conn);
        }
    });
    addr
}

/// A canvas of `dir`: `fixture` with every `from` replaced by `to`.
fn canvas_with(dir: &std::path::Path, fixture_path: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(fixture(fixture_path)).expect("the fixture");
    let path = dir.join("canvas.json");
    std::fs::write(&path, text.replace(from, to)).expect("write the canvas");
    path.to_string_lossy().into_owned()
}

#[test]
fn ctrl_c_aborts_an_invoke_waiting_on_a_silent_endpoint() {
    let dir = temp_dir("invoke");
    let silent = silent_listener();
    // The fixture's status service, moved to the silent listener (its timeout is 60 s).
    let canvas = canvas_with(
        &dir,
        "valid/timeout-invoke.json",
        "127.0.0.1:18765",
        &silent.to_string(),
    );
    let mut run = InTerminal::start(
        &["run", &canvas, "--query", "0"],
        &[("ALLOW_ANY_HOST", "1")],
    );
    run.wait_for("\"component_id\":\"Invoke:SlowStatus\"");
    std::thread::sleep(Duration::from_millis(300));
    run.ctrl_c();
    let (code, took, events, stderr) = run.exit_within(SILENT_CALL_LIMIT);
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    assert_ends_canceled(&events, &stderr);
    eprintln!("Invoke on a silent endpoint cancelled in {took:?}");
}

#[test]
fn ctrl_c_aborts_an_agent_tool_waiting_on_a_silent_endpoint() {
    let dir = temp_dir("tool");
    let silent = silent_listener();
    // The agent's model asks for a SearXNG search (its first tool: `_0`), whose instance
    // never answers.
    let script = dir.join("tool.json");
    std::fs::write(
        &script,
        r#"{"responses": [
            {"tool_calls": [{"name": "searxng_search_0", "arguments": {"query": "rust"}}], "times": -1}
        ]}"#,
    )
    .expect("write script");
    let canvas = dir.join("canvas.json");
    let dsl = serde_json::json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {
                "mode": "conversational", "prologue": "", "inputs": {}, "outputs": {}}},
                "downstream": ["Agent:Search"], "upstream": []},
            "Agent:Search": {"obj": {"component_name": "Agent", "params": {
                "llm_id": "scripted-chat@Scripted", "sys_prompt": "You search the web.",
                "prompts": [{"role": "user", "content": "{sys.query}"}], "max_rounds": 2,
                "tools": [{"component_name": "SearXNG", "name": "SearXNG",
                    "params": {"searxng_url": format!("http://{silent}"), "top_n": "3",
                        "query": "sys.query"}}],
                "outputs": {"content": {"type": "string", "value": ""}}}},
                "downstream": ["Message:Out"], "upstream": ["begin"]},
            "Message:Out": {"obj": {"component_name": "Message", "params": {
                "content": ["{Agent:Search@content}"]}},
                "downstream": [], "upstream": ["Agent:Search"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0,
            "sys.files": [], "sys.history": []},
        "history": [], "path": [], "retrieval": []
    });
    std::fs::write(&canvas, dsl.to_string()).expect("write the canvas");
    let canvas = canvas.to_string_lossy().into_owned();
    let mut run = InTerminal::start(
        &[
            "run",
            &canvas,
            "--query",
            "rust",
            "--llm-script",
            script.to_str().expect("utf8"),
        ],
        &[("ALLOW_ANY_HOST", "1")],
    );
    run.wait_for("\"component_id\":\"Agent:Search\"");
    std::thread::sleep(Duration::from_millis(600));
    run.ctrl_c();
    let (code, took, _events, stderr) = run.exit_within(SILENT_CALL_LIMIT);
    assert_eq!(code, EXIT_CANCELED, "stderr: {stderr}");
    assert!(stderr.contains("canceling the run"), "{stderr}");
    eprintln!("agent tool on a silent endpoint cancelled in {took:?}");
}
