//! Abuse before authentication (issue 39, item 13): what a flood of wrong logins costs
//! `canvasc serve`, and what it does to authenticated users' runs; and what `TCP_NODELAY`
//! buys a kept-alive client (issue 40, item 1).
//!
//! `cargo run --release -p canvasc-bench --bin login_flood [-- RATE SECONDS]` (default 1000/s
//! for 10 s)
//!
//! * The server is this binary re-run as a child process (`--serve`), so its CPU time is its
//!   own (`/proc/<pid>/stat`): the host's engine on the interpreter, SQLite in a temporary
//!   directory, default limits, and `X-Bench-Client` as the client-address header, so the
//!   flood can come from as many addresses as an attacker with a botnet has.
//! * Set-up: one user with an API key and a Begin → Message agent, and `FLOOD_ACCOUNTS` (50)
//!   accounts the flood targets.
//! * Quiet: authenticated non-streaming runs, one every 20 ms, for SECONDS; their latency
//!   p50/p99 and the server's CPU.
//! * Flood: the same runs while RATE wrong logins a second arrive, each from another address,
//!   round-robin over the accounts (the worst case for the server: every login names a real
//!   account, so each is worth an Argon2 check until the account is locked). The flood's
//!   answers are counted by status (109 wrong password, 429 locked, 503 password work full).
//! * Kept-alive streaming runs per second over one connection, sequentially, with and
//!   without `TCP_NODELAY` on the server's sockets.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::io::{BufRead, BufReader};

use canvasc_server::ServeConfig;
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const FLOOD_ACCOUNTS: usize = 50;
const PASSWORD: &str = "Zmxvb2QtYmVuY2g=";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        let (Some(dir), Some(nodelay)) = (args.get(2), args.get(3)) else {
            eprintln!("usage: login_flood --serve <data dir> <nodelay 0|1>");
            std::process::exit(2);
        };
        serve(dir, nodelay == "1");
        return;
    }
    let rate: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let seconds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    if let Err(e) = drive(rate, seconds) {
        eprintln!("login_flood: {e}");
        std::process::exit(1);
    }
}

/// The child: a server until its parent closes stdin.
fn serve(dir: &str, nodelay: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    runtime.block_on(async {
        let services = canvasc_host::services::from_env();
        let engine = Arc::new(canvasc_host::serve::Programs::new(services, &[], None));
        let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir.into());
        config.database_url = None;
        config.registration = canvasc_server::Registration::Open;
        config.client_ip_header = Some("X-Bench-Client".into());
        config.connections.tcp_nodelay = nodelay;
        let running = canvasc_server::start(config, engine)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        println!("LISTEN http://{}", running.addr);
        tokio::task::spawn_blocking(|| for _ in std::io::stdin().lines().map_while(Result::ok) {})
            .await
            .ok();
    });
}

