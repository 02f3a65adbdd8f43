//! Side by side with LangGraph: `canvasc serve`, LangGraph's API server (`langgraph dev`,
//! in-memory runtime) and a FastAPI + uvicorn app streaming the same LangGraph `StateGraph`s,
//! on identical flows, with one model stub and one closed-loop load generator.
//!
//! `cargo run --release -p canvasc-bench --bin serve_peers [-- LEVELS]` (default `1,10,100,500`)
//!
//! * Flows (`bench/peers/`): `llm` is Begin → LLM → Message (`llm.json`); `chain` is Begin → 20
//!   StringTransform merges, each appending ` s<i>` → Message (`chain.json`). `graphs.py` is the
//!   same two flows as `StateGraph`s with coroutine nodes.
//! * The model: the scripted OpenAI-compatible server (this process, its own thread) answering
//!   every call with `SERVE_PEERS_TOKENS` deltas (20), no delay.
//! * canvasc is this binary re-run as a child process (`--serve`, as `serve_load` does), SQLite
//!   in a temporary directory, both flows also compiled in: measured on the interpreter (what
//!   `canvasc serve` runs) with one kept-alive connection per client and with a new connection
//!   per run, and compiled (a released version of a `canvasc build` binary) with new
//!   connections.
//! * The Python peers run from the virtualenv `bench/peers/setup.sh` makes (or
//!   `CANVASC_BENCH_PEERS_VENV`): `langgraph dev --no-browser --no-reload` streamed through
//!   `POST /runs/stream` (stateless, `stream_mode` updates + messages-tuple), and `uvicorn
//!   app:app` (one process; uvloop and httptools) through `POST /runs/<flow>/stream`. Both get
//!   kept-alive connections.
//! * The load: for each level N, N clients each run one streaming run after another (closed
//!   loop) until `max(SERVE_PEERS_RUNS (200), SERVE_PEERS_RUNS_PER_CLIENT (3) × N)` runs have
//!   started or `SERVE_PEERS_SECS` (15) have passed, then the runs in flight finish (a cell is
//!   cut at `SERVE_PEERS_TIMEOUT_SECS`, 180). Before a server's first cell of a flow, 20 runs
//!   warm it up. `SERVE_PEERS_SERVERS` (`canvasc,fastapi,langgraph`) and `SERVE_PEERS_FLOWS`
//!   (`llm,chain`) choose.
//!
//! Reported per server, flow and level: runs/s (completed runs / the cell's wall time), the
//! time to the first event p50/p99 (request sent → the first SSE frame carrying the run's
//! output; LangGraph's `metadata` frame, sent before its queue starts the run, does not count),
//! the full run's p99, the server's CPU seconds per 1,000 runs (user + system of its process
//! tree, `/proc/<pid>/stat`, across the cell) and the peak resident set of its tree (sampled
//! every 20 ms). Then ratios against canvasc with a new connection per run. A run counts only
//! when its stream ends complete (`[DONE]`, or the end of LangGraph's stream) and carries the
//! flow's last piece of output (the model's last delta, or the last step's ` s20`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use canvasc_bench::proc_tree::{cpu_seconds, status_kib, tree, tree_rss_kib};
use canvasc_bench::serve_child::{self, account, create_agent, start_child, ServerChild};
use canvasc_engine::llm::script::Script;
use canvasc_engine::ProgramVisitor;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::load_str;
use canvasc_host::program_choice::Compiled;
use canvasc_host::serve::TurnStart;
use canvasc_server::turn::RunningTurn;
use canvasc_tests::scripted_server::ScriptedServer;
use futures::StreamExt;
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const LLM_SOURCE: &str = include_str!("../../peers/llm.json");
const CHAIN_SOURCE: &str = include_str!("../../peers/chain.json");
const PEERS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/peers");
/// Runs that warm a server up before its first cell of a flow, and their concurrency.
const WARMUP: (usize, usize) = (20, 10);

fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn list_var(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Flow {
    Llm,
    Chain,
}

impl Flow {
    fn name(self) -> &'static str {
        match self {
            Flow::Llm => "llm",
            Flow::Chain => "chain",
        }
    }

    fn source(self) -> &'static str {
        match self {
            Flow::Llm => LLM_SOURCE,
            Flow::Chain => CHAIN_SOURCE,
        }
    }

    /// What every complete run's stream carries: the model's last delta, or the last step's
    /// append (`w19`, `s20` occur nowhere earlier).
    fn marker(self) -> String {
        match self {
            Flow::Llm => format!("w{}", tokens() - 1),
            Flow::Chain => "s20".to_string(),
        }
    }
}

