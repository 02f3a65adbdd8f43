//! A long chain through `canvasc serve` against `canvasc run` of the same canvas (issue 40:
//! the server's cost must follow the work, not the canvas's size).
//!
//! `cargo build --release -p canvasc && cargo run --release -p canvasc-bench --bin long_chain
//! [-- STEPS [RUNS]]` (default 1,000 steps, 20 runs)
//!
//! * The canvas: Begin → STEPS StringTransform merges (each appends to the one before:
//!   `{StringTransform:Step<i-1>@result} s<i>`, the pattern of `bench/peers/chain.json`) →
//!   Message.
//! * `canvasc run`: the release binary beside this one (`target/release/canvasc`), one process
//!   per run, timed whole (start, load, check, run).
//! * `canvasc serve`: this binary re-run as a child (`serve_child.rs`, SQLite in a temporary
//!   directory), the agent created released; one client runs RUNS non-streaming turns, each a
//!   new session, one at a time over one kept-alive connection. Reported: wall time per run
//!   and the server's CPU seconds per run (`/proc/<pid>/stat` before and after).
//!
//! Both report the median and the slowest run; the ratio is of the medians.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use canvasc_bench::proc_tree::cpu_seconds;
use canvasc_bench::serve_child::{self, account, create_agent, json_answer, start_child};
use serde_json::{json, Map, Value};

/// mimalloc, as canvasc's binaries use: the server child is this binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if serve_child::serve_if_child(&args) {
        return;
    }
    let steps: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    if let Err(e) = measure(steps, runs.max(1)) {
        eprintln!("long_chain: {e}");
        std::process::exit(1);
    }
}

/// Begin → `steps` StringTransform merges → Message.
fn chain(steps: usize) -> Value {
    let mut components = Map::new();
    let name = |i: usize| match i {
        0 => "begin".to_string(),
        i => format!("StringTransform:Step{i}"),
    };
    components.insert(
        "begin".into(),
        json!({"obj": {"component_name": "Begin", "params": {"mode": "conversational",
            "inputs": {}, "outputs": {}, "prologue": ""}},
            "downstream": [name(1)], "upstream": []}),
    );
    for i in 1..=steps {
        let script = match i {
            1 => "{sys.query} s1".to_string(),
            i => format!("{{{}@result}} s{i}", name(i - 1)),
        };
        let downstream = match i == steps {
            true => "Message:Reply".to_string(),
            false => name(i + 1),
        };
        components.insert(
            name(i),
            json!({"obj": {"component_name": "StringTransform", "params": {"method": "merge",
                "split_ref": "", "delimiters": [","], "script": script,
                "outputs": {"result": {"type": "string"}}}},
                "downstream": [downstream], "upstream": [name(i - 1)]}),
        );
    }
    components.insert(
        "Message:Reply".into(),
        json!({"obj": {"component_name": "Message", "params": {
            "content": [format!("{{{}@result}}", name(steps))]}},
            "downstream": [], "upstream": [name(steps)]}),
    );
    json!({"components": components, "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0,
            "sys.files": [], "sys.history": []}})
}

/// Median and slowest of `samples`, in milliseconds.
fn summary(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[samples.len() - 1])
}

fn measure(steps: usize, runs: usize) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("canvasc-long-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let canvas = chain(steps);
    let file = dir.join("chain.json");
    std::fs::write(&file, canvas.to_string()).map_err(|e| e.to_string())?;
    let expected_tail = format!(" s{steps}");

    // `canvasc run`, one process per run.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let canvasc: PathBuf = exe.with_file_name(format!("canvasc{}", std::env::consts::EXE_SUFFIX));
    if !canvasc.is_file() {
        return Err(format!(
            "{} is not built: cargo build --release -p canvasc",
            canvasc.display()
        ));
    }
    let mut cli = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let out = Command::new(&canvasc)
            .arg("run")
            .arg(&file)
            .args(["--query", "go"])
            .output()
            .map_err(|e| format!("{}: {e}", canvasc.display()))?;
        cli.push(started.elapsed().as_secs_f64() * 1000.0);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !stdout.contains(&expected_tail) {
            return Err(format!(
                "canvasc run failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }

    // `canvasc serve`: the agent released, one run at a time over one connection.
    let server = start_child("http://127.0.0.1:9/v1", &dir)?;
    let pid = server.child.id();
    canvasc_engine::http::install_tls_provider();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let (served, cpu) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(600))
            .build()
            .map_err(|e| e.to_string())?;
        let key = account(&client, &server.base).await?;
        let source = canvas.to_string();
        let agent = create_agent(&client, &server.base, &key, "long chain", &source).await?;
        let run = || async {
            let answer = json_answer(
                client
                    .post(format!("{}/api/v1/agents/chat/completions", server.base))
                    .header("Authorization", &key)
                    .json(&json!({"agent_id": agent, "query": "go", "stream": false})),
            )
            .await?;
            let content = answer["data"]["data"]["content"]
                .as_str()
                .unwrap_or_default();
            match content.ends_with(&expected_tail) {
                true => Ok(()),
                false => Err(format!(
                    "the server answered {}",
                    answer.to_string().chars().take(300).collect::<String>()
                )),
            }
        };
        run().await?; // warm: the canvas checked and its program built once
        let cpu_before = cpu_seconds(pid);
        let mut served = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            run().await?;
            served.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        let cpu = (cpu_seconds(pid) - cpu_before) * 1000.0 / runs as f64;
        Ok::<_, String>((served, cpu))
    })?;
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);

    let (cli_p50, cli_max) = summary(cli);
    let (serve_p50, serve_max) = summary(served);
    println!("{steps}-step chain, {runs} runs each");
    println!("canvasc run:   p50 {cli_p50:.1} ms, slowest {cli_max:.1} ms (one process per run)");
    println!(
        "canvasc serve: p50 {serve_p50:.1} ms, slowest {serve_max:.1} ms, server CPU {cpu:.1} ms per run"
    );
    println!("serve / run (p50): {:.2}×", serve_p50 / cli_p50);
    Ok(())
}
