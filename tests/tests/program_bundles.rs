//! Program bundles: a binary `canvasc build` made, dropped into a server's bundle directory
//! while it serves, runs that canvas's released versions in a worker process, with the same
//! events and saved state as the interpreter; drafts stay interpreted; a worker that dies ends
//! its turns with an error and the next turn starts a new one; a cancel reaches the worker;
//! bundles another engine built, or that answer nonsense, are left out.
//!
//! The bundle is built here (two fixtures) under the target directory, once per test binary.

use canvasc::build;
use canvasc::codegen::{self, UniqueNames};
use canvasc_frontend::analyze;
use canvasc_host::serve::Programs;
use canvasc_host::worker::bundles::Bundles;
use canvasc_server::turn::{
    ProgramKind, SessionState, TurnCanvas, TurnEnd, TurnEvent, TurnRequest, TurnRunner,
};
use canvasc_tests::reference::normalize;
use canvasc_tests::workspace_root;
use futures::StreamExt;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

const CHAIN: &str = "fixtures/valid/string-transform.json";
const CHAT: &str = "fixtures/valid/llm-think-stream.json";

/// The model every run here talks to: `slow` streams for seconds, anything else is answered
/// at once.
fn script() -> Value {
    let chunks: Vec<String> = (0..30).map(|i| format!("w{i} ")).collect();
    json!({
        "chunking": "words",
        "responses": [
            {"match": "slow", "chunks": chunks, "delay_ms": 100, "times": -1}
        ],
        "default": "echo"
    })
}

/// The built bundle carrying both fixtures (built once; a failed build fails every test).
fn bundle() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace_root().join("target"));
        let dir = target.join("canvasc-tests/bundle-canvases");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let mut names = UniqueNames::default();
        let mut modules = Vec::new();
        for file in [CHAIN, CHAT] {
            let text = std::fs::read_to_string(workspace_root().join(file))
                .map_err(|e| format!("{file}: {e}"))?;
            let analysis = analyze(&text).map_err(|e| format!("{file}: {e}"))?;
            let code = codegen::format(codegen::canvas_module(file, &analysis))
                .map_err(|e| format!("{file}: {e}"))?;
            modules.push((codegen::module_name(file, &mut names), code));
        }
        let source = build::canvasc_source(Some(&workspace_root()))?;
        build::write_crate(&dir, "bundle-canvases", &source, &modules)
            .map_err(|e| e.to_string())?;
        build::cargo_build(&dir, "bundle-canvases", false)
    });
    match built {
        Ok(path) => path,
        Err(e) => panic!("the bundle does not build: {e}"),
    }
}

/// A server's engine with `bundle` (when given) in a bundle directory of its own.
struct Server {
    programs: Programs,
    bundles: Arc<Bundles>,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn server(with_bundle: bool) -> Server {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("canvasc-bundles-{}-{n}", std::process::id()));
    let programs_dir = dir.join("programs");
    std::fs::create_dir_all(&programs_dir).expect("bundle dir");
    let script_path = dir.join("script.json");
    std::fs::write(&script_path, script().to_string()).expect("script written");
    if with_bundle {
        // A debug bundle is hundreds of megabytes: linked where the file system allows.
        let installed = programs_dir.join("bundle");
        if std::fs::hard_link(bundle(), &installed).is_err() {
            std::fs::copy(bundle(), &installed).expect("bundle copied");
        }
    }
    let worker = canvasc_host::cli::worker::Args {
        data_dir: dir.clone(),
        config: None,
        llm_script: Some(script_path),
        max_steps: 0,
    };
    let bundles = Bundles::new(programs_dir, worker.command_line());
    bundles.rescan();
    let script = canvasc_engine::llm::script::Script::parse(&script()).expect("script parses");
    let services = canvasc_host::services::assemble_in(Some(script), None, &dir).expect("services");
    let programs = Programs::new(services, &[], None).with_bundles(Arc::clone(&bundles));
    Server {
        programs,
        bundles,
        dir,
    }
}

fn request(file: &str, released: bool, query: &str) -> TurnRequest {
    let text = std::fs::read_to_string(workspace_root().join(file)).expect("fixture reads");
    TurnRequest {
        tenant_id: "t1".into(),
        agent_id: "a1".into(),
        session_id: "s1".into(),
        canvas: TurnCanvas {
            id: file.into(),
            dsl: Arc::new(serde_json::from_str(&text).expect("fixture is JSON")),
        },
        state: SessionState::Canvas,
        released,
        fresh: true,
        query: query.into(),
        inputs: None,
        files: Vec::new(),
        user_id: "u1".into(),
        custom_header: Map::new(),
        chat_template_kwargs: None,
        checkpoints: None,
        resume: None,
        default_llm: None,
        webhook_payload: None,
    }
}

