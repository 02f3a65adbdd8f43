//! The Redis backend: one multiplexed connection that reconnects by itself
//! ([`ConnectionManager`]) for commands and scripts, and a pub/sub connection of its own on
//! which cancel notices arrive. A lost subscription is re-made after a pause; meanwhile the
//! watch loop's polling still cancels (later, never not at all).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Client, Script};

use super::local_runs::LocalRuns;
use super::quota::{DAY_KEY_TTL, MINUTE_KEY_TTL, SLOT_TTL};
use super::webhook_maps::{TRACE_RUNS, TRACE_TTL};
use super::{
    scripts, Backend, CoordError, CoordResult, Keys, QuotaAsk, QuotaVerdict, RunRecord, CANCEL_TTL,
    CHECKPOINT_TTL, LEASE_TTL, RUN_RECORD_TTL,
};

/// A command unanswered this long fails (the request that needed it gets an error) instead
/// of hanging while Redis is unreachable.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(2);
const RECONNECT_ATTEMPTS: usize = 2;
const RECONNECT_MAX_DELAY: Duration = Duration::from_millis(500);
/// Pause before the pub/sub connection is tried again.
const RESUBSCRIBE_AFTER: Duration = Duration::from_millis(500);

fn failed(e: redis::RedisError) -> CoordError {
    CoordError(format!("the run coordinator (Redis) failed: {e}"))
}

pub(crate) struct RedisBackend {
    client: Client,
    conn: ConnectionManager,
    keys: Keys,
    acquire: Script,
    refresh: Script,
    release: Script,
    finish: Script,
    quota_admit: Script,
    quota_release: Script,
    token_bucket: Script,
    queue_claim: Script,
    mark_rollback: Script,
}

impl RedisBackend {
    /// Connects (failing at start when Redis is unreachable, so a misconfigured replica does
    /// not serve) and starts listening for cancel notices.
    pub async fn connect(url: &str, keys: Keys, runs: Arc<LocalRuns>) -> CoordResult<RedisBackend> {
        let client = Client::open(url).map_err(|e| {
            CoordError(format!(
                "the run coordinator (Redis) failed: REDIS_URL: {e}"
            ))
        })?;
        // Few, short reconnect attempts: a command waits for the reconnection it triggers, so
        // this bounds how long a request waits while Redis is down; the next command retries.
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECTION_TIMEOUT))
            .set_number_of_retries(RECONNECT_ATTEMPTS)
            .set_max_delay(RECONNECT_MAX_DELAY);
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(failed)?;
        tokio::spawn(listen(client.clone(), keys.cancel_channel(), runs));
        Ok(RedisBackend {
            client,
            conn,
            keys,
            acquire: Script::new(scripts::ACQUIRE),
            refresh: Script::new(scripts::REFRESH),
            release: Script::new(scripts::RELEASE),
            finish: Script::new(scripts::FINISH),
            quota_admit: Script::new(scripts::QUOTA_ADMIT),
            quota_release: Script::new(scripts::QUOTA_RELEASE),
            token_bucket: Script::new(scripts::TOKEN_BUCKET),
            queue_claim: Script::new(scripts::QUEUE_CLAIM),
            mark_rollback: Script::new(scripts::MARK_ROLLBACK),
        })
    }

    /// Runs' kept streams on the same Redis.
    pub fn streams(&self, limits: super::StreamLimits) -> super::streams::RedisStreams {
        super::streams::RedisStreams::new(
            self.client.clone(),
            self.conn.clone(),
            self.keys.clone(),
            limits,
        )
    }

    fn ttl_ms() -> u64 {
        LEASE_TTL.as_millis() as u64
    }
}

/// Cancel notices: each message names a task; the run of that task here, if any, is
/// cancelled. Reconnects until the local runs are gone.
async fn listen(client: Client, channel: String, runs: Arc<LocalRuns>) {
    let runs = Arc::downgrade(&runs);
    loop {
        if runs.strong_count() == 0 {
            return;
        }
        match client.get_async_pubsub().await {
            Ok(mut pubsub) => {
                if let Err(e) = pubsub.subscribe(&channel).await {
                    eprintln!("canvasc serve: cannot subscribe to cancel notices: {e}");
                } else {
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        let Ok(task_id) = message.get_payload::<String>() else {
                            continue;
                        };
                        let Some(runs) = runs.upgrade() else { return };
                        runs.cancel(&task_id);
                    }
                }
            }
            Err(_) => {
                // Unreachable: the watch loop reports the outage once; polling covers it.
            }
        }
        tokio::time::sleep(RESUBSCRIBE_AFTER).await;
    }
}