struct ServerChild {
    child: Child,
    base: String,
    dir: std::path::PathBuf,
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start_child(name: &str, nodelay: bool) -> Result<ServerChild, String> {
    let dir =
        std::env::temp_dir().join(format!("canvasc-login-flood-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("--serve")
        .arg(&dir)
        .arg(if nodelay { "1" } else { "0" })
        .env_remove("DATABASE_URL")
        .env_remove("REDIS_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the server child: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let base = line
        .trim()
        .strip_prefix("LISTEN ")
        .ok_or_else(|| format!("the server child said {line:?}"))?
        .to_string();
    Ok(ServerChild { child, base, dir })
}

/// The CPU time (user + system) a process has used, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last `)`.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|v| v.parse::<f64>().ok()))
        .sum();
    ticks / CLK_TCK
}

/// `sysconf(_SC_CLK_TCK)`: 100 on every Linux kernel configuration in use.
const CLK_TCK: f64 = 100.0;

async fn post(
    client: &reqwest::Client,
    base: &str,
    path: &str,
    auth: Option<&str>,
    body: Value,
) -> Result<(u16, Value, Option<String>), String> {
    let mut request = client.post(format!("{base}/api/v1{path}")).json(&body);
    if let Some(auth) = auth {
        request = request.header("Authorization", auth);
    }
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let token = response
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = response.json().await.unwrap_or(Value::Null);
    Ok((status, body, token))
}

/// A user with an API key and an agent: `(Bearer key, agent id)`.
async fn set_up(client: &reqwest::Client, base: &str) -> Result<(String, String), String> {
    let email = "runner@example.com";
    post(
        client,
        base,
        "/users",
        None,
        json!({"email": email, "nickname": "r", "password": PASSWORD}),
    )
    .await?;
    let (_, _, token) = post(
        client,
        base,
        "/auth/login",
        None,
        json!({"email": email, "password": PASSWORD}),
    )
    .await?;
    let token = token.ok_or("login gave no token")?;
    let (_, key, _) = post(client, base, "/system/tokens", Some(&token), json!({})).await?;
    let key = format!(
        "Bearer {}",
        key["data"]["token"].as_str().ok_or("no API key")?
    );
    let dsl = json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["message"], "upstream": []},
            "message": {"obj": {"component_name": "Message", "params": {"content": ["{sys.query}"]}},
                        "downstream": [], "upstream": ["begin"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    });
    let (_, agent, _) = post(
        client,
        base,
        "/agents",
        Some(&key),
        json!({"title": "flood", "dsl": dsl}),
    )
    .await?;
    let agent = agent["data"]["id"]
        .as_str()
        .ok_or("no agent id")?
        .to_string();
    Ok((key, agent))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Authenticated runs, one every 20 ms for `seconds`: their latencies in ms, sorted.
async fn runs(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    agent: &str,
    seconds: u64,
) -> Vec<f64> {
    let mut ticker = tokio::time::interval(Duration::from_millis(20));
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    while Instant::now() < end {
        ticker.tick().await;
        let (client, base, key, agent) = (
            client.clone(),
            base.to_string(),
            key.to_string(),
            agent.to_string(),
        );
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let answer = post(
                &client,
                &base,
                "/agents/chat/completions",
                Some(&key),
                json!({"agent_id": agent, "query": "hi", "stream": false}),
            )
            .await;
            match answer {
                Ok((200, body, _)) if body["code"] == 0 => {
                    Some(started.elapsed().as_secs_f64() * 1000.0)
                }
                _ => None,
            }
        }));
    }
    let mut latencies: Vec<f64> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .filter_map(|r| r.ok().flatten())
        .collect();
    latencies.sort_by(f64::total_cmp);
    latencies
}

#[derive(Default)]
struct FloodCounts {
    sent: AtomicU64,
    wrong: AtomicU64,
    locked: AtomicU64,
    busy: AtomicU64,
    other: AtomicU64,
}

