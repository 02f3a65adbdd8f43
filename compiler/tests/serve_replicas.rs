//! Several `canvasc serve` replicas, as a deployment runs them behind a load balancer: two
//! processes on 127.0.0.1 sharing one PostgreSQL database and one Redis (README, "Several
//! replicas"). A run started on A is refused a second runner and cancelled through B; Redis
//! stopped mid-run (a private `redis-server` the test starts and kills) leaves the run to
//! finish and the session consistent, and both replicas recover when it is back.
//!
//! The fault cases (a sole server or one of two replicas killed mid-run, Redis stopped, the
//! database cut mid-turn) run `CANVASC_FAULT_ROUNDS` rounds each (1 unless set; `.ci/run`
//! sets more), each round judging every turn it made lost, misreported or whole, and print
//! their counts (`tests/src/fault_rounds.rs`).
//!
//! PostgreSQL (`127.0.0.1:5432`) or Redis (`REDIS_URL`, default `127.0.0.1:6379`) unreachable
//! skips these tests, except under `CANVASC_REQUIRE_SHARED=1` or `CI`, where it fails them.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use redis::AsyncCommands;
use serde_json::{json, Value};
use sqlx::Executor;

#[path = "../../tests/src/fault_rounds.rs"]
mod fault_rounds;
use fault_rounds::{run_rounds, Turns};

/// The model's answer to `slow …`: this many words, this long before each.
const SLOW_CHUNKS: usize = 40;
const SLOW_DELAY_MS: u64 = 100;
const PATH: &str = "/api/v1/agents/chat/completions";

