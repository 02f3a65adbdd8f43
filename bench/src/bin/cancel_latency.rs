//! `cancel_latency [--runs N,…] [--sample K] [--redis URL]`: cancel latency across replicas,
//! and the Redis operations a run costs (issue 28).
//!
//! Two servers (A and B, two ports, each its own coordinator and database pool, as two
//! processes would have) share a SQLite file and a Redis; a private `redis-server` on a free
//! port unless `--redis` names one, so `INFO commandstats` counts this bench's commands alone.
//! Every model call goes to the scripted OpenAI-compatible server, which streams a word a
//! second, so runs stay in flight. For each N: N streaming runs start on A; once each has sent
//! its first frame, K of them (all when N ≤ K, one at a time) are cancelled through B, and the
//! latency is taken from the cancel request's response to the run's terminal event
//! (`workflow_finished`, or the cancel's error frame when it lands between batches) on A's
//! stream. At N = 1 this repeats K times. The rest are then
//! cancelled and every stream read to its end. Target: p99 ≤ 50 ms.

use canvasc_bench::serve_child::{account, json_answer};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use canvasc_engine::llm::script::Script;
use canvasc_server::ServeConfig;
use canvasc_tests::scripted_server::ScriptedServer;
use futures::StreamExt;
use serde_json::{json, Value};

const PATH: &str = "/api/v1/agents/chat/completions";

