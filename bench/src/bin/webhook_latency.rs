//! Webhook → the agent's work starting (issue 42): how long after a webhook request is sent
//! its canvas's first component after Begin runs, at a steady request rate.
//!
//! `cargo run --release -p canvasc-bench --bin webhook_latency [-- RATE SECONDS]` (default
//! 100 requests a second for 20 s)
//!
//! * The server is this binary re-run as a child (`serve_child.rs`: SQLite in a temporary
//!   directory, the interpreter), with `ALLOW_ANY_HOST=1` so the canvas may call this
//!   process on 127.0.0.1.
//! * The canvas: a Webhook-mode Begin (anonymous, JSON body `{"seq": number}`, answered
//!   `Immediately` with 202) → Invoke POSTing `{"seq": …}` to a listener in this process →
//!   Message. The latency of a request is from just before it is sent to the moment the
//!   listener receives its Invoke call: the whole path of a webhook (security checks,
//!   schema, run start, Begin, the next component), not only the answer.
//! * Open loop: one request every 1/RATE s whatever the answers do, over a pooled
//!   keep-alive client. Reported: p50, p99 and max of webhook → Invoke, of webhook → 202,
//!   and the server's CPU per request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::routing::post;
use canvasc_bench::proc_tree::cpu_seconds;
use canvasc_bench::serve_child::{self, account, create_agent, start_child};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if serve_child::serve_if_child(&args) {
        return;
    }
    let rate: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(100);
    let seconds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    if let Err(e) = runtime.block_on(measure(rate.max(1), seconds.max(1))) {
        eprintln!("webhook_latency: {e}");
        std::process::exit(1);
    }
}

fn canvas(listener: &str) -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {
                "mode": "Webhook", "methods": ["POST"],
                "security": {"auth_type": "none", "allow_anonymous": true,
                    "rate_limit": {"limit": 1_000_000, "per": "second"}},
                "content_types": "application/json",
                "schema": {"body": {"properties": {"seq": {"type": "number"}}, "required": ["seq"]}},
                "execution_mode": "Immediately",
                "response": {"status": 202, "body_template": "{\"queued\": true}"},
                "inputs": {}, "outputs": {}}},
                "downstream": ["Invoke:Hit"], "upstream": []},
            "Invoke:Hit": {"obj": {"component_name": "Invoke", "params": {
                "url": format!("{listener}/hit"), "method": "POST", "timeout": 10,
                "headers": "{\"Content-Type\": \"application/json\"}", "proxy": "",
                "clean_html": false, "datatype": "json",
                "variables": [{"key": "seq", "ref": "begin@body.seq"}],
                "outputs": {"result": {"type": "string", "value": ""}}}},
                "downstream": ["Message:Done"], "upstream": ["begin"]},
            "Message:Done": {"obj": {"component_name": "Message", "params": {
                "content": ["{Invoke:Hit@result}"]}},
                "downstream": [], "upstream": ["Invoke:Hit"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "history": [], "path": [], "retrieval": [], "variables": {}
    })
}

/// Arrival times of the Invoke calls, by `seq`.
type Arrivals = Arc<Mutex<HashMap<u64, Instant>>>;

async fn listener(arrivals: Arrivals) -> Result<String, String> {
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = socket.local_addr().map_err(|e| e.to_string())?;
    let app = axum::Router::new().route(
        "/hit",
        post(move |body: axum::body::Bytes| {
            let arrivals = arrivals.clone();
            async move {
                let now = Instant::now();
                let seq = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v["seq"].as_u64());
                if let Some(seq) = seq {
                    arrivals
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(seq, now);
                }
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(socket, app).await });
    Ok(format!("http://{addr}"))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{name}: n={} p50={:.2} ms p99={:.2} ms max={:.2} ms",
        ms.len(),
        percentile(&ms, 0.50),
        percentile(&ms, 0.99),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

async fn measure(rate: u64, seconds: u64) -> Result<(), String> {
    let arrivals: Arrivals = Arc::default();
    let listen = listener(arrivals.clone()).await?;
    let dir = std::env::temp_dir().join(format!("canvasc-webhook-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("ALLOW_ANY_HOST", "1");
    let server = start_child("http://127.0.0.1:9/v1", &dir)?;
    canvasc_engine::http::install_tls_provider();
    let client = reqwest::Client::new();
    let key = account(&client, &server.base).await?;
    let agent = create_agent(
        &client,
        &server.base,
        &key,
        "webhook",
        &canvas(&listen).to_string(),
    )
    .await?;
    let url = format!("{}/api/v1/agents/{agent}/webhook", server.base);
    // Warm-up: the canvas is prepared on its first request.
    for seq in 0..20u64 {
        let _ = client
            .post(&url)
            .json(&json!({"seq": 1_000_000 + seq}))
            .send()
            .await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = server.child.id();
    let cpu_before = cpu_seconds(pid);
    let total = rate * seconds;
    let gap = Duration::from_secs_f64(1.0 / rate as f64);
    let mut sent: HashMap<u64, Instant> = HashMap::new();
    let mut answers = Vec::new();
    let start = Instant::now();
    for seq in 0..total {
        let due = start + gap * seq as u32;
        tokio::time::sleep_until(due.into()).await;
        let at = Instant::now();
        sent.insert(seq, at);
        let request = client.post(&url).json(&json!({"seq": seq}));
        answers.push(tokio::spawn(async move {
            let status = request
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0);
            (status, at.elapsed())
        }));
    }
    let mut answered = Vec::new();
    let mut refused = 0;
    for answer in answers {
        match answer.await {
            Ok((202, took)) => answered.push(took.as_secs_f64() * 1000.0),
            _ => refused += 1,
        }
    }
    // The last runs' Invoke calls.
    let deadline = Instant::now() + Duration::from_secs(10);
    while arrivals.lock().unwrap_or_else(|p| p.into_inner()).len() < total as usize + 20
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cpu = cpu_seconds(pid) - cpu_before;
    let arrived = arrivals.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let started: Vec<f64> = sent
        .iter()
        .filter_map(|(seq, at)| {
            arrived
                .get(seq)
                .map(|t| t.duration_since(*at).as_secs_f64() * 1000.0)
        })
        .collect();
    println!(
        "webhook_latency: {total} requests at {rate}/s over {seconds} s; {} answered 202, {refused} not; {} runs reached Invoke",
        answered.len(),
        started.len()
    );
    summary(
        "webhook -> Invoke (first component after Begin) runs",
        started,
    );
    summary("webhook -> 202 answer", answered);
    println!(
        "server CPU: {:.3} s in all, {:.3} ms per request",
        cpu,
        cpu * 1000.0 / total as f64
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