fn required() -> bool {
    std::env::var("CANVASC_REQUIRE_SHARED").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

/// Skips (returns `None`) or, where the services are required, fails.
fn unavailable<T>(why: String) -> Option<T> {
    assert!(!required(), "{why}");
    eprintln!("skipped: {why}");
    None
}

fn shared_redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The database every replica of this test process shares (`canvasc_test_<secs>_<pid>`, the
/// name `.ci/run` and the server suite sweep once the process has ended).
async fn database() -> Option<String> {
    static URL: tokio::sync::OnceCell<Result<String, String>> = tokio::sync::OnceCell::const_new();
    let made = URL
        .get_or_init(|| async {
            let stamp = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let name = format!("canvasc_test_{stamp}_{}", std::process::id());
            let admin = "postgres://postgres@127.0.0.1:5432/test";
            let connect = sqlx::PgPool::connect(admin);
            let pool = match tokio::time::timeout(Duration::from_secs(5), connect).await {
                Ok(Ok(pool)) => pool,
                Ok(Err(e)) => return Err(format!("PostgreSQL at {admin} is unreachable: {e}")),
                Err(_) => return Err(format!("PostgreSQL at {admin} does not answer")),
            };
            pool.execute(format!("CREATE DATABASE {name}").as_str())
                .await
                .map_err(|e| format!("cannot create the database {name}: {e}"))?;
            pool.close().await;
            Ok(format!("postgres://postgres@127.0.0.1:5432/{name}"))
        })
        .await;
    match made {
        Ok(url) => Some(url.clone()),
        Err(e) => unavailable(e.clone()),
    }
}

async fn redis_reachable(url: &str) -> Option<redis::aio::MultiplexedConnection> {
    let attempt = async {
        redis::Client::open(url)?
            .get_multiplexed_async_connection()
            .await
    };
    match tokio::time::timeout(Duration::from_secs(3), attempt).await {
        Ok(Ok(conn)) => Some(conn),
        Ok(Err(e)) => unavailable(format!("Redis at {url} is unreachable: {e}")),
        Err(_) => unavailable(format!("Redis at {url} does not answer")),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

fn stamp() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{nanos:x}", std::process::id())
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("canvasc-replicas-{test}-{}", stamp()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let chunks: Vec<String> = (0..SLOW_CHUNKS).map(|i| format!("w{i} ")).collect();
        let script = json!({"chunking": "words", "responses": [
            {"match": "step A", "content": "alpha", "times": -1},
            {"match": "step B", "content": "beta", "times": -1},
            {"match": "step C", "chunks": chunks.clone(), "delay_ms": SLOW_DELAY_MS, "times": -1},
            {"match": "slow", "chunks": chunks, "delay_ms": SLOW_DELAY_MS, "times": -1},
        ]});
        std::fs::write(dir.join("script.json"), script.to_string()).expect("the script");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One `canvasc serve` process.
struct Replica {
    child: Child,
    base: String,
    log: PathBuf,
}

impl Replica {
    fn start(name: &str, dir: &Path, database: &str, redis: &str, prefix: &str) -> Replica {
        let mut command = Replica::command(name, dir);
        command
            .env("DATABASE_URL", database)
            .env("REDIS_URL", redis)
            .env("CANVASC_REDIS_PREFIX", prefix);
        Replica::spawn(name, dir, command)
    }

    /// A server alone on the SQLite database under `dir/data`, coordinated in process (the
    /// zero-setup deployment); `name` names its log.
    fn sole(name: &str, dir: &Path) -> Replica {
        let mut command = Replica::command("data", dir);
        command.env_remove("DATABASE_URL").env_remove("REDIS_URL");
        Replica::spawn(name, dir, command)
    }

    fn command(data: &str, dir: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_canvasc"));
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--keep-alive-secs", "1"])
            .args(["--registration", "open"])
            .arg("--data-dir")
            .arg(dir.join(data))
            .arg("--llm-script")
            .arg(dir.join("script.json"))
            .env_remove("CANVASC_CONFIG")
            .env_remove("CANVASC_LLM_BASE_URL");
        command
    }

    fn spawn(name: &str, dir: &Path, mut command: Command) -> Replica {
        let log = dir.join(format!("{name}.log"));
        let stderr = std::fs::File::create(&log).expect("a log file");
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("canvasc serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let base = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(addr) = line.strip_prefix("canvasc serve: listening on ") {
                        break addr.trim().to_string();
                    }
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "replica {name} did not start: {}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
            }
        };
        // The rest of stdout is drained so the replica never blocks writing it.
        std::thread::spawn(move || for _ in lines {});
        Replica { child, base, log }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private `redis-server` on a free port: this test may stop and start it.
struct PrivateRedis {
    child: Option<Child>,
    port: u16,
}

impl PrivateRedis {
    fn start() -> Option<PrivateRedis> {
        let mut redis = PrivateRedis {
            child: None,
            port: free_port(),
        };
        redis.restart().then_some(redis)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server on its port; `false` when `redis-server` cannot run here.
    fn restart(&mut self) -> bool {
        let spawned = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = spawned else {
            return false;
        };
        self.child = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("an HTTP client")
}

/// `{code, message, data}` of one call.
async fn call(http: &reqwest::Client, url: String, auth: &str, body: Value) -> Value {
    http.post(url)
        .header("Authorization", auth)
        .json(&body)
        .send()
        .await
        .expect("the replica answers")
        .json()
        .await
        .expect("an envelope")
}

/// Registers a user on `replica` and returns its `Authorization` header (an API key, so it
/// works on every replica).
async fn account(http: &reqwest::Client, replica: &Replica) -> String {
    let email = format!("replicas-{}@example.com", stamp());
    let password = "c2VjcmV0IHBhc3N3b3Jk";
    let user = json!({"email": email, "nickname": "qa", "password": password});
    let created = call(http, replica.url("/api/v1/users"), "", user).await;
    assert_eq!(created["code"], 0, "{created}");
    let login = http
        .post(replica.url("/api/v1/auth/login"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("login answers");
    let token = login.headers()["authorization"]
        .to_str()
        .expect("a login token")
        .to_string();
    let key = call(
        http,
        replica.url("/api/v1/system/tokens"),
        &token,
        json!({}),
    )
    .await;
    format!(
        "Bearer {}",
        key["data"]["token"].as_str().expect("an API key")
    )
}

async fn chat_agent(http: &reqwest::Client, replica: &Replica, auth: &str) -> String {
    let dsl: Value =
        serde_json::from_str(include_str!("../../fixtures/valid/llm-think-stream.json"))
            .expect("the fixture is JSON");
    agent_of(http, replica, auth, dsl).await
}

async fn agent_of(http: &reqwest::Client, replica: &Replica, auth: &str, dsl: Value) -> String {
    let title = format!("replicas-{}", stamp());
    let created = call(
        http,
        replica.url("/api/v1/agents"),
        auth,
        json!({"title": title, "dsl": dsl}),
    )
    .await;
    created["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("an agent: {created}"))
        .to_string()
}

/// A streaming run, read frame by frame.
struct Stream {
    response: reqwest::Response,
    body: Frames,
}

/// What a stream sent.
struct Frames(String);

impl Stream {
    /// A new session's streamed turn on `replica` whose scripted answer is slow enough to act on
    /// mid-run.
    async fn slow_run(
        http: &reqwest::Client,
        replica: &Replica,
        auth: &str,
        agent: &str,
    ) -> Stream {
        let body = json!({"agent_id": agent, "query": "slow please", "stream": true});
        Stream::start(http, replica.url(PATH), auth, body).await
    }

    async fn start(http: &reqwest::Client, url: String, auth: &str, body: Value) -> Stream {
        let response = http
            .post(url)
            .header("Authorization", auth)
            .json(&body)
            .send()
            .await
            .expect("the replica answers");
        let mut stream = Stream {
            response,
            body: Frames(String::new()),
        };
        while !stream.body.0.contains("\n\n") {
            let chunk = stream.response.chunk().await.expect("a chunk");
            let chunk = chunk.unwrap_or_else(|| panic!("ended early: {}", stream.body.0));
            stream.body.0.push_str(&String::from_utf8_lossy(&chunk));
        }
        stream
    }

    /// Reads on until the answer has `words` words.
    async fn until_answered(&mut self, words: usize) {
        while self.body.answered() < words {
            let chunk = self.response.chunk().await.expect("a chunk");
            let chunk = chunk.unwrap_or_else(|| panic!("ended early: {}", self.body.0));
            self.body.0.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    fn first(&self, key: &str) -> String {
        self.body.frames()[0][key]
            .as_str()
            .unwrap_or_else(|| panic!("no {key}: {}", self.body.0))
            .to_string()
    }

    /// Reads the stream to its end.
    async fn finish(self) -> Frames {
        let mut body = self.body;
        let mut rest = self.response.bytes_stream();
        while let Some(chunk) = rest.next().await {
            body.0
                .push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
        }
        body
    }
}

impl Frames {
    fn frames(&self) -> Vec<Value> {
        self.0
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Words of the answer the stream carried.
    fn answered(&self) -> usize {
        self.frames()
            .iter()
            .filter(|f| f["event"] == "message")
            .filter_map(|f| f["data"]["content"].as_str().map(String::from))
            .collect::<String>()
            .split_whitespace()
            .count()
    }

    /// Whether the stream ended as a success: one `workflow_finished`, no error frame, then
    /// RAGFlow's terminator.
    fn ends_whole(&self) -> bool {
        self.0.ends_with("data:[DONE]\n\n") && self.finished().len() == 1 && !self.has_error()
    }

    /// Whether the stream carried RAGFlow's error frame (`code` 500, `data` false): the run
    /// failed, or its turn could not be saved.
    fn has_error(&self) -> bool {
        self.frames()
            .iter()
            .any(|f| f.get("code").is_some_and(|c| c != 0))
    }

    fn finished(&self) -> Vec<Value> {
        self.frames()
            .into_iter()
            .filter(|f| f["event"] == "workflow_finished")
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_on_a_is_refused_a_second_runner_and_cancelled_through_b() {
    let Some(database) = database().await else {
        return;
    };
    let redis_url = shared_redis_url();
    let Some(mut redis) = redis_reachable(&redis_url).await else {
        return;
    };
    let scratch = Scratch::new("cancel");
    let prefix = format!("canvasc-test:{}:", stamp());
    let a = Replica::start("a", &scratch.0, &database, &redis_url, &prefix);
    let b = Replica::start("b", &scratch.0, &database, &redis_url, &prefix);
    let http = client();
    let auth = account(&http, &a).await;
    let agent = chat_agent(&http, &a, &auth).await;

    let run = Stream::slow_run(&http, &a, &auth, &agent).await;
    let session = run.first("session_id");
    let message_id = run.first("message_id");

    // The session runs on A: B refuses a second runner with RAGFlow's answer.
    let second = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "again"}),
    )
    .await;
    assert_eq!(
        (&second["code"], &second["message"]),
        (
            &json!(103),
            &json!("This agent session is already running.")
        ),
        "{second}"
    );
    let record: Value = serde_json::to_value(
        redis
            .hgetall::<_, std::collections::BTreeMap<String, String>>(format!(
                "{prefix}agent:run:{message_id}"
            ))
            .await
            .expect("the run record"),
    )
    .expect("a map");
    assert_eq!(record["status"], "running", "{record}");
    assert_eq!(record["session_id"], json!(session));
    assert_eq!(record["canvas_id"], json!(agent));
    assert_eq!(record["mode"], "interpreted");

    // Cancelled through B; A's stream ends with RAGFlow's cancel events.
    let cancelled = call(
        &http,
        b.url(&format!("/api/v1/tasks/{session}/cancel")),
        &auth,
        json!({}),
    )
    .await;
    assert_eq!(cancelled["code"], 0, "{cancelled}");
    let asked = Instant::now();
    let run = run.finish().await;
    let latency = asked.elapsed();
    eprintln!("cancel through B → A's stream ended in {latency:?}");
    assert!(
        latency < Duration::from_millis(SLOW_CHUNKS as u64 * SLOW_DELAY_MS / 4),
        "the cancel took {latency:?}"
    );
    assert!(run.0.ends_with("data:[DONE]\n\n"), "{}", run.0);
    assert_eq!(run.finished().len(), 1, "{}", run.0);
    assert!(run.answered() < SLOW_CHUNKS, "{}", run.0);

    // The run's record says how it ended; the lease is gone; the session is saved with what
    // ran, and either replica runs it again.
    let mut status = String::new();
    for _ in 0..100 {
        status = redis
            .hget(format!("{prefix}agent:run:{message_id}"), "status")
            .await
            .unwrap_or_default();
        if status != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, "cancelled", "{}", run.0);
    let lease: bool = redis
        .exists(format!("{prefix}agent:active-session:{session}"))
        .await
        .expect("exists");
    assert!(!lease, "the lease is released");
    let next = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "quick"}),
    )
    .await;
    assert_eq!(next["code"], 0, "{next}\n{}", b.log());
    let saved = session_of(&http, &a, &auth, &agent, &session).await;
    assert_eq!(saved["data"]["round"], 2, "{saved}");
    forget(&mut redis, &prefix).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_lost_its_lease_never_saves_over_the_newer_runs_turn() {
    let Some(database) = database().await else {
        return;
    };
    let redis_url = shared_redis_url();
    let Some(mut redis) = redis_reachable(&redis_url).await else {
        return;
    };
    let scratch = Scratch::new("fence");
    let prefix = format!("canvasc-test:{}:", stamp());
    let a = Replica::start("a", &scratch.0, &database, &redis_url, &prefix);
    let b = Replica::start("b", &scratch.0, &database, &redis_url, &prefix);
    let http = client();
    let auth = account(&http, &a).await;
    let agent = chat_agent(&http, &a, &auth).await;

    let run = Stream::slow_run(&http, &a, &auth, &agent).await;
    let session = run.first("session_id");
    // A's lease expires while its run goes on, as it does when A cannot reach Redis for
    // longer than the lease lives (by then its first checkpoint, written at most 100 ms after
    // the run's start, is stored); B takes the session over and saves its turn.
    let checkpoint = format!("{prefix}agent:cp:{}", run.first("message_id"));
    for _ in 0..100 {
        let stored: bool = redis.exists(&checkpoint).await.expect("EXISTS");
        if stored {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _: () = redis
        .del(format!("{prefix}agent:active-session:{session}"))
        .await
        .expect("DEL");
    let quick = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "quick"}),
    )
    .await;
    assert_eq!(quick["code"], 0, "{quick}\n{}", b.log());

    // A's run ends later: its save is refused, and its stream says so instead of succeeding.
    let run = run.finish().await;
    let last = run.frames().last().cloned().unwrap_or_default();
    assert_eq!(
        (&last["code"], &last["data"]),
        (&json!(500), &json!(false)),
        "{}",
        run.0
    );
    assert!(
        last["message"]
            .as_str()
            .is_some_and(|m| m.contains("taken over by another run")),
        "{}",
        run.0
    );
    // The session holds both questions once: B found A's run orphaned (its lease gone),
    // finished it from its checkpoint, then ran its own; A's late save overwrote neither.
    let saved = session_of(&http, &a, &auth, &agent, &session).await;
    let asked: Vec<&str> = saved["data"]["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(asked, ["slow please", "quick"], "{saved}");
    let answers = saved["data"]["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "assistant")
        .count();
    assert_eq!(answers, 2, "{saved}");
    forget(&mut redis, &prefix).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_mid_run_leaves_the_run_whole_and_the_replicas_recover() {
    let Some(database) = database().await else {
        return;
    };
    if PrivateRedis::start().is_none() {
        let _: Option<()> = unavailable("redis-server cannot run here".into());
        return;
    }
    run_rounds("Redis stopped and restarted mid-run", move |turns| {
        redis_outage_round(database.clone(), turns)
    })
    .await;
}

/// One round: a private Redis stopped while a run streams on A, a run refused on B meanwhile,
/// Redis started again (empty), then a turn through B and a run on A cancelled through B.
async fn redis_outage_round(database: String, turns: Turns) {
    let mut redis = PrivateRedis::start().expect("redis-server starts");
    let scratch = Scratch::new("outage");
    let prefix = format!("canvasc-test:{}:", stamp());
    let a = Replica::start("a", &scratch.0, &database, &redis.url(), &prefix);
    let b = Replica::start("b", &scratch.0, &database, &redis.url(), &prefix);
    let http = client();
    let auth = account(&http, &a).await;
    let agent = chat_agent(&http, &a, &auth).await;

    let run = Stream::slow_run(&http, &a, &auth, &agent).await;
    let session = run.first("session_id");
    redis.stop();

    // A run cannot start without the coordinator: a clear error, nothing half-started.
    let refused = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "query": "quick"}),
    )
    .await;

    // The run already going finishes on its own, whole, and is saved.
    let run = run.finish().await;
    let saved = session_of(&http, &b, &auth, &agent, &session).await;
    let sessions = sessions_of(&http, &b, &auth, &agent).await;
    turns.turn(
        "the run going when Redis stopped",
        saved["data"]["round"] == 1
            && saved["data"]["message"][1]["content"]
                .as_str()
                .is_some_and(|c| c.split_whitespace().count() == SLOW_CHUNKS),
        run.answered() == SLOW_CHUNKS && run.ends_whole() && saved["data"]["errors"] == Value::Null,
        format!("{saved}\n{}", run.0),
    );
    turns.turn(
        "the run refused while Redis was away",
        sessions == [session.clone()],
        refused["code"] == 105,
        format!("{refused}, sessions {sessions:?}"),
    );
    assert_eq!(refused["code"], 105, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("Redis")),
        "{refused}"
    );
    assert_eq!(run.answered(), SLOW_CHUNKS, "{}", run.0);
    assert_eq!(run.finished().len(), 1, "{}", run.0);
    assert_eq!(saved["data"]["round"], 1, "{saved}");
    assert_eq!(
        saved["data"]["message"][1]["content"]
            .as_str()
            .map(|c| c.split_whitespace().count()),
        Some(SLOW_CHUNKS),
        "{saved}"
    );
    assert!(a.log().contains("Redis"), "A says why: {}", a.log());

    // Redis is back (empty: it kept nothing): both replicas serve runs again, and a cancel
    // through B reaches a run on A.
    assert!(redis.restart(), "redis-server restarts");
    let recovered = Instant::now();
    loop {
        let next = call(
            &http,
            b.url(PATH),
            &auth,
            json!({"agent_id": agent, "session_id": session, "query": "quick"}),
        )
        .await;
        if next["code"] == 0 {
            break;
        }
        assert!(
            recovered.elapsed() < Duration::from_secs(15),
            "B never recovered: {next}\n{}",
            b.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let run = Stream::start(
        &http,
        a.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "slow again", "stream": true}),
    )
    .await;
    let cancelled = call(
        &http,
        b.url(&format!("/api/v1/tasks/{session}/cancel")),
        &auth,
        json!({}),
    )
    .await;
    let run = run.finish().await;
    // The session holds the three questions once each, the answered one whole, and the last
    // turn says it was cancelled.
    let saved = session_of(&http, &b, &auth, &agent, &session).await;
    let asked: Vec<&str> = saved["data"]["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    turns.turn(
        "the turns once Redis was back",
        asked == ["slow please", "quick", "slow again"] && saved["data"]["round"] == 3,
        cancelled["code"] == 0
            && run.ends_whole()
            && saved["data"]["errors"] == "Task has been canceled",
        format!("{saved}\n{}", run.0),
    );
    assert_eq!(cancelled["code"], 0, "{cancelled}");
    assert!(run.answered() < SLOW_CHUNKS, "{}", run.0);
    assert_eq!(run.finished().len(), 1, "{}", run.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_replicas_run_is_resumed_by_the_other_from_its_checkpoint() {
    let Some(database) = database().await else {
        return;
    };
    if redis_reachable(&shared_redis_url()).await.is_none() {
        return;
    }
    run_rounds("kill -9 one of two replicas", move |turns| {
        killed_replica_round(database.clone(), turns)
    })
    .await;
}

/// One round: replica A killed mid-run once its checkpoint after the second component is
/// stored; the session's next request on B finishes the orphaned run, then runs its own
/// question. Then the refusals of another engine's checkpoints.
async fn killed_replica_round(database: String, turns: Turns) {
    let redis_url = shared_redis_url();
    let mut redis = redis_reachable(&redis_url).await.expect("Redis answers");
    let scratch = Scratch::new("resume");
    let prefix = format!("canvasc-test:{}:", stamp());
    let mut a = Replica::start("a", &scratch.0, &database, &redis_url, &prefix);
    let b = Replica::start("b", &scratch.0, &database, &redis_url, &prefix);
    let http = client();
    let auth = account(&http, &a).await;
    let dsl: Value = serde_json::from_str(include_str!("../../tests/checkpoint/sequential.json"))
        .expect("the fixture is JSON");
    let agent = agent_of(&http, &a, &auth, dsl).await;

    // begin → A → B → C (slow, streaming into the Message): A is killed while C streams,
    // once the checkpoint after B (batch 3) is stored.
    let run = Stream::start(
        &http,
        a.url(PATH),
        &auth,
        json!({"agent_id": agent, "query": "go", "stream": true}),
    )
    .await;
    let session = run.first("session_id");
    let run_id = run.first("message_id");
    let key = format!("{prefix}agent:cp:{run_id}");
    let waited = Instant::now();
    let orphaned = loop {
        let text: Option<String> = redis.get(&key).await.unwrap_or(None);
        let batch = text
            .as_deref()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .and_then(|cp| cp["batch"].as_u64());
        if batch == Some(3) {
            break text.unwrap_or_default();
        }
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "no checkpoint after B: {batch:?}\n{}",
            a.log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    a.child.kill().expect("SIGKILL A");
    let _ = a.child.wait();
    drop(run);

    // B: refused while A's lease lives (up to its 30 s). Then the session's next request
    // first finishes the orphaned run from its checkpoint (C and the Message run, A and B,
    // finished, do not), and then runs its own question: neither is dropped.
    let waited = Instant::now();
    let next = loop {
        let response = http
            .post(b.url(PATH))
            .header("Authorization", &auth)
            .json(
                &json!({"agent_id": agent, "session_id": session, "query": "next", "stream": true}),
            )
            .send()
            .await
            .expect("B answers")
            .text()
            .await
            .expect("a body");
        if !response.contains("already running") {
            break Frames(response);
        }
        assert!(
            waited.elapsed() < Duration::from_secs(45),
            "B never took the session over:\n{}",
            b.log()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let next_id = next
        .frames()
        .first()
        .map(|f| f["message_id"].clone())
        .unwrap_or_default();

    // The orphaned run's record ends as succeeded, and its log holds only what ran on B.
    let mut status = String::new();
    for _ in 0..100 {
        status = redis
            .hget(format!("{prefix}agent:run:{run_id}"), "status")
            .await
            .unwrap_or_default();
        if status == "succeeded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let log: Value = http
        .get(b.url(&format!("/api/v1/agents/{agent}/logs/{run_id}")))
        .header("Authorization", &auth)
        .send()
        .await
        .expect("a run log")
        .json()
        .await
        .expect("JSON");
    let ran: Vec<&str> = log["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["component_id"].as_str())
        .collect();

    // The session holds both turns in order: the orphaned question with the answer resumed
    // from the checkpoint (A's and B's outputs in it), then the new one.
    let saved = session_of(&http, &b, &auth, &agent, &session).await;
    let messages = saved["data"]["message"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    // (The Message's text loses the spaces around `|`, as RAGFlow's does.)
    let answer = messages
        .get(1)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .replace(' ', "");
    let whole: String = (0..SLOW_CHUNKS).map(|i| format!("w{i}")).collect();
    turns.turn(
        "the killed replica's run",
        roles.len() == 4
            && messages[0]["content"] == "go"
            && answer == format!("alpha|beta|{whole}"),
        status == "succeeded",
        format!("{status}: {saved}"),
    );
    turns.turn(
        "the question asked after the kill",
        roles.len() == 4 && messages[2]["content"] == "next" && messages[3]["id"] == next_id,
        next.ends_whole()
            && next_id != json!(run_id)
            && next.frames().iter().all(|f| f["message_id"] == next_id),
        format!("{saved}\n{}", next.0),
    );

    assert_eq!(next.finished().len(), 1, "{}", next.0);
    assert_ne!(
        next_id,
        json!(run_id),
        "the stream is the new question's run"
    );
    assert!(next.frames().iter().all(|f| f["message_id"] == next_id));
    assert_eq!(status, "succeeded");
    assert!(
        !ran.contains(&"LLM:A") && !ran.contains(&"LLM:B") && ran.contains(&"LLM:C"),
        "{log}"
    );
    assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{saved}");
    assert_eq!(
        (&messages[0]["content"], &messages[2]["content"]),
        (&json!("go"), &json!("next")),
        "{saved}"
    );
    assert!(answer.starts_with("alpha|beta|w0w1"), "{saved}");

    // The resumed run succeeded: nothing is left to resume, so its checkpoint went with its end.
    let left: Option<String> = redis.get(&key).await.expect("GET");
    assert_eq!(left, None, "a finished run's checkpoint is dropped");

    // A checkpoint another engine version wrote is refused with a clear error: the orphaned
    // run's checkpoint is written back as engine 0.0.0's for the session's latest run (the
    // new question's, marked failed), and `resume_from` names it.
    let next_id = next_id.as_str().unwrap_or_default().to_string();
    let mut checkpoint: Value = serde_json::from_str(&orphaned).expect("JSON");
    checkpoint["engine_version"] = json!("0.0.0");
    let _: () = redis
        .set(
            format!("{prefix}agent:cp:{next_id}"),
            checkpoint.to_string(),
        )
        .await
        .expect("set");
    let _: () = redis
        .hset(format!("{prefix}agent:run:{next_id}"), "status", "failed")
        .await
        .expect("hset");
    let refused = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "x", "resume_from": next_id}),
    )
    .await;
    assert_ne!(refused["code"], 0, "{refused}");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("engine 0.0.0") && message.contains("this server runs engine"),
        "{refused}"
    );

    // A session whose orphaned run has such a checkpoint is not stuck: the orphan (what a
    // replica that died under an older engine leaves) is recorded as interrupted, saying
    // why, and the request's own question runs.
    let stuck = "orphanrun0000000000000000000000";
    let record: std::collections::BTreeMap<String, String> = redis
        .hgetall(format!("{prefix}agent:run:{next_id}"))
        .await
        .expect("the record");
    let mut fields: Vec<(String, String)> = record.into_iter().collect();
    for (name, value) in &mut fields {
        match name.as_str() {
            "status" => *value = "running".into(),
            "user_message" => {
                *value = json!({"role": "user", "content": "lost?", "id": stuck}).to_string()
            }
            _ => {}
        }
    }
    let _: () = redis
        .hset_multiple(format!("{prefix}agent:run:{stuck}"), &fields)
        .await
        .expect("hset");
    let _: () = redis
        .set(format!("{prefix}agent:cp:{stuck}"), checkpoint.to_string())
        .await
        .expect("set");
    let _: () = redis
        .set(format!("{prefix}agent:session-run:{session}"), stuck)
        .await
        .expect("set");
    let unstuck = call(
        &http,
        b.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "still there?"}),
    )
    .await;
    assert_eq!(unstuck["code"], 0, "{unstuck}\n{}", b.log());
    let reason: String = redis
        .hget(format!("{prefix}agent:run:{stuck}"), "failure_reason")
        .await
        .expect("hget");
    assert!(
        reason.contains("interrupted") && reason.contains("engine 0.0.0"),
        "{reason}"
    );
    let saved = session_of(&http, &b, &auth, &agent, &session).await;
    let asked: Vec<&str> = saved["data"]["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(asked, ["go", "next", "lost?", "still there?"], "{saved}");
    forget(&mut redis, &prefix).await;
}

/// Drops the test's keys from the shared Redis.
async fn forget(redis: &mut redis::aio::MultiplexedConnection, prefix: &str) {
    let keys: Vec<String> = redis.keys(format!("{prefix}*")).await.unwrap_or_default();
    if !keys.is_empty() {
        let _: Result<(), _> = redis.del(keys).await;
    }
}

async fn session_of(
    http: &reqwest::Client,
    replica: &Replica,
    auth: &str,
    agent: &str,
    session: &str,
) -> Value {
    http.get(replica.url(&format!("/api/v1/agents/{agent}/sessions/{session}")))
        .header("Authorization", auth)
        .send()
        .await
        .expect("a session")
        .json::<Value>()
        .await
        .expect("JSON")
}

/// The ids of the agent's sessions.
async fn sessions_of(
    http: &reqwest::Client,
    replica: &Replica,
    auth: &str,
    agent: &str,
) -> Vec<String> {
    let listed: Value = http
        .get(replica.url(&format!("/api/v1/agents/{agent}/sessions")))
        .header("Authorization", auth)
        .send()
        .await
        .expect("the sessions")
        .json()
        .await
        .expect("JSON");
    listed["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_str().map(String::from))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_sole_servers_run_is_recorded_as_interrupted_and_resumable_after_a_restart() {
    run_rounds("kill -9 sole replica", killed_sole_server_round).await;
}

/// One round: a sole server killed mid-answer, restarted on its data dir; the run resumed,
/// then the session's next turn.
async fn killed_sole_server_round(turns: Turns) {
    let scratch = Scratch::new("crash");
    let mut first = Replica::sole("first", &scratch.0);
    let http = client();
    let auth = account(&http, &first).await;
    let agent = chat_agent(&http, &first, &auth).await;
    let mut run = Stream::slow_run(&http, &first, &auth, &agent).await;
    let session = run.first("session_id");
    let run_id = run.first("message_id");
    // Mid-answer (the model streams, so the checkpoint before it is stored), `kill -9`.
    run.until_answered(5).await;
    first.child.kill().expect("SIGKILL");
    let _ = first.child.wait();
    drop(run);

    // The next process finds the run its predecessor left running and records it.
    let second = Replica::sole("second", &scratch.0);
    let saved = session_of(&http, &second, &auth, &agent, &session).await;
    let messages = saved["data"]["message"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let said_interrupted = saved["data"]["errors"]
        .as_str()
        .is_some_and(|e| e.contains("interrupted") && e.contains(&run_id));
    let logged = second
        .log()
        .contains("1 run(s) of the previous process were interrupted");
    turns.turn(
        "the killed run, after the restart",
        messages.first().is_some_and(|m| {
            m["role"] == "user" && m["content"] == "slow please" && m["id"] == json!(run_id)
        }),
        said_interrupted && logged,
        format!(
            "{saved}
{}",
            second.log()
        ),
    );
    assert!(logged, "{}", second.log());
    assert_eq!(messages.len(), 1, "the question stays: {saved}");
    assert_eq!(
        (
            &messages[0]["role"],
            &messages[0]["content"],
            &messages[0]["id"]
        ),
        (&json!("user"), &json!("slow please"), &json!(run_id)),
        "{saved}"
    );
    assert!(said_interrupted, "{saved}");

    // `resume_from` goes on from the run's last checkpoint: the whole answer, saved once.
    let resumed = Stream::start(
        &http,
        second.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "", "resume_from": run_id, "stream": true}),
    )
    .await
    .finish()
    .await;
    let saved = session_of(&http, &second, &auth, &agent, &session).await;
    let answer = &saved["data"]["message"][1];
    turns.turn(
        "the killed run, resumed",
        answer["role"] == "assistant"
            && answer["id"] == json!(run_id)
            && answer["content"]
                .as_str()
                .is_some_and(|c| c.split_whitespace().count() == SLOW_CHUNKS),
        resumed.answered() == SLOW_CHUNKS
            && resumed.ends_whole()
            && saved["data"]["errors"] == Value::Null,
        format!("{saved}\n{}", resumed.0),
    );
    assert_eq!(resumed.answered(), SLOW_CHUNKS, "{}", resumed.0);
    assert!(resumed
        .frames()
        .iter()
        .all(|f| f["message_id"] == json!(run_id)));
    // And the session goes on.
    let next = call(
        &http,
        second.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "quick"}),
    )
    .await;
    let saved = session_of(&http, &second, &auth, &agent, &session).await;
    let roles: Vec<&str> = saved["data"]["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["role"].as_str())
        .collect();
    turns.turn(
        "the next turn",
        saved["data"]["message"][2]["content"] == "quick"
            && roles == ["user", "assistant", "user", "assistant"],
        next["code"] == 0 && saved["data"]["errors"] == Value::Null,
        format!("{next}\n{saved}"),
    );
    assert_eq!(next["code"], 0, "{next}");
    assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{saved}");
    assert_eq!(saved["data"]["errors"], Value::Null, "{saved}");
}

/// A TCP proxy to the machine's PostgreSQL that the test can cut: a cut closes every
/// connection going through it and refuses new ones, as a database gone away does.
struct DbProxy {
    port: u16,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    links: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl DbProxy {
    async fn start() -> DbProxy {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port for the proxy");
        let port = listener.local_addr().expect("its address").port();
        let open = std::sync::Arc::new(AtomicBool::new(true));
        let links = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let accept = {
            let (open, links) = (open.clone(), links.clone());
            tokio::spawn(async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    if !open.load(Ordering::SeqCst) {
                        continue; // dropped: the client sees the connection closed
                    }
                    let link = tokio::spawn(async move {
                        if let Ok(mut outbound) =
                            tokio::net::TcpStream::connect("127.0.0.1:5432").await
                        {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    });
                    links.lock().unwrap().push(link.abort_handle());
                }
            })
        };
        DbProxy {
            port,
            open,
            links,
            accept,
        }
    }

    /// `url` (the test database on 127.0.0.1:5432) through the proxy.
    fn url(&self, url: &str) -> String {
        url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", self.port))
    }

    fn cut(&self) {
        self.open.store(false, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    fn restore(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for DbProxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_gets_the_error_envelope_and_nothing_half_written() {
    let Some(database) = database().await else {
        return;
    };
    if redis_reachable(&shared_redis_url()).await.is_none() {
        return;
    }
    run_rounds("PostgreSQL cut mid-turn", move |turns| {
        database_outage_round(database.clone(), turns)
    })
    .await;
}

/// One round: the database cut (through a proxy) while a run streams; a new run refused
/// meanwhile; the database back, and the session's next turn.
async fn database_outage_round(database: String, turns: Turns) {
    let redis_url = shared_redis_url();
    let proxy = DbProxy::start().await;
    let scratch = Scratch::new("db");
    let prefix = format!("canvasc-test:{}:", stamp());
    let a = Replica::start("a", &scratch.0, &proxy.url(&database), &redis_url, &prefix);
    let http = client();
    let auth = account(&http, &a).await;
    let agent = chat_agent(&http, &a, &auth).await;
    let run = Stream::slow_run(&http, &a, &auth, &agent).await;
    let session = run.first("session_id");

    proxy.cut();
    // A new run cannot start: RAGFlow's error envelope, promptly, and no session is stored.
    let asked = Instant::now();
    let refused = call(
        &http,
        a.url(PATH),
        &auth,
        json!({"agent_id": agent, "query": "quick"}),
    )
    .await;
    let refused_in = asked.elapsed();
    // The run going on ends; its turn cannot be saved, and none of it is.
    let run = run.finish().await;
    proxy.restore();

    let recovered = Instant::now();
    let sessions = loop {
        let listed = http
            .get(a.url(&format!("/api/v1/agents/{agent}/sessions")))
            .header("Authorization", &auth)
            .send()
            .await
            .expect("A answers")
            .json::<Value>()
            .await
            .expect("JSON");
        if listed["code"] == 0 {
            break listed;
        }
        assert!(
            recovered.elapsed() < Duration::from_secs(20),
            "A never reached the database again: {listed}\n{}",
            a.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let listed = sessions["data"].as_array().cloned().unwrap_or_default();
    let saved = session_of(&http, &a, &auth, &agent, &session).await;
    // The cut turn is no loss when its client was told it failed; a success the session does
    // not hold would be one.
    turns.turn(
        "the turn going when the database went away",
        !run.ends_whole() && saved["data"]["message"] == json!([]),
        run.has_error() && run.finished().len() == 1,
        format!("{saved}\n{}", run.0),
    );
    turns.turn(
        "the run asked for while the database was away",
        listed.len() == 1,
        refused["code"] != 0 && refused["message"].is_string(),
        format!("{refused}, {sessions}"),
    );
    assert_ne!(refused["code"], 0, "{refused}");
    assert!(refused["message"].is_string(), "{refused}");
    assert!(refused_in < Duration::from_secs(15), "{refused_in:?}");
    assert_eq!(run.finished().len(), 1, "{}", run.0);
    assert_eq!(listed.len(), 1, "only the first run's session: {sessions}");
    assert_eq!(saved["data"]["round"], 0, "{saved}");
    assert_eq!(saved["data"]["message"], json!([]), "{saved}");
    assert!(a.log().contains("could not be saved"), "{}", a.log());
    // The session runs again once the database is back.
    let next = call(
        &http,
        a.url(PATH),
        &auth,
        json!({"agent_id": agent, "session_id": session, "query": "quick"}),
    )
    .await;
    let saved = session_of(&http, &a, &auth, &agent, &session).await;
    turns.turn(
        "the turn once the database was back",
        saved["data"]["round"] == 1 && saved["data"]["message"][0]["content"] == "quick",
        next["code"] == 0 && saved["data"]["errors"] == Value::Null,
        format!("{next}\n{saved}"),
    );
    assert_eq!(next["code"], 0, "{next}\n{}", a.log());
}
