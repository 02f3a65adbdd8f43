//! The in-process backend (one replica, no Redis): the same leases and cancel flags as the
//! Redis keys, with their expiries, in maps; run records and checkpoints in the server's
//! database (`runs`), so a crash leaves them behind for the next start. A cancel request
//! reaches the run through [`LocalRuns`] directly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use futures::future::BoxFuture;
use futures::FutureExt;

use super::local_runs::LocalRuns;
use super::quota::QuotaMaps;
use super::webhook_maps::WebhookMaps;
use super::{
    Backend, CoordError, CoordResult, QuotaAsk, QuotaVerdict, RunRecord, CANCEL_TTL, LEASE_TTL,
    QUEUE_ALIVE, ROLLBACK_TTL,
};
use crate::store::{Store, StoreError};

/// A request waiting for a busy session, in the order Redis's sorted set gives: by rank, then
/// by ticket.
struct Waiter {
    rank: f64,
    ticket: String,
    alive_until: Instant,
}

#[derive(Default)]
struct Maps {
    /// session → (token, expiry)
    leases: HashMap<String, (String, Instant)>,
    /// task id → expiry
    cancels: HashMap<String, Instant>,
    /// session → its waiting requests, first to go first
    queues: HashMap<String, Vec<Waiter>>,
    /// session → (the lease token of its run to discard, expiry)
    rollbacks: HashMap<String, (String, Instant)>,
    /// When [`Maps::expire`] last swept.
    swept: Option<Instant>,
}

/// Expired entries are swept at most this often: a sweep walks every map, and reads check
/// expiries themselves, so sweeping on every write would cost a walk per run start.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

impl Maps {
    /// Drops what has expired, so the maps stay as small as Redis would keep them.
    fn expire(&mut self, now: Instant) {
        if self
            .swept
            .is_some_and(|at| now.duration_since(at) < SWEEP_EVERY)
        {
            return;
        }
        self.swept = Some(now);
        self.leases.retain(|_, (_, until)| *until > now);
        self.cancels.retain(|_, until| *until > now);
        self.rollbacks.retain(|_, (_, until)| *until > now);
        self.queues.retain(|_, waiters| {
            waiters.retain(|w| w.alive_until > now);
            !waiters.is_empty()
        });
    }

    /// Whether a live request waits for `session`.
    fn has_waiters(&self, session: &str, now: Instant) -> bool {
        self.queues
            .get(session)
            .is_some_and(|waiters| waiters.iter().any(|w| w.alive_until > now))
    }

    fn holder(&self, session: &str, now: Instant) -> Option<&str> {
        self.leases
            .get(session)
            .filter(|(_, until)| *until > now)
            .map(|(token, _)| token.as_str())
    }
}

pub(crate) struct Local {
    maps: Mutex<Maps>,
    /// Per-tenant quota counters (their own lock: a run's admission never waits on a lease).
    quotas: Mutex<QuotaMaps>,
    /// Webhook rate limits and test-run traces.
    webhooks: Mutex<WebhookMaps>,
    runs: Arc<LocalRuns>,
    store: Store,
}

/// The database failing is the coordinator failing: the same error the caller handles, in
/// the words a client may read (the database's own go to the log).
impl From<StoreError> for CoordError {
    fn from(e: StoreError) -> Self {
        CoordError(format!(
            "the run records could not be read or written: {}",
            e.for_client()
        ))
    }
}

