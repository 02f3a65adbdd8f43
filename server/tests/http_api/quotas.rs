//! Per-tenant quotas (issue 39, item 12): concurrent runs, runs per minute and model tokens
//! per day, with an override by account email, each on the in-process coordinator and on
//! Redis (`REDIS_URL`, default the machine's 127.0.0.1:6379, under a key prefix of the test's
//! own; Redis unreachable skips the Redis cases, except under `CANVASC_REQUIRE_SHARED=1` or
//! `CI`). A refusal comes before the run starts, as RAGFlow's envelope with HTTP 429; a run
//! going on is never cut by a quota.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use canvasc_server::{QuotaConfig, QuotaLimits};
use futures::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::{chat_dsl, engine_reporting_usage, SLOW_CHUNKS};
use crate::harness::{api_key_at, call_at, extra_server_running, unique, Answer};

#[derive(Clone, Copy, Debug)]
enum Coordination {
    InProcess,
    Redis,
}

pub(crate) fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn redis_required() -> bool {
    std::env::var("CANVASC_REQUIRE_SHARED").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

/// Whether Redis answers (a skip is reported; where Redis is required, a failure).
pub(crate) async fn redis_reachable() -> bool {
    let url = redis_url();
    let attempt = async {
        let client = redis::Client::open(url.as_str())?;
        let mut conn = client.get_multiplexed_async_connection().await?;
        redis::cmd("PING").query_async::<String>(&mut conn).await
    };
    match tokio::time::timeout(Duration::from_secs(3), attempt).await {
        Ok(Ok(_)) => true,
        outcome => {
            let why = match outcome {
                Ok(Err(e)) => e.to_string(),
                _ => "no answer in 3 s".into(),
            };
            assert!(!redis_required(), "Redis at {url} is unreachable: {why}");
            eprintln!("skipped: Redis at {url} is unreachable: {why}");
            false
        }
    }
}

/// A server of a test: its address, and its Redis key prefix (what the test leaves there is
/// deleted when it drops).
struct QuotaServer {
    base: String,
    redis_prefix: Option<String>,
}

impl Drop for QuotaServer {
    fn drop(&mut self) {
        let Some(prefix) = self.redis_prefix.take() else {
            return;
        };
        // Synchronous: the test's runtime is ending.
        let deleted = redis::Client::open(redis_url()).and_then(|client| {
            let mut conn = client.get_connection()?;
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{prefix}*"))
                .query(&mut conn)?;
            if !keys.is_empty() {
                redis::cmd("DEL").arg(keys).query::<()>(&mut conn)?;
            }
            Ok(())
        });
        if let Err(e) = deleted {
            eprintln!("note: the test's Redis keys under {prefix} were not deleted: {e}");
        }
    }
}

/// A server with `quotas` whose model reports its token usage; `None` when the Redis case
/// is skipped.
async fn quota_server(coordination: Coordination, quotas: QuotaConfig) -> Option<QuotaServer> {
    let redis = match coordination {
        Coordination::InProcess => None,
        Coordination::Redis => {
            if !redis_reachable().await {
                return None;
            }
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            Some(format!(
                "canvasc-test:quotas:{}:{nanos:x}:",
                std::process::id()
            ))
        }
    };
    let base = extra_server_running(engine_reporting_usage(), |config| {
        config.registration = canvasc_server::Registration::Open;
        config.quotas = quotas;
        if let Some(prefix) = &redis {
            config.redis_url = Some(redis_url());
            config.redis_prefix = prefix.clone();
        }
    })
    .await;
    Some(QuotaServer {
        base,
        redis_prefix: redis,
    })
}

/// One call to the server at `base`, with a JSON body.
async fn call(base: &str, method: Method, path: &str, auth: Option<&str>, body: Value) -> Answer {
    call_at(base, method, path, auth, Some(body), &[]).await
}

/// A tenant of the server at `base`: its API key (`Bearer` form) and an agent on the chat
/// canvas (Begin → LLM → Message).
struct User {
    base: String,
    auth: String,
    agent: String,
}

async fn user(base: &str, email: &str) -> User {
    let auth = api_key_at(base, email).await;
    let agent = call(
        base,
        Method::POST,
        "/agents",
        Some(&auth),
        json!({"title": unique("quota"), "dsl": chat_dsl()}),
    )
    .await;
    let agent = agent.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string();
    User {
        base: base.to_string(),
        auth,
        agent,
    }
}

fn email(prefix: &str) -> String {
    format!("{}@example.com", unique(prefix))
}

impl User {
    /// A run answered as JSON (a new session).
    async fn run(&self, query: &str) -> Answer {
        call(
            &self.base,
            Method::POST,
            "/agents/chat/completions",
            Some(&self.auth),
            json!({"agent_id": self.agent, "query": query}),
        )
        .await
    }

    /// A streaming run, once its first frame arrived: the response and what was read.
    async fn stream(&self, query: &str) -> (reqwest::Response, String) {
        let mut response = reqwest::Client::new()
            .post(format!("{}/api/v1/agents/chat/completions", self.base))
            .header("Authorization", &self.auth)
            .header("Content-Type", "application/json")
            .body(json!({"agent_id": self.agent, "query": query, "stream": true}).to_string())
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status().as_u16(), 200);
        let mut seen = String::new();
        while !seen.contains("\n\n") {
            let chunk = response.chunk().await.expect("a chunk").expect("not ended");
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        (response, seen)
    }

    async fn sessions(&self) -> usize {
        let listed = call(
            &self.base,
            Method::GET,
            &format!("/agents/{}/sessions", self.agent),
            Some(&self.auth),
            Value::Null,
        )
        .await;
        listed.expect(0).as_array().map_or(0, Vec::len)
    }
}

/// The rest of a stream, and its frames.
async fn finish(response: reqwest::Response, mut body: String) -> (String, Vec<Value>) {
    let mut rest = response.bytes_stream();
    while let Some(chunk) = rest.next().await {
        body.push_str(&String::from_utf8_lossy(&chunk.expect("a chunk")));
    }
    let frames = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    (body, frames)
}

/// The answer a stream's `message` frames add up to.
fn answer(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["event"] == "message")
        .filter_map(|f| f["data"]["content"].as_str())
        .collect()
}