/// A whole turn: the program that ran it, its events (normalised), its end and saved state.
async fn turn(
    programs: &Programs,
    request: TurnRequest,
) -> (ProgramKind, Vec<Value>, TurnEnd, Value) {
    let running = programs.start(request).expect("the turn starts");
    let mut events = running.events;
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            TurnEvent::Event { event, data } => {
                seen.push(normalize(&json!({"event": event, "data": data})))
            }
            TurnEvent::Ended { end, state } => {
                return (running.program, seen, end, normalize(&state))
            }
        }
    }
    panic!("the turn's events ended without its end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_version_runs_in_its_bundles_worker_as_the_interpreter_runs_it() {
    let bundled = server(true);
    let plain = server(false);
    for (file, query) in [(CHAIN, "hello"), (CHAT, "Question: the capital of France?")] {
        let (program, events, end, state) =
            turn(&bundled.programs, request(file, true, query)).await;
        assert_eq!(program, ProgramKind::Compiled, "{file}");
        let (expected_program, expected, expected_end, expected_state) =
            turn(&plain.programs, request(file, true, query)).await;
        assert_eq!(expected_program, ProgramKind::Interpreted);
        assert!(events.len() >= 3, "{file}: {events:?}");
        assert_eq!(events, expected, "{file}: the events differ");
        assert_eq!(end, expected_end, "{file}");
        assert_eq!(state, expected_state, "{file}: the saved state differs");
    }
    assert!(bundled.bundles.carries(&fingerprint_of(CHAIN)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_runs_on_the_interpreter_even_when_a_bundle_carries_it() {
    let bundled = server(true);
    let (program, _, end, _) = turn(&bundled.programs, request(CHAIN, false, "hi")).await;
    assert_eq!(program, ProgramKind::Interpreted);
    assert_eq!(end, TurnEnd::Finished);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_dies_ends_its_turns_with_an_error_and_the_next_turn_starts_another() {
    let bundled = server(true);
    let running = bundled
        .programs
        .start(request(CHAT, true, "slow please"))
        .expect("starts");
    assert_eq!(running.program, ProgramKind::Compiled);
    let mut events = running.events;
    // The answer has begun streaming: the worker runs the turn.
    loop {
        match events.next().await {
            Some(TurnEvent::Event { event, .. }) if event == "message" => break,
            Some(TurnEvent::Event { .. }) => {}
            other => panic!("the turn ended before its answer: {:?}", other.is_some()),
        }
    }
    let killed = kill_workers(&bundled.dir.join("programs/bundle"));
    assert_eq!(killed, 1, "one worker runs the bundle");
    let end = loop {
        match tokio::time::timeout(Duration::from_secs(10), events.next()).await {
            Ok(Some(TurnEvent::Ended { end, .. })) => break end,
            Ok(Some(TurnEvent::Event { .. })) => {}
            Ok(None) => panic!("the turn's events ended without its end"),
            Err(_) => panic!("the turn did not end after its worker died"),
        }
    };
    match end {
        TurnEnd::Aborted(why) => assert!(
            why.contains("worker process") && why.contains("stopped"),
            "{why}"
        ),
        other => panic!("ended {other:?}"),
    }
    let (program, _, end, _) = turn(&bundled.programs, request(CHAIN, true, "again")).await;
    assert_eq!((program, end), (ProgramKind::Compiled, TurnEnd::Finished));
}

/// Starts a slow answer, cancels it once it streams; returns how the turn ended and how long
/// the cancel took.
async fn cancelled_turn(programs: &Programs) -> (TurnEnd, Duration) {
    let running = programs
        .start(request(CHAT, true, "slow please"))
        .expect("starts");
    let mut events = running.events;
    loop {
        match events.next().await {
            Some(TurnEvent::Event { event, .. }) if event == "message" => break,
            Some(TurnEvent::Event { .. }) => {}
            other => panic!("the turn ended before its answer: {:?}", other.is_some()),
        }
    }
    let asked = std::time::Instant::now();
    (running.cancel)();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), events.next()).await;
        match next.expect("the turn ends soon after its cancel") {
            Some(TurnEvent::Ended { end, .. }) => return (end, asked.elapsed()),
            Some(TurnEvent::Event { .. }) => {}
            None => panic!("the turn's events ended without its end"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_reaches_the_turn_in_the_worker() {
    let (end, took) = cancelled_turn(&server(true).programs).await;
    let (expected, _) = cancelled_turn(&server(false).programs).await;
    assert_eq!(
        end, expected,
        "the worker's turn ends as an interpreted one does"
    );
    // The 30 slow chunks take 3 s; the cancel cuts them short.
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundles_another_engine_built_or_that_answer_nonsense_are_left_out() {
    let bundled = server(false);
    let dir = bundled.dir.join("programs");
    let fp = fingerprint_of(CHAIN);
    let fake = |name: &str, manifest: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho '{manifest}'\n")).expect("written");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    fake(
        "old-engine",
        &json!({"engine_version": "0-old", "programs": [{"source": CHAIN, "fingerprint": fp}]})
            .to_string(),
    );
    fake("nonsense", "this is no manifest");
    bundled.bundles.rescan();
    assert!(!bundled.bundles.carries(&fp));
    let (program, _, end, _) = turn(&bundled.programs, request(CHAIN, true, "hi")).await;
    assert_eq!(
        (program, end),
        (ProgramKind::Interpreted, TurnEnd::Finished)
    );
}

fn fingerprint_of(file: &str) -> String {
    let text = std::fs::read_to_string(workspace_root().join(file)).expect("fixture reads");
    canvasc_frontend::fingerprint::fingerprint(
        &canvasc_frontend::load_str(&text)
            .expect("a canvas")
            .document,
    )
}

/// Kills the worker processes of `bundle` (found by their command line); returns how many.
fn kill_workers(bundle: &Path) -> usize {
    let mut killed = 0;
    let wanted = bundle.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.first() == Some(&wanted) && args.get(1).map(String::as_str) == Some("worker") {
            let status = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .expect("kill runs");
            assert!(status.success());
            killed += 1;
        }
    }
    killed
}
