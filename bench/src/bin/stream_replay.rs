//! Reattachable streams (issue 42): how fast a client that reattaches gets a long run's kept
//! events, and what keeping a finished run's stream costs during the retention window.
//!
//! `cargo run --release -p canvasc-bench --bin stream_replay [-- EVENTS RUNS]` (default
//! 10,000 events, 1,000 runs)
//!
//! * Two servers, each this binary re-run as a child (`serve_child.rs`: SQLite in a temporary
//!   directory, the interpreter, every model at the scripted OpenAI-compatible server in this
//!   process): one keeps streams in memory (the embedded default), one in Redis
//!   (`REDIS_URL`, default `redis://127.0.0.1:6379`, under a prefix of its own).
//! * The canvas: Begin → LLM → Message. A question with `long` is answered in EVENTS deltas,
//!   so its run keeps about EVENTS `message` events; any other in 20.
//! * Replay: `GET /api/v1/agents/{id}/runs/{message_id}/stream` of the long run, read to its
//!   end, 100 times one after another (after one more that warms up): p50, p99 and max of
//!   request → last byte.
//! * Kept per finished run: RUNS short runs, then the memory server's
//!   `canvasc_kept_stream_bytes` (what its store accounts) and its RSS growth, and Redis's
//!   `MEMORY USAGE` of the runs' stream keys, each divided by the runs.

use std::time::{Duration, Instant};

use canvasc_bench::proc_tree::status_kib;
use canvasc_bench::serve_child::{
    self, account, create_agent, json_answer, start_child_with, ServerChild,
};
use canvasc_engine::llm::script::Script;
use canvasc_tests::scripted_server::ScriptedServer;
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CANVAS: &str = include_str!("../../../fixtures/valid/llm-think-stream.json");
/// Replays measured, after one that warms the connection and the caches.
const REPLAYS: usize = 100;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if serve_child::serve_if_child(&args) {
        return;
    }
    let events: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1_000);
    if let Err(e) = measure(events.max(1), runs.max(1)) {
        eprintln!("stream_replay: {e}");
        std::process::exit(1);
    }
}

fn measure(events: usize, runs: usize) -> Result<(), String> {
    let long: Vec<String> = (0..events).map(|i| format!("w{i} ")).collect();
    let short: Vec<String> = (0..20).map(|i| format!("s{i} ")).collect();
    let script = Script::parse(&json!({"responses": [
        {"match": "long", "chunks": long, "delay_ms": 0, "times": -1},
        {"chunks": short, "delay_ms": 0, "times": -1},
    ]}))?;
    let llm = ScriptedServer::try_start(script).map_err(|e| e.to_string())?;
    llm.set_recording(false);
    let redis_url =
        std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string());
    let prefix = format!("canvasc-bench:stream-replay:{}:", std::process::id());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    canvasc_engine::http::install_tls_provider();
    println!("stream_replay: {events} events in the long run, {runs} short runs (20 deltas each)");
    for store in ["memory", "redis"] {
        let dir = std::env::temp_dir().join(format!(
            "canvasc-stream-replay-{store}-{}",
            std::process::id()
        ));
        let env = match store {
            "redis" => vec![
                ("REDIS_URL", redis_url.clone()),
                ("CANVASC_REDIS_PREFIX", prefix.clone()),
            ],
            _ => vec![("REDIS_URL", String::new())],
        };
        let server = start_child_with(&llm.base_url(), &dir, &env)?;
        let result = runtime.block_on(one_store(&server, store, &redis_url, &prefix, runs));
        drop(server);
        let _ = std::fs::remove_dir_all(&dir);
        result?;
    }
    runtime.block_on(clean(&redis_url, &prefix));
    Ok(())
}