struct Args {
    runs: Vec<usize>,
    sample: usize,
    redis: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        runs: vec![1, 1000],
        sample: 100,
        redis: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => {
                out.runs = value()?
                    .split(',')
                    .map(|n| n.trim().parse().map_err(|e| format!("--runs: {n}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--sample" => out.sample = value()?.parse().map_err(|e| format!("--sample: {e}"))?,
            "--redis" => out.redis = Some(value()?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

/// A private `redis-server`, stopped on drop.
struct PrivateRedis(Child, u16);

impl PrivateRedis {
    fn start() -> Result<PrivateRedis, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| e.to_string())?;
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("redis-server: {e}"))?;
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                return Err("redis-server did not start".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(PrivateRedis(child, port))
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Calls per command from `INFO commandstats`.
async fn commandstats(conn: &mut redis::aio::MultiplexedConnection) -> Vec<(String, u64)> {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(conn)
        .await
        .unwrap_or_default();
    info.lines()
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = rest
                .strip_prefix("calls=")?
                .split(',')
                .next()?
                .parse()
                .ok()?;
            Some((name.to_string(), calls))
        })
        .collect()
}

fn delta(before: &[(String, u64)], after: &[(String, u64)]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = after
        .iter()
        .map(|(name, calls)| {
            let was = before
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0, |(_, c)| *c);
            (name.clone(), calls - was)
        })
        .filter(|(name, calls)| *calls > 0 && name != "info")
        .collect();
    out.sort();
    out
}

struct Replicas {
    a: String,
    b: String,
    auth: String,
    agent: String,
    http: reqwest::Client,
}

/// One run in flight on A, after its first frame.
struct InFlight {
    response: reqwest::Response,
    session: String,
    seen: String,
}

async fn start_run(r: &Replicas) -> Result<InFlight, String> {
    let mut response = r
        .http
        .post(format!("{}{PATH}", r.a))
        .header("Authorization", &r.auth)
        .json(&json!({"agent_id": r.agent, "query": "slow please", "stream": true}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let mut seen = String::new();
    while !seen.contains("\n\n") {
        match response.chunk().await {
            Ok(Some(chunk)) => seen.push_str(&String::from_utf8_lossy(&chunk)),
            other => {
                return Err(format!(
                    "the run ended before its first frame: {other:?} {seen}"
                ))
            }
        }
    }
    let first: Value = seen
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or("no first frame")?;
    let session = first["session_id"]
        .as_str()
        .ok_or("no session id")?
        .to_string();
    Ok(InFlight {
        response,
        session,
        seen,
    })
}

/// Whether the stream carries its terminal event: `workflow_finished` (a cancel that lands
/// inside a batch, as RAGFlow's), or RAGFlow's `{"code": 500, "message": "Task … has been
/// canceled …"}` frame (a cancel noticed between batches escapes the run, as in RAGFlow).
fn ended(seen: &str) -> bool {
    seen.contains("\"event\":\"workflow_finished\"")
        || seen.contains("data:{\"code\":")
        || seen.contains("data:[DONE]")
}

/// Reads the stream until its terminal event; the instant it arrived.
async fn terminal(run: InFlight) -> Result<Instant, String> {
    let mut seen = run.seen;
    let mut body = run.response.bytes_stream();
    loop {
        if ended(&seen) {
            return Ok(Instant::now());
        }
        match body.next().await {
            Some(Ok(chunk)) => seen.push_str(&String::from_utf8_lossy(&chunk)),
            Some(Err(e)) => return Err(e.to_string()),
            None => {
                return Err(format!(
                    "the stream ended without workflow_finished: {seen}"
                ))
            }
        }
    }
}

async fn cancel(r: &Replicas, session: &str) -> Result<Instant, String> {
    let answer = json_answer(
        r.http
            .post(format!("{}/api/v1/tasks/{session}/cancel", r.b))
            .header("Authorization", &r.auth)
            .json(&json!({})),
    )
    .await?;
    let answered = Instant::now();
    if answer["code"] != 0 {
        return Err(format!("the cancel was refused: {answer}"));
    }
    Ok(answered)
}

/// Cancels `run` through B; the latency in ms (negative: the end came before the answer).
async fn measured_cancel(r: &Replicas, run: InFlight) -> Result<f64, String> {
    let session = run.session.clone();
    let ended = tokio::spawn(terminal(run));
    let answered = cancel(r, &session).await?;
    let ended = ended.await.map_err(|e| e.to_string())??;
    Ok(match ended.checked_duration_since(answered) {
        Some(d) => d.as_secs_f64() * 1000.0,
        None => -(answered.duration_since(ended).as_secs_f64() * 1000.0),
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

async fn phase(r: &Replicas, n: usize, sample: usize) -> Result<Vec<f64>, String> {
    let mut latencies = Vec::new();
    if n == 1 {
        for _ in 0..sample {
            let run = start_run(r).await?;
            latencies.push(measured_cancel(r, run).await?);
        }
        return Ok(latencies);
    }
    let starts = (0..n).map(|_| start_run(r));
    let mut runs: Vec<InFlight> = futures::stream::iter(starts)
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
    eprintln!("  {} runs in flight on A", runs.len());
    let rest = runs.split_off(sample.min(runs.len()));
    // The others stay in flight, read, while the sample is cancelled one at a time.
    let background: Vec<_> = rest
        .into_iter()
        .map(|run| {
            let session = run.session.clone();
            (session, tokio::spawn(terminal(run)))
        })
        .collect();
    for run in runs {
        latencies.push(measured_cancel(r, run).await?);
    }
    let cancels = background.iter().map(|(session, _)| cancel(r, session));
    for outcome in futures::stream::iter(cancels)
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await
    {
        outcome?;
    }
    for (_, ended) in background {
        ended.await.map_err(|e| e.to_string())??;
    }
    Ok(latencies)
}

fn main() -> std::process::ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("cancel_latency: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cancel_latency: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(bench(args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cancel_latency: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn bench(args: Args) -> Result<(), String> {
    let private = match &args.redis {
        Some(_) => None,
        None => Some(PrivateRedis::start()?),
    };
    let redis_url = match (&args.redis, &private) {
        (Some(url), _) => url.clone(),
        (None, Some(p)) => format!("redis://127.0.0.1:{}", p.1),
        (None, None) => return Err("no Redis".into()),
    };
    let mut stats = redis::Client::open(redis_url.as_str())
        .map_err(|e| e.to_string())?
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| format!("{redis_url}: {e}"))?;
    // A word a second for five minutes: every run stays in flight until it is cancelled.
    let words: Vec<String> = (0..300).map(|i| format!("w{i} ")).collect();
    let script = Script::parse(&json!({"chunking": "words", "responses": [
        {"match": "slow", "chunks": words, "delay_ms": 1000, "times": -1}]}))
    .map_err(|e| e.to_string())?;
    let llm = ScriptedServer::try_start(script).map_err(|e| e.to_string())?;
    llm.set_recording(false);
    std::env::set_var("CANVASC_LLM_BASE_URL", llm.base_url());
    std::env::set_var("CANVASC_LLM_API_KEY", "scripted");
    std::env::remove_var("CANVASC_CONFIG");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("canvasc-cancel-bench-{}", std::process::id()));
    let prefix = format!("bench:{}:", std::process::id());
    let mut bases = Vec::new();
    for _ in 0..2 {
        let services = canvasc_host::services::assemble(None, None).map_err(|e| e.to_string())?;
        let engine = Arc::new(canvasc_host::serve::Programs::new(services, &[], None));
        let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir.clone());
        config.database_url = None;
        config.redis_url = Some(redis_url.clone());
        config.redis_prefix = prefix.clone();
        config.registration = canvasc_server::Registration::Open;
        let running = canvasc_server::start(config, engine)
            .await
            .map_err(|e| e.to_string())?;
        bases.push(format!("http://{}", running.addr));
        tokio::spawn(running.wait());
    }
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(2048)
        .build()
        .map_err(|e| e.to_string())?;
    let auth = account(&http, &bases[0]).await?;
    let dsl: Value = serde_json::from_str(include_str!(
        "../../../fixtures/valid/llm-think-stream.json"
    ))
    .map_err(|e| e.to_string())?;
    let created: Value = http
        .post(format!("{}/api/v1/agents", bases[0]))
        .header("Authorization", &auth)
        .json(&json!({"title": "cancel-bench", "dsl": dsl}))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    let agent = created["data"]["id"]
        .as_str()
        .ok_or(format!("no agent: {created}"))?
        .to_string();
    let replicas = Replicas {
        a: bases[0].clone(),
        b: bases[1].clone(),
        auth,
        agent,
        http,
    };
    println!(
        "cancel latency through the other replica (cancel's response → workflow_finished on A)"
    );
    for &n in &args.runs {
        let before = commandstats(&mut stats).await;
        let started = Instant::now();
        let mut latencies = phase(&replicas, n, args.sample).await?;
        let elapsed = started.elapsed();
        let after = commandstats(&mut stats).await;
        latencies.sort_by(|a, b| a.total_cmp(b));
        let runs = if n == 1 { args.sample } else { n };
        println!(
            "concurrent runs {n:>5}: {} cancels measured: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({:.1} s)",
            latencies.len(),
            percentile(&latencies, 50.0),
            percentile(&latencies, 90.0),
            percentile(&latencies, 99.0),
            percentile(&latencies, 100.0),
            elapsed.as_secs_f64()
        );
        let ops = delta(&before, &after);
        let total: u64 = ops.iter().map(|(_, c)| c).sum();
        println!(
            "  Redis commands per run: {:.1} ({total} for {runs} runs, cancel included; inside scripts counted): {}",
            total as f64 / runs as f64,
            ops.iter()
                .map(|(name, calls)| format!("{name} {calls}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