impl Local {
    pub fn new(runs: Arc<LocalRuns>, store: Store) -> Local {
        Local {
            maps: Mutex::default(),
            quotas: Mutex::default(),
            webhooks: Mutex::default(),
            runs,
            store,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Maps> {
        self.maps.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn quotas(&self) -> MutexGuard<'_, QuotaMaps> {
        self.quotas.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn webhooks(&self) -> MutexGuard<'_, WebhookMaps> {
        self.webhooks.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Backend for Local {
    fn queue_claim<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
        rank: f64,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        let free = maps
            .holder(session, now)
            .is_none_or(|holder| holder == token);
        let waiters = maps.queues.entry(session.to_string()).or_default();
        match waiters.iter_mut().find(|w| w.ticket == ticket) {
            Some(waiter) => waiter.alive_until = now + QUEUE_ALIVE,
            None => {
                let at = waiters.partition_point(|w| (w.rank, w.ticket.as_str()) <= (rank, ticket));
                waiters.insert(
                    at,
                    Waiter {
                        rank,
                        ticket: ticket.to_string(),
                        alive_until: now + QUEUE_ALIVE,
                    },
                );
            }
        }
        waiters.retain(|w| w.alive_until > now);
        let first = waiters.first().is_some_and(|w| w.ticket == ticket);
        let taken = first && free;
        if taken {
            waiters.remove(0);
            if waiters.is_empty() {
                maps.queues.remove(session);
            }
            maps.leases
                .insert(session.to_string(), (token.to_string(), now + LEASE_TTL));
            maps.cancels.remove(session);
        }
        futures::future::ready(Ok(taken)).boxed()
    }

    fn queue_leave<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        let mut maps = self.lock();
        if let Some(waiters) = maps.queues.get_mut(session) {
            waiters.retain(|w| w.ticket != ticket);
            if waiters.is_empty() {
                maps.queues.remove(session);
            }
        }
        futures::future::ready(Ok(())).boxed()
    }

    fn mark_rollback<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        let mut maps = self.lock();
        if let Some(holder) = maps.holder(session, now).map(str::to_string) {
            maps.rollbacks
                .insert(session.to_string(), (holder, now + ROLLBACK_TTL));
        }
        futures::future::ready(Ok(())).boxed()
    }

    fn rolled_back<'a>(
        &'a self,
        session: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let marked = self
            .lock()
            .rollbacks
            .get(session)
            .is_some_and(|(holder, until)| holder == token && *until > now);
        futures::future::ready(Ok(marked)).boxed()
    }