async fn flood(
    client: reqwest::Client,
    base: String,
    rate: u64,
    seconds: u64,
    counts: Arc<FloodCounts>,
) {
    let mut ticker = tokio::time::interval(Duration::from_nanos(1_000_000_000 / rate.max(1)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let total = rate * seconds;
    let mut tasks = Vec::with_capacity(total as usize);
    for n in 0..total {
        ticker.tick().await;
        let (client, base, counts) = (client.clone(), base.clone(), counts.clone());
        tasks.push(tokio::spawn(async move {
            let address = format!("10.{}.{}.{}", (n >> 16) & 255, (n >> 8) & 255, n & 255);
            let account = format!("victim{}@example.com", n as usize % FLOOD_ACCOUNTS);
            counts.sent.fetch_add(1, Ordering::Relaxed);
            let answer = client
                .post(format!("{base}/api/v1/auth/login"))
                .header("X-Bench-Client", address)
                .json(&json!({"email": account, "password": "d3Jvbmc="}))
                .send()
                .await;
            let counter = match answer.map(|r| r.status().as_u16()) {
                Ok(200) => &counts.wrong,
                Ok(429) => &counts.locked,
                Ok(503) => &counts.busy,
                _ => &counts.other,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }));
    }
    futures::future::join_all(tasks).await;
}

/// Sequential streaming runs over one kept-alive connection for `seconds`: runs per second.
async fn kept_alive_runs_per_second(nodelay: bool, seconds: u64) -> Result<f64, String> {
    let server = start_child(if nodelay { "nodelay" } else { "delay" }, nodelay)?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .tcp_nodelay(true)
        .build()
        .map_err(|e| e.to_string())?;
    let (key, agent) = set_up(&client, &server.base).await?;
    let end = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut done = 0u64;
    while Instant::now() < end {
        let response = client
            .post(format!("{}/api/v1/agents/chat/completions", server.base))
            .header("Authorization", &key)
            .json(&json!({"agent_id": agent, "query": "hi", "stream": true}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let body = response.text().await.map_err(|e| e.to_string())?;
        if !body.contains("[DONE]") {
            return Err(format!("a run did not finish: {body}"));
        }
        done += 1;
    }
    Ok(done as f64 / started.elapsed().as_secs_f64())
}

fn drive(rate: u64, seconds: u64) -> Result<(), String> {
    canvasc_engine::http::install_tls_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let server = start_child("flood", true)?;
        let pid = server.child.id();
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(usize::MAX)
            .build()
            .map_err(|e| e.to_string())?;
        let (key, agent) = set_up(&client, &server.base).await?;
        for n in 0..FLOOD_ACCOUNTS {
            let email = format!("victim{n}@example.com");
            post(&client, &server.base, "/users", None, json!({"email": email, "nickname": "v", "password": PASSWORD})).await?;
        }
        println!("login_flood: {rate} wrong logins/s for {seconds} s over {FLOOD_ACCOUNTS} accounts, each from another address; server pid {pid}");

        let cpu = cpu_seconds(pid);
        let clock = Instant::now();
        let quiet = runs(&client, &server.base, &key, &agent, seconds).await;
        let quiet_cpu = (cpu_seconds(pid) - cpu) / clock.elapsed().as_secs_f64();

        let counts = Arc::new(FloodCounts::default());
        let flooding = tokio::spawn(flood(client.clone(), server.base.clone(), rate, seconds, counts.clone()));
        let cpu = cpu_seconds(pid);
        let clock = Instant::now();
        let loud = runs(&client, &server.base, &key, &agent, seconds).await;
        let flood_cpu = (cpu_seconds(pid) - cpu) / clock.elapsed().as_secs_f64();
        flooding.await.map_err(|e| e.to_string())?;

        println!("{:>8} {:>6} {:>9} {:>9} {:>12}", "phase", "runs", "p50 ms", "p99 ms", "server CPU");
        for (phase, latencies, cpu) in [("quiet", &quiet, quiet_cpu), ("flood", &loud, flood_cpu)] {
            println!(
                "{phase:>8} {:>6} {:>9.1} {:>9.1} {:>11.0}%",
                latencies.len(),
                percentile(latencies, 0.5),
                percentile(latencies, 0.99),
                cpu * 100.0
            );
        }
        println!(
            "flood answers: {} sent, {} wrong password (109), {} locked (429), {} password work full (503), {} other",
            counts.sent.load(Ordering::Relaxed),
            counts.wrong.load(Ordering::Relaxed),
            counts.locked.load(Ordering::Relaxed),
            counts.busy.load(Ordering::Relaxed),
            counts.other.load(Ordering::Relaxed),
        );
        let ratio = percentile(&loud, 0.99) / percentile(&quiet, 0.99);
        println!("p99 during the flood / quiet p99: {ratio:.2} (target: within 2)");
        drop(server);

        let on = kept_alive_runs_per_second(true, 5).await?;
        let off = kept_alive_runs_per_second(false, 5).await?;
        println!("kept-alive streaming runs/s over one connection: TCP_NODELAY on {on:.0}, off {off:.0}");
        Ok::<(), String>(())
    })
}
