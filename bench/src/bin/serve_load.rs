//! Load on `canvasc serve`: many concurrent streaming runs over real HTTP.
//!
//! `cargo run --release -p canvasc-bench --bin serve_load [-- LEVELS]` (default `100,1000,5000`)
//!
//! * The server is this binary re-run as a child process (`--serve`), so its memory is measured
//!   alone (`/proc/<pid>/status`): the host's `Engine` with one program compiled in by
//!   `canvas!` (Begin → LLM → Message), SQLite storage in a temporary directory, models
//!   pointed at the scripted OpenAI-compatible server.
//! * The scripted server (in this process, its own thread) streams every answer as
//!   `SERVE_LOAD_TOKENS` deltas (20), waiting `SERVE_LOAD_DELAY_MS` (50) before each: a run
//!   lasts about their product ([`run_length`]).
//! * The client (reqwest, this process) registers a user, creates the agent released, and for
//!   each level starts N streaming runs spread evenly over one [`run_length`], so that N are in
//!   flight when the last starts (`POST /api/v1/agents/chat/completions`,
//!   `stream: true`; `release: true` runs the compiled program, without it the draft runs on
//!   the interpreter — the response header `X-Canvasc-Program` is checked), and reads every
//!   stream to `data:[DONE]`.
//!
//! Reported per level and program: p50/p99 time to the first event (request sent → first
//! `data:` frame), p50/p99 time to the first token beyond the model's own (first non-empty
//! `message` frame, minus the model's delay before its first delta), runs per second
//! (N / wall time of the level, arrivals included), the most runs in flight the client saw,
//! the server's peak RSS during the level and the memory per in-flight run ((peak RSS − RSS
//! before the level) / most in flight), and the same for the server's live heap (counted by
//! its allocator: what the runs hold, without what the allocator keeps around).

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use canvasc_bench::proc_tree::status_kib;
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
use serde_json::{json, Value};

/// mimalloc, as canvasc's binaries use, counting the server's live and peak heap bytes: the
/// heap per in-flight run next to the RSS per run, which also counts what the allocator keeps.
struct Tracking;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

const SOURCE: &str = include_str!("../../../fixtures/valid/llm-think-stream.json");
/// Deltas per answer and the model's wait before each.
/// Deltas per answer and the model's wait before each: `SERVE_LOAD_TOKENS` (20) and
/// `SERVE_LOAD_DELAY_MS` (50).
fn answer_shape() -> (usize, u64) {
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    (
        var("SERVE_LOAD_TOKENS", 20) as usize,
        var("SERVE_LOAD_DELAY_MS", 50),
    )
}

/// How long a run's answer streams; a level's arrivals are spread over it.
fn run_length() -> Duration {
    let (tokens, delay_ms) = answer_shape();
    Duration::from_millis(tokens as u64 * delay_ms)
}
/// A level that has not finished in this time is reported as it stands.
const LEVEL_TIMEOUT: Duration = Duration::from_secs(120);

fn source_fingerprint() -> &'static str {
    static FP: OnceLock<String> = OnceLock::new();
    FP.get_or_init(|| {
        let loaded = load_str(SOURCE).unwrap_or_else(|e| panic!("the fixture loads: {e}"));
        fingerprint(&loaded.document)
    })
}

fn compiled() -> &'static [Compiled] {
    static LIST: OnceLock<Vec<Compiled>> = OnceLock::new();
    LIST.get_or_init(|| {
        vec![(
            "fixtures/valid/llm-think-stream.json",
            source_fingerprint(),
            0,
        )]
    })
}

fn find(fp: &str, start: TurnStart) -> Option<RunningTurn> {
    (fp == source_fingerprint()).then(|| {
        let program = canvasc_macros::canvas!("../fixtures/valid/llm-think-stream.json");
        start.visit(Arc::new(program))
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        let (Some(llm), Some(dir)) = (args.get(2), args.get(3)) else {
            eprintln!("usage: serve_load --serve <llm base url> <data dir>");
            std::process::exit(2);
        };
        serve_child::serve(llm, dir, compiled(), Some(find), heap_answer);
        return;
    }
    let levels: Vec<usize> = args
        .get(1)
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1000, 5000]);
    if let Err(e) = drive(&levels) {
        eprintln!("serve_load: {e}");
        std::process::exit(1);
    }
}

