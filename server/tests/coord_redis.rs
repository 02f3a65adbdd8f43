//! The coordinator against a real Redis (`REDIS_URL`, default the machine's 127.0.0.1:6379),
//! each test under a key prefix of its own so parallel runs never meet: the Lua scripts'
//! compare-and-act (a stale lease holder's refresh and release are ignored), and two
//! coordinators — two replicas — sharing one Redis: the lease refuses the second, and a cancel
//! given to one reaches the run registered with the other. Redis unreachable skips the suite,
//! except under `CANVASC_REQUIRE_SHARED=1` or `CI`, where it fails.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use canvasc_server::coord::{scripts, Coordinator, RunRecord, RunStatus};
use redis::AsyncCommands;

fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn required() -> bool {
    std::env::var("CANVASC_REQUIRE_SHARED").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

/// A connection, or `None` (the test skips) when Redis is unreachable outside CI.
async fn connect() -> Option<redis::aio::MultiplexedConnection> {
    let url = redis_url();
    let attempt = async {
        let client = redis::Client::open(url.as_str())?;
        client.get_multiplexed_async_connection().await
    };
    match tokio::time::timeout(Duration::from_secs(3), attempt).await {
        Ok(Ok(conn)) => Some(conn),
        outcome => {
            let why = match outcome {
                Ok(Err(e)) => e.to_string(),
                _ => "no answer in 3 s".into(),
            };
            assert!(!required(), "Redis at {url} is unreachable: {why}");
            eprintln!("skipped: Redis at {url} is unreachable: {why}");
            None
        }
    }
}

/// A key prefix no other test or run uses.
fn prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("canvasc-test:{test}:{}:{nanos:x}:", std::process::id())
}

/// Deletes what a test left under its prefix.
async fn clean(conn: &mut redis::aio::MultiplexedConnection, prefix: &str) {
    let keys: Vec<String> = conn.keys(format!("{prefix}*")).await.unwrap_or_default();
    if !keys.is_empty() {
        let _: Result<(), _> = conn.del(keys).await;
    }
}

async fn eval(
    conn: &mut redis::aio::MultiplexedConnection,
    script: &str,
    keys: &[&str],
    args: &[&str],
) -> i64 {
    let script = redis::Script::new(script);
    let mut invocation = script.prepare_invoke();
    for key in keys {
        invocation.key(*key);
    }
    for arg in args {
        invocation.arg(*arg);
    }
    invocation
        .invoke_async(conn)
        .await
        .expect("the script runs")
}