impl Backend for RedisBackend {
    fn queue_claim<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
        rank: f64,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let (queue, alive) = self.keys.session_queue(session);
            let taken: i64 = self
                .queue_claim
                .key(queue)
                .key(alive)
                .key(self.keys.lease(session))
                .key(self.keys.cancel(session))
                .arg(ticket)
                .arg(rank)
                .arg(super::QUEUE_ALIVE.as_millis() as u64)
                .arg(token)
                .arg(Self::ttl_ms())
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(taken == 1)
        }
        .boxed()
    }

    fn queue_leave<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let (queue, alive) = self.keys.session_queue(session);
            let () = redis::pipe()
                .zrem(queue, ticket)
                .ignore()
                .hdel(alive, ticket)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn mark_rollback<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let _: i64 = self
                .mark_rollback
                .key(self.keys.lease(session))
                .key(self.keys.rollback(session))
                .arg(super::ROLLBACK_TTL.as_secs())
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn rolled_back<'a>(
        &'a self,
        session: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let marked: Option<String> = conn
                .get(self.keys.rollback(session))
                .await
                .map_err(failed)?;
            Ok(marked.as_deref() == Some(token))
        }
        .boxed()
    }

    fn acquire<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let taken: i64 = self
                .acquire
                .key(self.keys.lease(session))
                .key(self.keys.cancel(session))
                .key(self.keys.session_queue(session).1)
                .arg(token)
                .arg(Self::ttl_ms())
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(taken == 1)
        }
        .boxed()
    }

    fn refresh<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let held: i64 = self
                .refresh
                .key(self.keys.lease(session))
                .arg(token)
                .arg(Self::ttl_ms())
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(held == 1)
        }
        .boxed()
    }

    fn release<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let released: i64 = self
                .release
                .key(self.keys.lease(session))
                .arg(token)
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(released == 1)
        }
        .boxed()
    }

    fn is_held<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let held: bool = conn
                .exists(self.keys.lease(session))
                .await
                .map_err(failed)?;
            Ok(held)
        }
        .boxed()
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            // One round trip: the key first, so a replica woken by the notice finds it set.
            let () = redis::pipe()
                .set_ex(self.keys.cancel(task_id), "x", CANCEL_TTL.as_secs())
                .ignore()
                .publish(self.keys.cancel_channel(), task_id)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn cancel_requested<'a>(
        &'a self,
        task_ids: &'a [String],
    ) -> BoxFuture<'a, CoordResult<Vec<bool>>> {
        async move {
            if task_ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut conn = self.conn.clone();
            let keys: Vec<String> = task_ids.iter().map(|id| self.keys.cancel(id)).collect();
            let values: Vec<Option<String>> = redis::cmd("MGET")
                .arg(&keys)
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(values.into_iter().map(|v| v.is_some()).collect())
        }
        .boxed()
    }

    fn put_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let key = self.keys.run(run_id);
            let () = redis::pipe()
                .hset_multiple(&key, &record.fields())
                .ignore()
                .expire(&key, RUN_RECORD_TTL.as_secs() as i64)
                .ignore()
                .set_ex(
                    self.keys.session_run(&record.session_id),
                    run_id,
                    RUN_RECORD_TTL.as_secs(),
                )
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn finish_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let mut invocation = self.finish.key(self.keys.run(run_id));
            invocation
                .key(self.keys.lease(&record.session_id))
                .key(self.keys.checkpoint(run_id))
                .arg(RUN_RECORD_TTL.as_secs())
                .arg(token)
                .arg(if record.status.resumable() { "1" } else { "0" });
            for (field, value) in record.fields() {
                invocation.arg(field).arg(value);
            }
            let _released: i64 = invocation.invoke_async(&mut conn).await.map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn run<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<RunRecord>>> {
        async move {
            let mut conn = self.conn.clone();
            let fields: BTreeMap<String, String> =
                conn.hgetall(self.keys.run(run_id)).await.map_err(failed)?;
            Ok(RunRecord::from_fields(&fields))
        }
        .boxed()
    }

    fn put_checkpoint<'a>(
        &'a self,
        run_id: &'a str,
        checkpoint: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let () = conn
                .set_ex(
                    self.keys.checkpoint(run_id),
                    checkpoint,
                    CHECKPOINT_TTL.as_secs(),
                )
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn checkpoint<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        async move {
            let mut conn = self.conn.clone();
            conn.get(self.keys.checkpoint(run_id)).await.map_err(failed)
        }
        .boxed()
    }

    fn last_run<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        async move {
            let mut conn = self.conn.clone();
            conn.get(self.keys.session_run(session))
                .await
                .map_err(failed)
        }
        .boxed()
    }

    fn quota_admit<'a>(&'a self, ask: &'a QuotaAsk) -> BoxFuture<'a, CoordResult<QuotaVerdict>> {
        async move {
            let mut conn = self.conn.clone();
            let (kind, used): (i64, i64) = self
                .quota_admit
                .key(self.keys.quota_running(&ask.tenant))
                .key(self.keys.quota_minute(&ask.tenant, ask.minute()))
                .key(self.keys.quota_tokens(&ask.tenant, &ask.day()))
                .arg(&ask.slot)
                .arg(ask.now_ms)
                .arg(SLOT_TTL.as_millis() as u64)
                .arg(ask.concurrent_runs)
                .arg(ask.runs_per_minute)
                .arg(ask.tokens_per_day)
                .arg(MINUTE_KEY_TTL.as_secs())
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(QuotaVerdict::from_reply(kind, used))
        }
        .boxed()
    }

    fn quota_refresh<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let key = self.keys.quota_running(tenant);
            let ttl = SLOT_TTL.as_millis() as i64;
            let () = redis::pipe()
                .zadd(&key, slot, crate::clock::now_ms() + ttl)
                .ignore()
                .pexpire(&key, ttl)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn quota_release<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
        unstarted_minute: Option<i64>,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let minute = unstarted_minute.unwrap_or_default();
            let _: i64 = self
                .quota_release
                .key(self.keys.quota_running(tenant))
                .key(self.keys.quota_minute(tenant, minute))
                .arg(slot)
                .arg(if unstarted_minute.is_some() { "1" } else { "0" })
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn quota_spend<'a>(
        &'a self,
        tenant: &'a str,
        day: &'a str,
        tokens: u64,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let key = self.keys.quota_tokens(tenant, day);
            let () = redis::pipe()
                .incr(&key, tokens)
                .ignore()
                .expire(&key, DAY_KEY_TTL.as_secs() as i64)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(())
        }
        .boxed()
    }

    fn take_webhook_token<'a>(
        &'a self,
        canvas_id: &'a str,
        capacity: f64,
        rate: f64,
        now_s: f64,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        async move {
            let mut conn = self.conn.clone();
            let (taken, _tokens): (i64, String) = self
                .token_bucket
                .key(self.keys.webhook_bucket(canvas_id))
                .arg(capacity)
                .arg(rate)
                .arg(now_s)
                .arg(1)
                .invoke_async(&mut conn)
                .await
                .map_err(failed)?;
            Ok(taken == 1)
        }
        .boxed()
    }

    fn put_webhook_trace<'a>(
        &'a self,
        agent_id: &'a str,
        start: &'a str,
        run: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move {
            let mut conn = self.conn.clone();
            let key = self.keys.webhook_trace(agent_id);
            let (_, _, runs): ((), (), usize) = redis::pipe()
                .atomic()
                .hset(&key, start, run)
                .expire(&key, TRACE_TTL.as_secs() as i64)
                .hlen(&key)
                .query_async(&mut conn)
                .await
                .map_err(failed)?;
            if runs > TRACE_RUNS {
                // The oldest runs go (start times are the fields).
                let mut starts: Vec<String> = conn.hkeys(&key).await.map_err(failed)?;
                starts.sort_by(|a, b| {
                    let t = |s: &String| s.parse::<f64>().unwrap_or(0.0);
                    t(a).total_cmp(&t(b))
                });
                let extra: Vec<String> = starts.into_iter().take(runs - TRACE_RUNS).collect();
                if !extra.is_empty() {
                    let _: () = conn.hdel(&key, extra).await.map_err(failed)?;
                }
            }
            Ok(())
        }
        .boxed()
    }

    fn webhook_traces<'a>(
        &'a self,
        agent_id: &'a str,
    ) -> BoxFuture<'a, CoordResult<Vec<(String, String)>>> {
        async move {
            let mut conn = self.conn.clone();
            let runs: Vec<(String, String)> = conn
                .hgetall(self.keys.webhook_trace(agent_id))
                .await
                .map_err(failed)?;
            Ok(runs)
        }
        .boxed()
    }

    fn name(&self) -> &'static str {
        "redis"
    }
}