/// What the child answers its parent: `HEAP <live> <peak>`, the live heap and its peak since the
/// last answer, in bytes.
fn heap_answer() -> String {
    let live = LIVE.load(Ordering::Relaxed);
    let peak = PEAK.swap(live, Ordering::Relaxed);
    format!("HEAP {live} {peak}")
}

/// The server's live heap and its peak since the last call, in bytes.
fn heap(server: &mut ServerChild) -> (u64, u64) {
    let line = server.ask();
    let mut numbers = line
        .strip_prefix("HEAP ")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|n| n.parse().ok());
    match (numbers.next(), numbers.next()) {
        (Some(live), Some(peak)) => (live, peak),
        _ => (0, 0),
    }
}

fn drive(levels: &[usize]) -> Result<(), String> {
    let (tokens, delay_ms) = answer_shape();
    let chunks: Vec<String> = (0..tokens).map(|i| format!("w{i} ")).collect();
    let script = Script::parse(&json!({"responses": [
        {"match": "load", "chunks": chunks, "delay_ms": delay_ms, "times": -1}
    ]}))?;
    let llm = ScriptedServer::try_start(script).map_err(|e| e.to_string())?;
    llm.set_recording(false);
    let dir = std::env::temp_dir().join(format!("canvasc-serve-load-{}", std::process::id()));
    let mut server = start_child(&llm.base_url(), &dir)?;
    let pid = server.child.id();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    canvasc_engine::http::install_tls_provider();
    let result = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(usize::MAX)
            .build()
            .map_err(|e| e.to_string())?;
        let base = server.base.clone();
        let key = account(&client, &base).await?;
        let agent = create_agent(&client, &base, &key, "load", SOURCE).await?;
        println!(
            "serve_load: {tokens} deltas per answer, {delay_ms} ms before each; server pid {pid}, RSS at start {} KiB",
            status_kib(pid, "VmRSS:")
        );
        println!(
            "{:>6} {:>9} {:>11} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>10} {:>10} {:>10}",
            "runs", "in flight", "program", "ev p50", "ev p99", "tok p50", "tok p99", "runs/s", "failed", "peak RSS", "KiB/run", "heap/run"
        );
        for &n in levels {
            for release in [true, false] {
                // Let the previous level's sockets and sessions settle before the baseline.
                tokio::time::sleep(Duration::from_millis(500)).await;
                let (heap_before, _) = heap(&mut server);
                let mut level = level(&client, &base, &key, &agent, n, release, pid).await;
                level.heap_growth = heap(&mut server).1.saturating_sub(heap_before);
                level.print(n, release);
            }
        }
        Ok::<(), String>(())
    });
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// One run's times (µs from its request), or why it failed.
struct RunTimes {
    first_event: u64,
    first_token: u64,
}

struct Level {
    events: Vec<u64>,
    tokens: Vec<u64>,
    failed: Vec<String>,
    wall: Duration,
    peak_kib: u64,
    before_kib: u64,
    /// Most runs open at once, as the client counted them.
    most_in_flight: u64,
    /// The server's peak live heap during the level over its live heap before, bytes.
    heap_growth: u64,
}

impl Level {
    fn print(&self, n: usize, release: bool) {
        let ms = |v: &Vec<u64>, q: f64| -> String {
            if v.is_empty() {
                return "-".into();
            }
            let i = ((v.len() as f64 - 1.0) * q).round() as usize;
            format!("{:.2}", v[i.min(v.len() - 1)] as f64 / 1000.0)
        };
        let done = self.events.len();
        println!(
            "{:>6} {:>9} {:>11} {:>9} {:>9} {:>9} {:>9} {:>8.1} {:>7} {:>10} {:>10.1} {:>10.1}",
            n,
            self.most_in_flight,
            if release { "compiled" } else { "interpreted" },
            ms(&self.events, 0.5),
            ms(&self.events, 0.99),
            ms(&self.tokens, 0.5),
            ms(&self.tokens, 0.99),
            done as f64 / self.wall.as_secs_f64(),
            self.failed.len(),
            self.peak_kib,
            self.peak_kib.saturating_sub(self.before_kib) as f64
                / self.most_in_flight.max(1) as f64,
            self.heap_growth as f64 / 1024.0 / self.most_in_flight.max(1) as f64,
        );
        if let Some(first) = self.failed.first() {
            println!("       first failure: {first}");
        }
    }
}