#[tokio::test]
async fn a_stale_lease_holders_refresh_and_release_are_ignored() {
    let Some(mut conn) = connect().await else {
        return;
    };
    let p = prefix("lease");
    let lease = format!("{p}agent:active-session:s1");
    let cancel = format!("{p}s1-cancel");
    let waiters = format!("{p}agent:session-queue-alive:s1");
    let _: () = conn.set(&cancel, "x").await.expect("set");
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &waiters],
            &["old", "30000"]
        )
        .await,
        1
    );
    // Taking the session cleared the cancel request left from before.
    let left: bool = conn.exists(&cancel).await.expect("exists");
    assert!(!left);
    // Busy for anyone else; the holder may take it again.
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &waiters],
            &["new", "30000"]
        )
        .await,
        0
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &waiters],
            &["old", "30000"]
        )
        .await,
        1
    );
    // The old holder's lease expires (it stalled), and a newer run takes the session.
    let _: () = conn.del(&lease).await.expect("del");
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &waiters],
            &["new", "30000"]
        )
        .await,
        1
    );
    // The stale holder can neither extend nor drop the newer run's lease, nor end it.
    assert_eq!(
        eval(&mut conn, scripts::REFRESH, &[&lease], &["old", "30000"]).await,
        0
    );
    assert_eq!(
        eval(&mut conn, scripts::RELEASE, &[&lease], &["old"]).await,
        0
    );
    let run = format!("{p}agent:run:m1");
    let checkpoint = format!("{p}agent:cp:m1");
    let _: () = conn.set(&checkpoint, "{}").await.expect("set");
    assert_eq!(
        eval(
            &mut conn,
            scripts::FINISH,
            &[&run, &lease, &checkpoint],
            &["60", "old", "1", "status", "failed"]
        )
        .await,
        0
    );
    // A failed run may be resumed: its checkpoint stays.
    let kept: bool = conn.exists(&checkpoint).await.expect("exists");
    assert!(kept);
    let holder: Option<String> = conn.get(&lease).await.expect("get");
    assert_eq!(holder.as_deref(), Some("new"));
    // The holder refreshes (the TTL is set again) and releases.
    let _: () = conn.pexpire(&lease, 1000).await.expect("pexpire");
    assert_eq!(
        eval(&mut conn, scripts::REFRESH, &[&lease], &["new", "30000"]).await,
        1
    );
    let ttl: i64 = conn.pttl(&lease).await.expect("pttl");
    assert!(ttl > 20_000, "{ttl}");
    assert_eq!(
        eval(&mut conn, scripts::RELEASE, &[&lease], &["new"]).await,
        1
    );
    // A lease lost with its key (a Redis restart) is taken again by its holder's refresh.
    assert_eq!(
        eval(&mut conn, scripts::REFRESH, &[&lease], &["new", "30000"]).await,
        1
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::FINISH,
            &[&run, &lease, &checkpoint],
            &["60", "new", "0", "status", "succeeded"]
        )
        .await,
        1
    );
    // A finished run has nothing to resume: its checkpoint goes with the record's end.
    let kept: bool = conn.exists(&checkpoint).await.expect("exists");
    assert!(!kept);
    let status: Option<String> = conn.hget(&run, "status").await.expect("hget");
    assert_eq!(status.as_deref(), Some("succeeded"));
    let ttl: i64 = conn.ttl(&run).await.expect("ttl");
    assert!((1..=60).contains(&ttl), "{ttl}");
    clean(&mut conn, &p).await;
}

fn record(session: &str, status: RunStatus) -> RunRecord {
    RunRecord {
        canvas_id: "agent-1".into(),
        tenant_id: "tenant-1".into(),
        session_id: session.into(),
        mode: "interpreted".into(),
        status,
        failure_reason: String::new(),
        started_at: 1_700_000_000_000,
        finished_at: 0,
        user_message: String::new(),
    }
}

#[tokio::test]
async fn two_replicas_share_the_lease_the_cancel_and_the_run_record() {
    let Some(mut conn) = connect().await else {
        return;
    };
    let p = prefix("replicas");
    let a = Coordinator::redis(&redis_url(), &p, Default::default())
        .await
        .expect("A connects");
    let b = Coordinator::redis(&redis_url(), &p, Default::default())
        .await
        .expect("B connects");
    assert_eq!(a.backend_name(), "redis");
    let lease = a
        .claim("s1")
        .await
        .expect("claim")
        .expect("the session is free");
    assert!(b.claim("s1").await.expect("claim").is_none());
    assert!(b.is_running("s1").await.expect("is_running"));
    let fired = Arc::new(AtomicUsize::new(0));
    let count = fired.clone();
    let running = record("s1", RunStatus::Running);
    a.put_run("m1", &running).await.expect("put_run");
    a.started(
        &lease,
        Arc::new(move || {
            count.fetch_add(1, Ordering::SeqCst);
        }),
    );
    assert_eq!(b.run("m1").await.expect("run"), Some(running.clone()));
    // The subscription of A may still be on its way: wait until a notice gets through.
    let asked = Instant::now();
    b.cancel("s1").await.expect("cancel");
    while fired.load(Ordering::SeqCst) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(3),
            "the cancel never reached A"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // RAGFlow's key, as its tooling reads it: `x`, with its hour.
    let flag: Option<String> = conn.get(format!("{p}s1-cancel")).await.expect("get");
    assert_eq!(flag.as_deref(), Some("x"));
    let ttl: i64 = conn.ttl(format!("{p}s1-cancel")).await.expect("ttl");
    assert!((3500..=3600).contains(&ttl), "{ttl}");
    let mut ended = record("s1", RunStatus::Cancelled);
    ended.finished_at = 1_700_000_001_000;
    a.finished(&lease, "m1", &ended).await;
    assert_eq!(b.run("m1").await.expect("run"), Some(ended));
    let fields: BTreeMap<String, String> = conn
        .hgetall(format!("{p}agent:run:m1"))
        .await
        .expect("hgetall");
    assert_eq!(fields["status"], "cancelled");
    assert_eq!(fields["mode"], "interpreted");
    let ttl: i64 = conn.ttl(format!("{p}agent:run:m1")).await.expect("ttl");
    assert!(ttl > 29 * 24 * 3600, "{ttl}");
    // The session is free for either replica, and the old cancel does not stop the next run.
    assert!(!a.is_running("s1").await.expect("is_running"));
    let next = b.claim("s1").await.expect("claim").expect("free again");
    let flag: bool = conn.exists(format!("{p}s1-cancel")).await.expect("exists");
    assert!(!flag, "taking the session clears the old cancel");
    b.give_back(&next).await;
    clean(&mut conn, &p).await;
}