fn tokens() -> usize {
    var("SERVE_PEERS_TOKENS", 20usize).max(1)
}

fn fingerprints() -> &'static [String; 2] {
    static FP: OnceLock<[String; 2]> = OnceLock::new();
    FP.get_or_init(|| {
        [Flow::Llm, Flow::Chain].map(|flow| {
            let loaded = load_str(flow.source())
                .unwrap_or_else(|e| panic!("bench/peers/{}.json loads: {e}", flow.name()));
            fingerprint(&loaded.document)
        })
    })
}

fn compiled() -> &'static [Compiled] {
    static LIST: OnceLock<Vec<Compiled>> = OnceLock::new();
    LIST.get_or_init(|| {
        let [llm, chain] = fingerprints();
        vec![
            ("bench/peers/llm.json", llm.as_str(), 0),
            ("bench/peers/chain.json", chain.as_str(), 0),
        ]
    })
}

fn find(fp: &str, start: TurnStart) -> Option<RunningTurn> {
    let [llm, chain] = fingerprints();
    if fp == llm {
        Some(start.visit(Arc::new(canvasc_macros::canvas!("peers/llm.json"))))
    } else if fp == chain {
        Some(start.visit(Arc::new(canvasc_macros::canvas!("peers/chain.json"))))
    } else {
        None
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        let (Some(llm), Some(dir)) = (args.get(2), args.get(3)) else {
            eprintln!("usage: serve_peers --serve <llm base url> <data dir>");
            std::process::exit(2);
        };
        serve_child::serve(llm, dir, compiled(), Some(find), String::new);
        return;
    }
    let levels: Vec<usize> = args
        .get(1)
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 10, 100, 500]);
    if let Err(e) = drive(&levels) {
        eprintln!("serve_peers: {e}");
        std::process::exit(1);
    }
}

/// One column of the comparison: a server and how it is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    CanvascKeptAlive,
    CanvascNewConnection,
    CanvascCompiled,
    FastApi,
    LangGraph,
}

impl Target {
    fn label(self) -> &'static str {
        match self {
            Target::CanvascKeptAlive => "canvasc, kept-alive",
            Target::CanvascNewConnection => "canvasc, new connection",
            Target::CanvascCompiled => "canvasc compiled, new connection",
            Target::FastApi => "FastAPI + LangGraph",
            Target::LangGraph => "`langgraph dev`",
        }
    }
}

/// How one run is asked for and recognised.
struct Call {
    target: Target,
    flow: Flow,
    url: String,
    /// canvasc's API key and agent id.
    key: String,
    agent: String,
    marker: String,
}

impl Call {
    fn request(&self, client: &reqwest::Client, i: usize) -> reqwest::RequestBuilder {
        let query = format!("load {i}");
        match self.target {
            Target::CanvascKeptAlive | Target::CanvascNewConnection | Target::CanvascCompiled => {
                client
                    .post(&self.url)
                    .header("Authorization", &self.key)
                    .json(
                        &json!({"agent_id": self.agent, "query": query, "stream": true,
                        "release": self.target == Target::CanvascCompiled}),
                    )
            }
            Target::FastApi => client.post(&self.url).json(&json!({"query": query})),
            Target::LangGraph => client.post(&self.url).json(&json!({
                "assistant_id": self.flow.name(),
                "input": {"query": query},
                "stream_mode": ["updates", "messages-tuple"],
            })),
        }
    }

    /// The `X-Canvasc-Program` a canvasc run must answer.
    fn program(&self) -> Option<&'static str> {
        match self.target {
            Target::CanvascKeptAlive | Target::CanvascNewConnection => Some("interpreted"),
            Target::CanvascCompiled => Some("compiled"),
            Target::FastApi | Target::LangGraph => None,
        }
    }
}

/// One run's times, µs from its request.
struct RunTimes {
    first_event: u64,
    total: u64,
}