    fn acquire<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        maps.expire(now);
        let taken = match maps.holder(session, now) {
            Some(holder) if holder != token => false,
            // A free lease goes to the requests waiting for it first.
            None if maps.has_waiters(session, now) => false,
            _ => {
                maps.leases
                    .insert(session.to_string(), (token.to_string(), now + LEASE_TTL));
                maps.cancels.remove(session);
                true
            }
        };
        futures::future::ready(Ok(taken)).boxed()
    }

    fn refresh<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        let held = match maps.holder(session, now) {
            Some(holder) if holder != token => false,
            _ => {
                maps.leases
                    .insert(session.to_string(), (token.to_string(), now + LEASE_TTL));
                true
            }
        };
        futures::future::ready(Ok(held)).boxed()
    }

    fn release<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        let held = maps.holder(session, now) == Some(token);
        if held {
            maps.leases.remove(session);
        }
        futures::future::ready(Ok(held)).boxed()
    }

    fn is_held<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let held = self.lock().holder(session, Instant::now()).is_some();
        futures::future::ready(Ok(held)).boxed()
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        {
            let mut maps = self.lock();
            maps.expire(now);
            maps.cancels.insert(task_id.to_string(), now + CANCEL_TTL);
        }
        self.runs.cancel(task_id);
        futures::future::ready(Ok(())).boxed()
    }

    fn cancel_requested<'a>(
        &'a self,
        task_ids: &'a [String],
    ) -> BoxFuture<'a, CoordResult<Vec<bool>>> {
        let now = Instant::now();
        let maps = self.lock();
        let flags = task_ids
            .iter()
            .map(|id| maps.cancels.get(id).is_some_and(|until| *until > now))
            .collect();
        futures::future::ready(Ok(flags)).boxed()
    }

    fn put_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move { Ok(self.store.put_run(&record.to_row(run_id), false).await?) }.boxed()
    }

    fn finish_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        {
            let now = Instant::now();
            let mut maps = self.lock();
            if maps.holder(&record.session_id, now) == Some(token) {
                maps.leases.remove(&record.session_id);
            }
        }
        let drop_checkpoint = !record.status.resumable();
        async move {
            Ok(self
                .store
                .put_run(&record.to_row(run_id), drop_checkpoint)
                .await?)
        }
        .boxed()
    }

    fn run<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<RunRecord>>> {
        async move { Ok(self.store.run(run_id).await?.and_then(RunRecord::from_row)) }.boxed()
    }

    fn put_checkpoint<'a>(
        &'a self,
        run_id: &'a str,
        checkpoint: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        async move { Ok(self.store.put_checkpoint(run_id, checkpoint).await?) }.boxed()
    }

    fn checkpoint<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        async move { Ok(self.store.checkpoint(run_id).await?) }.boxed()
    }

    fn last_run<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        async move { Ok(self.store.last_run(session).await?) }.boxed()
    }

    fn quota_admit<'a>(&'a self, ask: &'a QuotaAsk) -> BoxFuture<'a, CoordResult<QuotaVerdict>> {
        let verdict = self.quotas().admit(ask);
        futures::future::ready(Ok(verdict)).boxed()
    }

    fn quota_refresh<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        self.quotas().refresh(tenant, slot, crate::clock::now_ms());
        futures::future::ready(Ok(())).boxed()
    }

    fn quota_release<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
        unstarted_minute: Option<i64>,
    ) -> BoxFuture<'a, CoordResult<()>> {
        self.quotas().release(tenant, slot, unstarted_minute);
        futures::future::ready(Ok(())).boxed()
    }

    fn quota_spend<'a>(
        &'a self,
        tenant: &'a str,
        day: &'a str,
        tokens: u64,
    ) -> BoxFuture<'a, CoordResult<()>> {
        self.quotas().spend(tenant, day, tokens);
        futures::future::ready(Ok(())).boxed()
    }

    fn take_webhook_token<'a>(
        &'a self,
        canvas_id: &'a str,
        capacity: f64,
        rate: f64,
        now_s: f64,
    ) -> BoxFuture<'a, CoordResult<bool>> {
        let taken = self.webhooks().take(canvas_id, capacity, rate, now_s);
        futures::future::ready(Ok(taken)).boxed()
    }

    fn put_webhook_trace<'a>(
        &'a self,
        agent_id: &'a str,
        start: &'a str,
        run: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        self.webhooks().put_trace(agent_id, start, run.to_string());
        futures::future::ready(Ok(())).boxed()
    }

    fn webhook_traces<'a>(
        &'a self,
        agent_id: &'a str,
    ) -> BoxFuture<'a, CoordResult<Vec<(String, String)>>> {
        futures::future::ready(Ok(self.webhooks().traces(agent_id))).boxed()
    }

    fn name(&self) -> &'static str {
        "in-process"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::RunStatus;

    /// A backend on a fresh SQLite file (an in-memory database would be one per pooled
    /// connection).
    async fn local() -> Local {
        let dir = std::env::temp_dir().join(format!(
            "canvasc-local-{}-{}",
            std::process::id(),
            crate::clock::new_id()
        ));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let store = Store::open(&Store::sqlite_url(&dir))
            .await
            .expect("a store");
        Local::new(Arc::default(), store)
    }

    #[tokio::test]
    async fn a_stale_token_neither_refreshes_nor_releases_a_newer_lease() {
        let local = local().await;
        assert!(local.acquire("s", "old").await.unwrap());
        assert!(!local.acquire("s", "new").await.unwrap());
        // The old holder's lease is gone (expired); a newer run takes the session.
        local.lock().leases.remove("s");
        assert!(local.acquire("s", "new").await.unwrap());
        assert!(!local.refresh("s", "old").await.unwrap());
        assert!(!local.release("s", "old").await.unwrap());
        assert!(local.is_held("s").await.unwrap());
        assert!(local.release("s", "new").await.unwrap());
        assert!(!local.is_held("s").await.unwrap());
    }

    #[tokio::test]
    async fn a_run_that_cannot_be_resumed_drops_its_checkpoint_when_it_ends() {
        let local = local().await;
        for (status, kept) in [
            (RunStatus::Failed, true),
            (RunStatus::Cancelled, true),
            (RunStatus::Succeeded, false),
            (RunStatus::Waiting, false),
        ] {
            let record = RunRecord {
                canvas_id: "c".into(),
                tenant_id: "t".into(),
                session_id: "s".into(),
                mode: "compiled".into(),
                status,
                failure_reason: String::new(),
                started_at: 0,
                finished_at: 1,
                user_message: String::new(),
            };
            local.put_run("r", &record).await.unwrap();
            local.put_checkpoint("r", "{}").await.unwrap();
            local.finish_run("r", &record, "token").await.unwrap();
            assert_eq!(
                local.checkpoint("r").await.unwrap().is_some(),
                kept,
                "{status:?}"
            );
        }
    }

    #[tokio::test]
    async fn taking_a_session_clears_a_cancel_left_from_before() {
        let local = local().await;
        local.request_cancel("s").await.unwrap();
        assert_eq!(
            local.cancel_requested(&["s".into()]).await.unwrap(),
            vec![true]
        );
        assert!(local.acquire("s", "t").await.unwrap());
        assert_eq!(
            local.cancel_requested(&["s".into()]).await.unwrap(),
            vec![false]
        );
    }
}