#[tokio::test]
async fn a_cancel_whose_notice_is_lost_still_lands_by_polling() {
    let Some(mut conn) = connect().await else {
        return;
    };
    let p = prefix("poll");
    let a = Coordinator::redis(&redis_url(), &p, Default::default())
        .await
        .expect("A connects");
    let lease = a.claim("s2").await.expect("claim").expect("free");
    let fired = Arc::new(AtomicUsize::new(0));
    let count = fired.clone();
    a.put_run("m2", &record("s2", RunStatus::Running))
        .await
        .expect("put_run");
    a.started(
        &lease,
        Arc::new(move || {
            count.fetch_add(1, Ordering::SeqCst);
        }),
    );
    // The key alone, as RAGFlow's own `cancel_task` writes it (no notice).
    let _: () = conn
        .set_ex(format!("{p}s2-cancel"), "x", 3600)
        .await
        .expect("set");
    let asked = Instant::now();
    while fired.load(Ordering::SeqCst) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "polling never saw the key"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    a.finished(&lease, "m2", &record("s2", RunStatus::Cancelled))
        .await;
    clean(&mut conn, &p).await;
}

/// Per-tenant quota counters are shared by two replicas, and every key they write expires.
#[tokio::test]
async fn two_replicas_share_a_tenants_quota_counters_and_every_key_expires() {
    use canvasc_server::coord::quota::{day_of, DAY_KEY_TTL, MINUTE_KEY_TTL, SLOT_TTL};
    use canvasc_server::coord::{QuotaAsk, QuotaVerdict};
    let Some(mut conn) = connect().await else {
        return;
    };
    let p = prefix("quota");
    let one = Coordinator::redis(&redis_url(), &p, Default::default())
        .await
        .expect("replica one");
    let two = Coordinator::redis(&redis_url(), &p, Default::default())
        .await
        .expect("replica two");
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    let ask = |slot: &str| QuotaAsk {
        tenant: "t1".into(),
        slot: slot.into(),
        concurrent_runs: 1,
        runs_per_minute: 2,
        tokens_per_day: 50,
        now_ms,
    };
    assert_eq!(
        one.quota_admit(&ask("a")).await.expect("admit"),
        QuotaVerdict::Admitted
    );
    // The other replica sees the run going on.
    assert_eq!(
        two.quota_admit(&ask("b")).await.expect("admit"),
        QuotaVerdict::ConcurrentRuns
    );
    let running = format!("{p}agent:quota:running:t1");
    let minute = format!("{p}agent:quota:runs:t1:{}", ask("a").minute());
    let tokens = format!("{p}agent:quota:tokens:t1:{}", day_of(now_ms));
    let ttl: i64 = conn.pttl(&running).await.expect("pttl");
    assert!(
        (1..=SLOT_TTL.as_millis() as i64).contains(&ttl),
        "{running}: {ttl}"
    );
    let ttl: i64 = conn.ttl(&minute).await.expect("ttl");
    assert!(
        (1..=MINUTE_KEY_TTL.as_secs() as i64).contains(&ttl),
        "{minute}: {ttl}"
    );
    // The run ends on replica one, having used 60 tokens; replica two's next run is over
    // the day's tokens.
    one.quota_spend("t1", &day_of(now_ms), 60)
        .await
        .expect("spend");
    one.quota_release("t1", "a", None).await.expect("release");
    let ttl: i64 = conn.ttl(&tokens).await.expect("ttl");
    assert!(
        (1..=DAY_KEY_TTL.as_secs() as i64).contains(&ttl),
        "{tokens}: {ttl}"
    );
    assert_eq!(
        two.quota_admit(&ask("b")).await.expect("admit"),
        QuotaVerdict::TokensPerDay { used: 60 }
    );
    // Without the tokens limit: a second run fits the minute, a third does not; a run that
    // never started gives its place in the minute back.
    let mut no_tokens = ask("b");
    no_tokens.tokens_per_day = 0;
    assert_eq!(
        two.quota_admit(&no_tokens).await.expect("admit"),
        QuotaVerdict::Admitted
    );
    two.quota_release("t1", "b", Some(no_tokens.minute()))
        .await
        .expect("release");
    no_tokens.slot = "c".into();
    assert_eq!(
        one.quota_admit(&no_tokens).await.expect("admit"),
        QuotaVerdict::Admitted
    );
    no_tokens.slot = "d".into();
    one.quota_release("t1", "c", None).await.expect("release");
    assert_eq!(
        two.quota_admit(&no_tokens).await.expect("admit"),
        QuotaVerdict::RunsPerMinute
    );
    clean(&mut conn, &p).await;
}