async fn one_run(call: &Call, client: &reqwest::Client, i: usize) -> Result<RunTimes, String> {
    let sent = Instant::now();
    let response = call
        .request(client, i)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !status.is_success() || call.program().is_some_and(|p| p != program) {
        let body = response.text().await.unwrap_or_default();
        let body: String = body.chars().take(300).collect();
        return Err(format!("HTTP {status}, program {program:?}: {body}"));
    }
    let mut body = response.bytes_stream();
    let mut buffer = Vec::new();
    let mut first_event = None;
    let (mut done, mut marked) = (false, false);
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        // Python's SSE writers may end lines with CRLF.
        buffer.extend(chunk.iter().filter(|&&b| b != b'\r'));
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let frame: Vec<u8> = buffer.drain(..end + 2).collect();
            let text = String::from_utf8_lossy(&frame);
            let mut event = "";
            let mut data = None;
            for line in text.lines() {
                if let Some(e) = line.strip_prefix("event:") {
                    event = e.trim();
                } else if let Some(d) = line.strip_prefix("data:") {
                    data = Some(d.trim());
                }
            }
            let Some(data) = data else { continue };
            if event == "error" {
                return Err(format!("the stream carried an error: {data}"));
            }
            if data == "[DONE]" {
                done = true;
                continue;
            }
            if event != "metadata" {
                first_event.get_or_insert(sent.elapsed().as_micros() as u64);
            }
            marked |= data.contains(&call.marker);
        }
    }
    // LangGraph's stream has no closing frame: its end is the response's.
    if call.target == Target::LangGraph {
        done = true;
    }
    match (done, marked, first_event) {
        (true, true, Some(first_event)) => Ok(RunTimes {
            first_event,
            total: sent.elapsed().as_micros() as u64,
        }),
        (false, _, _) => Err("the stream ended without [DONE]".into()),
        _ => Err(format!("the stream lacked {:?}", call.marker)),
    }
}

/// One server × flow × level.
struct Cell {
    target: Target,
    flow: Flow,
    level: usize,
    first_events: Vec<u64>,
    totals: Vec<u64>,
    failed: usize,
    first_failure: Option<String>,
    wall: Duration,
    cpu_seconds: f64,
    peak_rss_kib: u64,
}