/// Asserts a quota's refusal: HTTP 429 with `Retry-After` within `max_wait` seconds, and
/// RAGFlow's envelope (code 102, no `data`) with `message`.
fn assert_refused(answer: &Answer, message: &str, max_wait: u64) {
    assert_eq!(
        (answer.status, answer.code()),
        (429, 102),
        "{}",
        answer.body
    );
    assert_eq!(answer.message(), message);
    assert!(answer.body.get("data").is_none(), "{}", answer.body);
    let wait: u64 = answer.headers["retry-after"]
        .to_str()
        .ok()
        .and_then(|s| s.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=max_wait).contains(&wait), "Retry-After: {wait}");
}

fn limits(concurrent: Option<u64>, per_minute: Option<u64>, tokens: Option<u64>) -> QuotaLimits {
    QuotaLimits {
        concurrent_runs: concurrent,
        runs_per_minute: per_minute,
        tokens_per_day: tokens,
    }
}

/// The clock minute now (the per-minute window).
fn minute() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() / 60)
        .unwrap_or(0)
}

async fn concurrent_runs(coordination: Coordination) {
    let quotas = QuotaConfig {
        default: limits(Some(1), None, None),
        ..QuotaConfig::default()
    };
    let Some(server) = quota_server(coordination, quotas).await else {
        return;
    };
    let base = server.base.as_str();
    let ann = user(base, &email("ann")).await;
    let bob = user(base, &email("bob")).await;
    let (running, seen) = ann.stream("slow please").await;
    // Ann's one run goes on: her next is refused before it starts, and leaves no session.
    let refused = ann.run("another").await;
    assert_refused(
        &refused,
        "Quota exceeded: concurrent runs (1 for this tenant). It frees when one of the tenant's runs ends.",
        1,
    );
    assert_eq!(ann.sessions().await, 1);
    // A message for the busy session that waits its turn (`enqueue`) takes the quota when it
    // runs, not while it waits: it runs after the turn instead of being refused.
    let first: Value = seen
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(Value::Null);
    let queued = {
        let body = json!({"agent_id": ann.agent, "session_id": first["session_id"],
            "query": "queued", "multitask_strategy": "enqueue"});
        let (base, auth) = (ann.base.clone(), ann.auth.clone());
        tokio::spawn(async move {
            let path = "/agents/chat/completions";
            call(&base, Method::POST, path, Some(&auth), body).await
        })
    };
    // Another tenant's quota is its own.
    bob.run("hello").await.expect(0);
    // The run that holds the quota is not cut.
    let (body, frames) = finish(running, seen).await;
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    assert_eq!(
        answer(&frames).split_whitespace().count(),
        SLOW_CHUNKS,
        "{body}"
    );
    queued.await.expect("the queued message ran").expect(0);
    // Its end freed the place.
    ann.run("again").await.expect(0);
}