#[tokio::test]
async fn a_free_session_goes_to_its_waiting_requests_first_urgent_ones_ahead() {
    let Some(mut conn) = connect().await else {
        return;
    };
    let p = prefix("queue");
    let lease = format!("{p}agent:active-session:s1");
    let cancel = format!("{p}s1-cancel");
    let queue = format!("{p}agent:session-queue:s1");
    let alive = format!("{p}agent:session-queue-alive:s1");
    let keys = [
        queue.as_str(),
        alive.as_str(),
        lease.as_str(),
        cancel.as_str(),
    ];
    // A run holds the session; an enqueued request and then an interrupting one wait.
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &alive],
            &["running", "30000"]
        )
        .await,
        1
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["enqueued", "1000", "10000", "t1", "30000"]
        )
        .await,
        0
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["urgent", "-9000", "10000", "t2", "30000"]
        )
        .await,
        0
    );
    // The run ends: a new request cannot take the free session while requests wait, nor can
    // the enqueued one, behind the interrupting one.
    let _: () = conn.del(&lease).await.expect("del");
    assert_eq!(
        eval(
            &mut conn,
            scripts::ACQUIRE,
            &[&lease, &cancel, &alive],
            &["newcomer", "30000"]
        )
        .await,
        0
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["enqueued", "1000", "10000", "t1", "30000"]
        )
        .await,
        0
    );
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["urgent", "-9000", "10000", "t2", "30000"]
        )
        .await,
        1
    );
    let holder: String = conn.get(&lease).await.expect("get");
    assert_eq!(holder, "t2");
    // Then the enqueued one, once the session is free again.
    let _: () = conn.del(&lease).await.expect("del");
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["enqueued", "1000", "10000", "t1", "30000"]
        )
        .await,
        1
    );
    // A waiter that stopped refreshing loses its place.
    let _: () = conn.del(&lease).await.expect("del");
    let _: () = conn.hset(&alive, "gone", 1).await.expect("hset");
    let _: () = conn.zadd(&queue, "gone", -1e14).await.expect("zadd");
    assert_eq!(
        eval(
            &mut conn,
            scripts::QUEUE_CLAIM,
            &keys,
            &["next", "2000", "10000", "t3", "30000"]
        )
        .await,
        1
    );
    clean(&mut conn, &p).await;
}