impl Cell {
    fn runs_per_second(&self) -> f64 {
        self.totals.len() as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Server CPU seconds per run.
    fn cpu_per_run(&self) -> f64 {
        self.cpu_seconds / self.totals.len().max(1) as f64
    }

    fn first_event_ms(&self, q: f64) -> f64 {
        quantile(&self.first_events, q)
    }
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

/// The closed loop: `level` clients, each starting its next run when its last one ended.
async fn cell(
    call: Arc<Call>,
    client: &reqwest::Client,
    level: usize,
    runs: usize,
    window: Duration,
    pid: u32,
) -> Cell {
    let timeout = Duration::from_secs(var("SERVE_PEERS_TIMEOUT_SECS", 180u64));
    let pids = tree(pid);
    let peak = Arc::new(AtomicU64::new(0));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, sampling, pids) = (peak.clone(), sampling.clone(), pids.clone());
        tokio::spawn(async move {
            while sampling.load(Ordering::Relaxed) {
                let rss = pids.iter().map(|&p| status_kib(p, "VmRSS:")).sum();
                peak.fetch_max(rss, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let results = Arc::new(Mutex::new((Vec::new(), Vec::new(), 0usize, None::<String>)));
    let tickets = Arc::new(AtomicUsize::new(0));
    let cpu_before = cpu_seconds(pid);
    let started = Instant::now();
    let workers: Vec<_> = (0..level)
        .map(|_| {
            let (call, client, results, tickets) = (
                call.clone(),
                client.clone(),
                results.clone(),
                tickets.clone(),
            );
            tokio::spawn(async move {
                loop {
                    let i = tickets.fetch_add(1, Ordering::Relaxed);
                    if i >= runs || started.elapsed() >= window {
                        break;
                    }
                    let outcome = one_run(&call, &client, i).await;
                    let mut r = results.lock().unwrap_or_else(|p| p.into_inner());
                    match outcome {
                        Ok(t) => {
                            r.0.push(t.first_event);
                            r.1.push(t.total);
                        }
                        Err(e) => {
                            r.2 += 1;
                            r.3.get_or_insert(e);
                        }
                    }
                }
            })
        })
        .collect();
    let aborts: Vec<_> = workers.iter().map(|w| w.abort_handle()).collect();
    let cut = tokio::time::timeout(timeout, futures::future::join_all(workers))
        .await
        .is_err();
    let wall = started.elapsed();
    let cpu_seconds = cpu_seconds(pid) - cpu_before;
    for a in aborts {
        a.abort();
    }
    sampling.store(false, Ordering::Relaxed);
    let _ = sampler.await;
    let mut r = results.lock().unwrap_or_else(|p| p.into_inner());
    let (mut first_events, mut totals) = (std::mem::take(&mut r.0), std::mem::take(&mut r.1));
    first_events.sort_unstable();
    totals.sort_unstable();
    let mut first_failure = r.3.take();
    if cut {
        first_failure.get_or_insert(format!("cut after {timeout:?} with runs in flight"));
    }
    Cell {
        target: call.target,
        flow: call.flow,
        level,
        first_events,
        totals,
        failed: r.2,
        first_failure,
        wall,
        cpu_seconds,
        peak_rss_kib: peak.load(Ordering::Relaxed),
    }
}

/// A Python peer's process; dropping it ends the process and the ones it started.
struct PythonServer {
    child: Child,
    base: String,
}

impl Drop for PythonServer {
    fn drop(&mut self) {
        let pids = tree(self.child.id());
        for pid in pids.iter().rev() {
            let _ = Command::new("kill")
                .arg(pid.to_string())
                .stderr(Stdio::null())
                .status();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The peers' virtualenv: `CANVASC_BENCH_PEERS_VENV` when it holds one, else what
/// `bench/peers/setup.sh` makes (minutes the first time, then instant).
fn peers_venv() -> Result<PathBuf, String> {
    if let Ok(venv) = std::env::var("CANVASC_BENCH_PEERS_VENV") {
        if Path::new(&venv).join("bin/python").exists() {
            return Ok(venv.into());
        }
    }
    eprintln!("serve_peers: the peers' virtualenv (bench/peers/setup.sh makes it when needed)…");
    let out = Command::new("bash")
        .arg(format!("{PEERS_DIR}/setup.sh"))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run bench/peers/setup.sh: {e}"))?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || path.is_empty() {
        return Err(
            "bench/peers/setup.sh failed: run it by hand (it needs python3 and PyPI), or set \
             SERVE_PEERS_SERVERS=canvasc"
                .into(),
        );
    }
    Ok(path.into())
}

fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| e.to_string())?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Starts a Python peer and waits until its `GET /ok` answers.
async fn start_python(
    target: Target,
    venv: &Path,
    llm: &str,
    dir: &Path,
) -> Result<PythonServer, String> {
    let port = free_port()?.to_string();
    let mut command = match target {
        Target::FastApi => {
            let mut c = Command::new(venv.join("bin/uvicorn"));
            c.args(["app:app", "--app-dir", PEERS_DIR, "--host", "127.0.0.1"])
                .args(["--port", &port, "--log-level", "warning", "--no-access-log"]);
            c
        }
        _ => {
            let mut c = Command::new(venv.join("bin/langgraph"));
            c.arg("dev")
                .args(["--config", &format!("{PEERS_DIR}/langgraph.json")])
                .args(["--host", "127.0.0.1", "--port", &port])
                .args([
                    "--no-browser",
                    "--no-reload",
                    "--server-log-level",
                    "WARNING",
                ]);
            if let Ok(jobs) = std::env::var("SERVE_PEERS_LANGGRAPH_JOBS") {
                c.args(["--n-jobs-per-worker", &jobs]);
            }
            c
        }
    };
    let log_path = dir.join(format!("{target:?}.log"));
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let err = log.try_clone().map_err(|e| e.to_string())?;
    // `langgraph dev` resolves langgraph.json's paths from its working directory (and keeps
    // its in-memory runtime's files there, in `.langgraph_api/`, which git ignores).
    let child = command
        .current_dir(PEERS_DIR)
        .env("CANVASC_PEERS_LLM_URL", llm)
        .env("LANGSMITH_TRACING", "false")
        .env("LANGCHAIN_TRACING_V2", "false")
        .env("LANGGRAPH_CLI_NO_ANALYTICS", "1")
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", target.label()))?;
    let mut server = PythonServer {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(Some(status)) = server.child.try_wait() {
            return Err(format!(
                "{} exited ({status}); see {}",
                target.label(),
                log_path.display()
            ));
        }
        let ok = client
            .get(format!("{}/ok", server.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if ok {
            return Ok(server);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{} did not answer /ok in 120 s; see {}",
                target.label(),
                log_path.display()
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Warms a server up, then runs every level of a flow against it.
async fn cells_of(
    call: Call,
    client: &reqwest::Client,
    levels: &[usize],
    pid: u32,
    warm: bool,
) -> Vec<Cell> {
    let call = Arc::new(call);
    let min_runs = var("SERVE_PEERS_RUNS", 200usize);
    let per_client = var("SERVE_PEERS_RUNS_PER_CLIENT", 3usize);
    let window = Duration::from_secs(var("SERVE_PEERS_SECS", 15u64));
    if warm {
        let warmup = cell(call.clone(), client, WARMUP.1, WARMUP.0, window, pid).await;
        if let Some(f) = &warmup.first_failure {
            eprintln!(
                "  warm-up of {} / {}: {} failed, first: {f}",
                call.target.label(),
                call.flow.name(),
                warmup.failed
            );
        }
    }
    let mut cells = Vec::new();
    for &level in levels {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let runs = min_runs.max(per_client * level);
        let c = cell(call.clone(), client, level, runs, window, pid).await;
        eprintln!(
            "  {:<34} {:<5} {:>4} in flight: {:>7.1} runs/s, first event p50 {:.2} ms, {:.2} CPU s/1,000 runs, peak RSS {:.0} MiB, {} failed{}",
            c.target.label(),
            c.flow.name(),
            level,
            c.runs_per_second(),
            c.first_event_ms(0.5),
            c.cpu_per_run() * 1000.0,
            c.peak_rss_kib as f64 / 1024.0,
            c.failed,
            c.first_failure
                .as_deref()
                .map(|f| format!(" (first: {f})"))
                .unwrap_or_default(),
        );
        cells.push(c);
    }
    cells
}

fn flows() -> Vec<Flow> {
    list_var("SERVE_PEERS_FLOWS", "llm,chain")
        .iter()
        .filter_map(|f| match f.as_str() {
            "llm" => Some(Flow::Llm),
            "chain" => Some(Flow::Chain),
            _ => None,
        })
        .collect()
}

fn clients() -> Result<(reqwest::Client, reqwest::Client), String> {
    let kept_alive = reqwest::Client::builder()
        .http1_only()
        .pool_max_idle_per_host(usize::MAX)
        .build()
        .map_err(|e| e.to_string())?;
    let fresh = reqwest::Client::builder()
        .http1_only()
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| e.to_string())?;
    Ok((kept_alive, fresh))
}

/// A warning when the open-file limit is below what the highest level needs (each run holds
/// about four sockets in this process and the server).
fn check_open_files(levels: &[usize]) {
    let need = 4 * levels.iter().max().copied().unwrap_or(0) as u64 + 256;
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3))
                .and_then(|n| n.parse::<u64>().ok())
        });
    if let Some(soft) = soft.filter(|&s| s < need) {
        eprintln!("serve_peers: open files limited to {soft}; raise it (`ulimit -n {need}`)");
    }
}

fn drive(levels: &[usize]) -> Result<(), String> {
    check_open_files(levels);
    let chunks: Vec<String> = (0..tokens()).map(|i| format!("w{i} ")).collect();
    let script = Script::parse(&json!({"responses": [
        {"chunks": chunks, "delay_ms": 0, "times": -1}
    ]}))?;
    let llm = ScriptedServer::try_start(script).map_err(|e| e.to_string())?;
    llm.set_recording(false);
    let dir = std::env::temp_dir().join(format!("canvasc-serve-peers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let servers = list_var("SERVE_PEERS_SERVERS", "canvasc,fastapi,langgraph");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    canvasc_engine::http::install_tls_provider();
    let flows = flows();
    println!(
        "serve_peers: {} deltas per answer, no delay; levels {levels:?}; flows {:?}; servers {servers:?}",
        tokens(),
        flows.iter().map(|f| f.name()).collect::<Vec<_>>(),
    );
    let result = runtime.block_on(async {
        let (kept_alive, fresh) = clients()?;
        let mut cells = Vec::new();
        if servers.iter().any(|s| s == "canvasc") {
            let server = start_child(&llm.base_url(), &dir.join("canvasc"))?;
            cells.extend(canvasc_cells(&server, &kept_alive, &fresh, &flows, levels).await?);
            report_peak("canvasc", server.child.id());
        }
        let python: Vec<Target> = servers
            .iter()
            .filter_map(|s| match s.as_str() {
                "fastapi" => Some(Target::FastApi),
                "langgraph" => Some(Target::LangGraph),
                _ => None,
            })
            .collect();
        if !python.is_empty() {
            let venv = peers_venv()?;
            for target in python {
                let server = start_python(target, &venv, &llm.base_url(), &dir).await?;
                let pid = server.child.id();
                for &flow in &flows {
                    let call = Call {
                        target,
                        flow,
                        url: match target {
                            Target::FastApi => {
                                format!("{}/runs/{}/stream", server.base, flow.name())
                            }
                            _ => format!("{}/runs/stream", server.base),
                        },
                        key: String::new(),
                        agent: String::new(),
                        marker: flow.marker(),
                    };
                    cells.extend(cells_of(call, &kept_alive, levels, pid, true).await);
                }
                report_peak(target.label(), pid);
            }
        }
        print_tables(&cells, &flows, levels);
        Ok::<(), String>(())
    });
    // A failed run keeps the servers' logs.
    if result.is_ok() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

async fn canvasc_cells(
    server: &ServerChild,
    kept_alive: &reqwest::Client,
    fresh: &reqwest::Client,
    flows: &[Flow],
    levels: &[usize],
) -> Result<Vec<Cell>, String> {
    let pid = server.child.id();
    let base = &server.base;
    let key = account(kept_alive, base).await?;
    let mut cells = Vec::new();
    for &flow in flows {
        let agent = create_agent(kept_alive, base, &key, flow.name(), flow.source()).await?;
        for (i, target) in [
            Target::CanvascNewConnection,
            Target::CanvascKeptAlive,
            Target::CanvascCompiled,
        ]
        .into_iter()
        .enumerate()
        {
            let call = Call {
                target,
                flow,
                url: format!("{base}/api/v1/agents/chat/completions"),
                key: key.clone(),
                agent: agent.clone(),
                marker: flow.marker(),
            };
            let client = if target == Target::CanvascKeptAlive {
                kept_alive
            } else {
                fresh
            };
            cells.extend(cells_of(call, client, levels, pid, i == 0).await);
        }
    }
    Ok(cells)
}

fn report_peak(label: &str, pid: u32) {
    eprintln!(
        "  {label}: peak RSS of its first process over the whole run (VmHWM) {:.0} MiB, its tree now {:.0} MiB",
        status_kib(pid, "VmHWM:") as f64 / 1024.0,
        tree_rss_kib(pid) as f64 / 1024.0
    );
}

fn print_tables(cells: &[Cell], flows: &[Flow], levels: &[usize]) {
    println!();
    println!("| flow | in flight | server | runs/s | first event p50 / p99 | run p99 | server CPU s / 1,000 runs | peak RSS | failed |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for c in cells {
        println!(
            "| {} | {} | {} | {:.1} | {:.2} / {:.2} ms | {:.1} ms | {:.2} | {:.0} MiB | {} |",
            c.flow.name(),
            c.level,
            c.target.label(),
            c.runs_per_second(),
            c.first_event_ms(0.5),
            c.first_event_ms(0.99),
            quantile(&c.totals, 0.99),
            c.cpu_per_run() * 1000.0,
            c.peak_rss_kib as f64 / 1024.0,
            c.failed,
        );
    }
    let by: HashMap<(Target, Flow, usize), &Cell> = cells
        .iter()
        .map(|c| ((c.target, c.flow, c.level), c))
        .collect();
    println!();
    println!("Ratios: canvasc (interpreted, new connection per run) over each peer. Throughput per server CPU second is the peer's CPU per run over canvasc's; first event p50 is the peer's over canvasc's (above 1: canvasc answers first).");
    println!();
    println!("| flow | in flight | peer | runs/s | runs per server CPU second | first event p50 |");
    println!("|---|---|---|---|---|---|");
    for &flow in flows {
        for &level in levels {
            let Some(us) = by.get(&(Target::CanvascNewConnection, flow, level)) else {
                continue;
            };
            for peer in [
                Target::CanvascKeptAlive,
                Target::CanvascCompiled,
                Target::FastApi,
                Target::LangGraph,
            ] {
                let Some(them) = by.get(&(peer, flow, level)) else {
                    continue;
                };
                println!(
                    "| {} | {} | {} | {:.2}× | {:.2}× | {:.2}× |",
                    flow.name(),
                    level,
                    peer.label(),
                    us.runs_per_second() / them.runs_per_second(),
                    them.cpu_per_run() / us.cpu_per_run(),
                    them.first_event_ms(0.5) / us.first_event_ms(0.5),
                );
            }
        }
    }
}