async fn one_store(
    server: &ServerChild,
    store: &str,
    redis_url: &str,
    prefix: &str,
    runs: usize,
) -> Result<(), String> {
    let client = reqwest::Client::builder()
        .build()
        .map_err(|e| e.to_string())?;
    let base = &server.base;
    let key = account(&client, base).await?;
    let agent = create_agent(&client, base, &key, "replay", CANVAS).await?;
    let ask = |query: &str| {
        client
            .post(format!("{base}/api/v1/agents/chat/completions"))
            .header("Authorization", &key)
            .json(&json!({"agent_id": agent, "query": query}))
    };
    let answer = json_answer(ask("long please")).await?;
    let run = answer["data"]["message_id"]
        .as_str()
        .ok_or_else(|| format!("no run: {answer}"))?
        .to_string();
    let replay = client
        .get(format!("{base}/api/v1/agents/{agent}/runs/{run}/stream"))
        .header("Authorization", &key);
    let mut times = Vec::with_capacity(REPLAYS);
    let mut kept = (0, 0);
    for round in 0..=REPLAYS {
        let request = replay.try_clone().ok_or("the request cannot be cloned")?;
        let started = Instant::now();
        let body = request
            .send()
            .await
            .map_err(|e| e.to_string())?
            .bytes()
            .await
            .map_err(|e| e.to_string())?;
        if round > 0 {
            times.push(started.elapsed());
        }
        let text = String::from_utf8_lossy(&body);
        if !text.ends_with("data:[DONE]\n\n") {
            return Err(format!(
                "the replay did not end with the terminator: {}",
                &text[text.len().saturating_sub(200)..]
            ));
        }
        kept = (text.matches("\nid:").count() + 1, body.len());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{store}: replay of {} kept events ({} KiB): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        kept.0,
        kept.1 / 1024,
        ms(times[times.len() / 2]),
        ms(times[(times.len() * 99 / 100).min(times.len() - 1)]),
        ms(times[times.len() - 1]),
    );

    let pid = server.child.id();
    let gauge_before = kept_gauge(&client, base).await?;
    let rss_before = status_kib(pid, "VmRSS:");
    for _ in 0..runs {
        let answer = json_answer(ask("hello")).await?;
        if answer["code"] != 0 {
            return Err(format!("a short run failed: {answer}"));
        }
    }
    let gauge_after = kept_gauge(&client, base).await?;
    let rss_after = status_kib(pid, "VmRSS:");
    let per_run = |before: u64, after: u64| after.saturating_sub(before) as f64 / runs as f64;
    match store {
        "memory" => println!(
            "memory: kept per finished run {:.0} B (the store's count), server RSS growth {:.0} B a run (everything the runs left, sessions included)",
            per_run(gauge_before, gauge_after),
            per_run(rss_before * 1024, rss_after * 1024)
        ),
        _ => {
            let sizes = redis_usage(redis_url, prefix).await?;
            // A run keeps its stream and its attempt key.
            let of_long = |key: &str| key.contains(&run);
            let long: u64 = sizes.iter().filter(|(k, _)| of_long(k)).map(|(_, b)| b).sum();
            let short: u64 = sizes.iter().filter(|(k, _)| !of_long(k)).map(|(_, b)| b).sum();
            let streams = sizes
                .iter()
                .filter(|(k, _)| !of_long(k) && !k.ends_with(":attempt"))
                .count();
            println!(
                "redis: {streams} short runs' streams kept, MEMORY USAGE {:.0} B a finished run (its stream and attempt keys); the long run's {} KiB",
                short as f64 / streams.max(1) as f64,
                long / 1024
            );
        }
    }
    Ok(())
}

/// `canvasc_kept_stream_bytes` of `/metrics`.
async fn kept_gauge(client: &reqwest::Client, base: &str) -> Result<u64, String> {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .text()
        .await
        .map_err(|e| e.to_string())?;
    text.lines()
        .find_map(|l| l.strip_prefix("canvasc_kept_stream_bytes "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| "no canvasc_kept_stream_bytes in /metrics".to_string())
}

/// The prefix's run-event streams in Redis, each with its `MEMORY USAGE`.
async fn redis_usage(url: &str, prefix: &str) -> Result<Vec<(String, u64)>, String> {
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())?;
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}agent:run-events:*"))
        .query_async(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    let mut sizes = Vec::with_capacity(keys.len());
    for key in keys {
        let bytes: Option<u64> = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(&key)
            .arg("SAMPLES")
            .arg(0)
            .query_async(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
        sizes.push((key, bytes.unwrap_or(0)));
    }
    Ok(sizes)
}

async fn clean(url: &str, prefix: &str) {
    let Ok(client) = redis::Client::open(url) else {
        return;
    };
    let Ok(mut conn) = client.get_multiplexed_async_connection().await else {
        return;
    };
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut conn)
        .await
        .unwrap_or_default();
    if !keys.is_empty() {
        let _: Result<(), _> = redis::cmd("DEL").arg(keys).query_async(&mut conn).await;
    }
}