async fn runs_per_minute(coordination: Coordination) {
    let quotas = QuotaConfig {
        default: limits(None, Some(2), None),
        ..QuotaConfig::default()
    };
    let Some(server) = quota_server(coordination, quotas).await else {
        return;
    };
    let base = server.base.as_str();
    // A minute that turns between the runs starts a new window: the case is tried again.
    for _ in 0..3 {
        let ann = user(base, &email("ann")).await;
        let at = minute();
        ann.run("one").await.expect(0);
        ann.run("two").await.expect(0);
        let third = ann.run("three").await;
        if minute() != at {
            continue;
        }
        let resets = chrono::DateTime::from_timestamp(((at + 1) * 60) as i64, 0)
            .expect("a time")
            .format("%Y-%m-%d %H:%M:%S");
        assert_refused(
            &third,
            &format!(
                "Quota exceeded: runs per minute (2 for this tenant). It resets at {resets} UTC."
            ),
            60,
        );
        assert_eq!(ann.sessions().await, 2);
        return;
    }
    panic!("three runs never fitted in one minute");
}

async fn tokens_per_day(coordination: Coordination) {
    let quotas = QuotaConfig {
        default: limits(None, None, Some(10)),
        ..QuotaConfig::default()
    };
    let Some(server) = quota_server(coordination, quotas).await else {
        return;
    };
    let base = server.base.as_str();
    let ann = user(base, &email("ann")).await;
    // Under the limit when it starts, the run uses more than the day's tokens: it still
    // answers in full, and its usage counts when it ends.
    let question = "one two three four five six seven eight nine ten eleven twelve";
    let (response, seen) = ann.stream(question).await;
    let (body, frames) = finish(response, seen).await;
    assert!(body.ends_with("data:[DONE]\n\n"), "{body}");
    assert!(answer(&frames).contains(question), "{body}");
    let used = frames
        .iter()
        .find(|f| f["event"] == "workflow_finished")
        .and_then(|f| f["data"]["usage"]["total_tokens"].as_u64())
        .expect("the run reports its usage");
    assert!(used > 10, "{used} tokens");
    let refused = ann.run("more").await;
    let tomorrow = chrono::Utc::now().date_naive() + chrono::Days::new(1);
    assert_refused(
        &refused,
        &format!(
            "Quota exceeded: model tokens per day (10 for this tenant; {used} used today). It resets at {tomorrow} 00:00:00 UTC."
        ),
        86_400,
    );
    // Another tenant's day is its own.
    user(base, &email("bob")).await.run("hi").await.expect(0);
}

async fn an_override_by_email(coordination: Coordination) {
    let generous = email("generous");
    let quotas = QuotaConfig {
        default: limits(None, Some(1), None),
        tenants: BTreeMap::from([
            // The email as the operator wrote it; accounts match it in any case.
            (generous.to_uppercase(), limits(None, Some(0), Some(1_000))),
        ]),
    };
    let Some(server) = quota_server(coordination, quotas).await else {
        return;
    };
    let base = server.base.as_str();
    let lifted = user(base, &generous).await;
    for query in ["one", "two", "three"] {
        lifted.run(query).await.expect(0);
    }
    for _ in 0..3 {
        let ann = user(base, &email("ann")).await;
        let at = minute();
        ann.run("one").await.expect(0);
        let second = ann.run("two").await;
        if minute() != at {
            continue;
        }
        assert_eq!(
            (second.status, second.code()),
            (429, 102),
            "{}",
            second.body
        );
        assert!(second
            .message()
            .starts_with("Quota exceeded: runs per minute (1 for this tenant)."));
        return;
    }
    panic!("two runs never fitted in one minute");
}

#[tokio::test]
async fn concurrent_runs_are_limited_per_tenant_in_process() {
    concurrent_runs(Coordination::InProcess).await;
}

#[tokio::test]
async fn concurrent_runs_are_limited_per_tenant_on_redis() {
    concurrent_runs(Coordination::Redis).await;
}

#[tokio::test]
async fn runs_per_minute_are_limited_in_process() {
    runs_per_minute(Coordination::InProcess).await;
}

#[tokio::test]
async fn runs_per_minute_are_limited_on_redis() {
    runs_per_minute(Coordination::Redis).await;
}

#[tokio::test]
async fn model_tokens_per_day_are_counted_after_the_run_in_process() {
    tokens_per_day(Coordination::InProcess).await;
}

#[tokio::test]
async fn model_tokens_per_day_are_counted_after_the_run_on_redis() {
    tokens_per_day(Coordination::Redis).await;
}

#[tokio::test]
async fn an_override_by_email_replaces_the_default_in_process() {
    an_override_by_email(Coordination::InProcess).await;
}

#[tokio::test]
async fn an_override_by_email_replaces_the_default_on_redis() {
    an_override_by_email(Coordination::Redis).await;
}