async fn level(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    agent: &str,
    n: usize,
    release: bool,
    pid: u32,
) -> Level {
    let before_kib = status_kib(pid, "VmRSS:");
    let peak = Arc::new(AtomicU64::new(before_kib));
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (peak.clone(), sampling.clone());
        tokio::spawn(async move {
            while sampling.load(Ordering::Relaxed) {
                peak.fetch_max(status_kib(pid, "VmRSS:"), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let url = format!("{base}/api/v1/agents/chat/completions");
    let started = Instant::now();
    // Arrivals spread evenly over one run's length: the last starts as the first ends, so
    // `n` runs are in flight at the peak (a load balancer's steady stream, not one burst).
    let gap = run_length() / n as u32;
    let in_flight = Arc::new(AtomicU64::new(0));
    let most_in_flight = Arc::new(AtomicU64::new(0));
    let mut runs = Vec::with_capacity(n);
    for i in 0..n {
        tokio::time::sleep_until((started + gap * i as u32).into()).await;
        let request = client
            .post(&url)
            .header("Authorization", key)
            .json(&json!({"agent_id": agent, "query": format!("load {i}"),
                "stream": true, "release": release}));
        let (now, most) = (in_flight.clone(), most_in_flight.clone());
        runs.push(tokio::spawn(async move {
            most.fetch_max(now.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
            let result = one_run(request, release).await;
            now.fetch_sub(1, Ordering::Relaxed);
            result
        }));
    }
    let mut level = Level {
        events: Vec::with_capacity(n),
        tokens: Vec::with_capacity(n),
        failed: Vec::new(),
        wall: Duration::ZERO,
        peak_kib: 0,
        before_kib,
        most_in_flight: 0,
        heap_growth: 0,
    };
    let all = futures::future::join_all(runs);
    match tokio::time::timeout(LEVEL_TIMEOUT, all).await {
        Ok(results) => {
            for r in results {
                match r {
                    Ok(Ok(t)) => {
                        level.events.push(t.first_event);
                        level.tokens.push(t.first_token);
                    }
                    Ok(Err(e)) => level.failed.push(e),
                    Err(e) => level.failed.push(e.to_string()),
                }
            }
        }
        Err(_) => level
            .failed
            .push(format!("the level did not finish in {LEVEL_TIMEOUT:?}")),
    }
    level.wall = started.elapsed();
    sampling.store(false, Ordering::Relaxed);
    let _ = sampler.await;
    level.peak_kib = peak.load(Ordering::Relaxed);
    level.most_in_flight = most_in_flight.load(Ordering::Relaxed);
    level.events.sort_unstable();
    level.tokens.sort_unstable();
    level
}

async fn one_run(request: reqwest::RequestBuilder, release: bool) -> Result<RunTimes, String> {
    let sent = Instant::now();
    let response = request.send().await.map_err(|e| e.to_string())?;
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let expected = if release { "compiled" } else { "interpreted" };
    if program != expected {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        let body: String = body.chars().take(300).collect();
        return Err(format!(
            "ran {program:?}, not {expected} (HTTP {status}: {body})"
        ));
    }
    let mut body = response.bytes_stream();
    let mut buffer = Vec::new();
    let (mut first_event, mut first_token) = (None, None);
    let mut done = false;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let frame: Vec<u8> = buffer.drain(..end + 2).collect();
            let Some(payload) = frame.strip_prefix(b"data:") else {
                continue;
            };
            let at = sent.elapsed().as_micros() as u64;
            first_event.get_or_insert(at);
            if payload.starts_with(b"[DONE]") {
                done = true;
                continue;
            }
            if first_token.is_none() {
                let v: Value = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
                let content = v["data"]["content"].as_str().unwrap_or_default();
                if v["event"] == "message" && !content.is_empty() {
                    first_token = Some(at.saturating_sub(answer_shape().1 * 1000));
                }
            }
        }
    }
    if !done {
        return Err("the stream ended without data:[DONE]".into());
    }
    match (first_event, first_token) {
        (Some(first_event), Some(first_token)) => Ok(RunTimes {
            first_event,
            first_token,
        }),
        _ => Err("the run streamed no answer".into()),
    }
}
