//! Run coordination across replicas (`spec/architecture.md` §7, "the distributed story"): who
//! runs a session (a lease), cancelling a run from any replica, and the run records. One
//! interface ([`Backend`]), two implementations chosen at start: Redis when `REDIS_URL` is set
//! (RAGFlow's own keys, so its tooling keeps working), in-process otherwise (one replica).
//!
//! The server talks to [`Coordinator`] only; the backends store and signal, and the
//! [`watch`] loop turns what they hold into this replica's runs being cancelled.

mod keys;
mod local;
mod local_runs;
pub mod quota;
mod record;
mod redis_backend;
pub mod scripts;
pub mod streams;
mod watch;
pub(crate) mod webhook_maps;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::clock::new_id;
use crate::envelope::ApiError;
use crate::turn::CancelHandle;
pub use keys::Keys;
use local_runs::LocalRuns;
pub use quota::{QuotaAsk, QuotaVerdict};
pub use record::{RunRecord, RunStatus};
pub use streams::StreamLimits;
use streams::{MemoryStreams, RunStreams};

/// A session's lease lives this long unless refreshed (`agent:active-session:{session}`).
pub const LEASE_TTL: Duration = Duration::from_secs(30);
/// The running replica refreshes its leases this often (a third of the TTL, so two refreshes
/// can fail before another replica may take the session).
pub const LEASE_REFRESH: Duration = Duration::from_secs(10);
/// The cancel keys of this replica's runs are read this often: a lost pub/sub notice costs at
/// most this much latency, never the cancel itself.
pub const CANCEL_POLL: Duration = Duration::from_millis(250);
/// `agent:run:{run_id}` records are kept this long.
pub const RUN_RECORD_TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// Checkpoints (`agent:cp:{run_id}`) are kept this long.
pub const CHECKPOINT_TTL: Duration = Duration::from_secs(30 * 24 * 3600);
/// RAGFlow's `REDIS_CONN.set(f"{task_id}-cancel", "x")` keeps the key its default hour
/// (`rag/utils/redis_conn.py`, `exp=3600`).
pub const CANCEL_TTL: Duration = Duration::from_secs(3600);

/// Why the coordinator could not answer (Redis unreachable, or an answer of the wrong shape;
/// in process, the database its run records are kept in). The text is what a client may read.
#[derive(Debug, Clone)]
pub struct CoordError(pub String);

impl fmt::Display for CoordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CoordError {}

/// RAGFlow answers a Redis failure with its connection-error code (`RetCode.CONNECTION_ERROR`).
impl From<CoordError> for ApiError {
    fn from(e: CoordError) -> Self {
        ApiError::connection(e.to_string())
    }
}

pub type CoordResult<T> = Result<T, CoordError>;

/// What a coordination store does. Every method is one round trip (or none in process).
pub trait Backend: Send + Sync + 'static {
    /// Takes `session`'s lease for `token` (or keeps it when `token` already holds it) and
    /// clears a cancel request left from before; `false` when another token holds it.
    fn acquire<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>>;
    /// Extends the lease while `token` holds it; `false` when it does not any more.
    fn refresh<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>>;
    /// Drops the lease while `token` holds it; `false` (and nothing done) otherwise.
    fn release<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>>;
    /// Whether anyone holds `session`'s lease.
    fn is_held<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<bool>>;
    /// Sets RAGFlow's `{task_id}-cancel` key and tells every replica.
    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, CoordResult<()>>;
    /// Which of `task_ids` have a cancel request, in order.
    fn cancel_requested<'a>(
        &'a self,
        task_ids: &'a [String],
    ) -> BoxFuture<'a, CoordResult<Vec<bool>>>;
    /// Writes the whole record of a run, and makes it the session's latest run.
    fn put_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// Sets the record's end and releases the lease if `token` still holds it, in one step.
    fn finish_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// The record of a run, if kept.
    fn run<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<RunRecord>>>;
    /// Replaces a run's checkpoint (`agent:cp:{run_id}`, [`CHECKPOINT_TTL`]).
    fn put_checkpoint<'a>(
        &'a self,
        run_id: &'a str,
        checkpoint: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// A run's last checkpoint, if kept.
    fn checkpoint<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>>;
    /// The id of the session's latest run ([`Backend::put_run`] records it).
    fn last_run<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>>;
    /// Admits a run under its tenant's quotas in one atomic step (`quota.rs`): counted in its
    /// minute and holding its slot among the running when admitted.
    fn quota_admit<'a>(&'a self, ask: &'a QuotaAsk) -> BoxFuture<'a, CoordResult<QuotaVerdict>>;
    /// Keeps a running run's slot for another [`quota::SLOT_TTL`].
    fn quota_refresh<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// Frees a run's slot; `unstarted_minute`: the admitted run never started, and its
    /// minute's count goes back down.
    fn quota_release<'a>(
        &'a self,
        tenant: &'a str,
        slot: &'a str,
        unstarted_minute: Option<i64>,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// Adds the model tokens a run used to its tenant's count of `day`.
    fn quota_spend<'a>(
        &'a self,
        tenant: &'a str,
        day: &'a str,
        tokens: u64,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// Takes a token from the canvas's webhook bucket (RAGFlow's `rl:tb:{canvas_id}` token
    /// bucket: `capacity` tokens, refilled at `rate` a second); `false` when it has none.
    fn take_webhook_token<'a>(
        &'a self,
        canvas_id: &'a str,
        capacity: f64,
        rate: f64,
        now_s: f64,
    ) -> BoxFuture<'a, CoordResult<bool>>;
    /// Stores the trace of the webhook test run of `agent_id` that started at `start` (its
    /// JSON), replacing the one stored before; the agent's runs expire together, ten minutes
    /// after the last write.
    fn put_webhook_trace<'a>(
        &'a self,
        agent_id: &'a str,
        start: &'a str,
        run: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// The agent's recorded webhook test runs: `(start, trace JSON)`.
    fn webhook_traces<'a>(
        &'a self,
        agent_id: &'a str,
    ) -> BoxFuture<'a, CoordResult<Vec<(String, String)>>>;
    /// Waits in `session`'s queue as `ticket` (`rank`: lower goes first; a ticket keeps the
    /// rank it joined with), which keeps it alive for [`QUEUE_ALIVE`]; takes the lease for
    /// `token` and leaves the queue when `ticket` is the first live waiter and the lease is
    /// free. `true`: taken.
    fn queue_claim<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
        rank: f64,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>>;
    /// Leaves `session`'s queue without a run.
    fn queue_leave<'a>(
        &'a self,
        session: &'a str,
        ticket: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>>;
    /// Marks the run that holds `session`'s lease now, whoever it is (read with the lease in
    /// one step), as one whose turn is discarded when it ends ([`ROLLBACK_TTL`]).
    fn mark_rollback<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<()>>;
    /// Whether the run holding `token`'s lease of `session` is to be discarded.
    fn rolled_back<'a>(
        &'a self,
        session: &'a str,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<bool>>;
    /// `in-process` or `redis`, for the start-up line.
    fn name(&self) -> &'static str;
}

/// A waiting request that stops refreshing its place (its replica died) loses it after this.
pub const QUEUE_ALIVE: Duration = Duration::from_secs(10);
/// A rollback mark names a lease token, so it can match no later run; it goes after an hour.
pub const ROLLBACK_TTL: Duration = Duration::from_secs(3600);

/// A session held by this replica.
#[derive(Clone, Debug)]
pub struct Lease {
    pub session: String,
    pub token: String,
}

/// The server's view of coordination: the backend and this replica's runs.
#[derive(Clone)]
pub struct Coordinator {
    backend: Arc<dyn Backend>,
    runs: Arc<LocalRuns>,
    streams: Arc<dyn RunStreams>,
}

impl Coordinator {
    /// The in-process coordinator (one replica); run records and checkpoints go to `store`,
    /// runs' streams to memory.
    pub fn in_process(store: crate::store::Store, streams: StreamLimits) -> Coordinator {
        let runs = Arc::new(LocalRuns::default());
        let backend = Arc::new(local::Local::new(runs.clone(), store));
        Coordinator::with(backend, runs, Arc::new(MemoryStreams::new(streams)))
    }

    /// The Redis coordinator on `url`, its keys and channel under `prefix` (empty in
    /// production: RAGFlow's own names).
    pub async fn redis(url: &str, prefix: &str, streams: StreamLimits) -> CoordResult<Coordinator> {
        let runs = Arc::new(LocalRuns::default());
        let backend =
            redis_backend::RedisBackend::connect(url, Keys::new(prefix), runs.clone()).await?;
        let streams = Arc::new(backend.streams(streams));
        Ok(Coordinator::with(Arc::new(backend), runs, streams))
    }

    fn with(
        backend: Arc<dyn Backend>,
        runs: Arc<LocalRuns>,
        streams: Arc<dyn RunStreams>,
    ) -> Coordinator {
        tokio::spawn(watch::watch(backend.clone(), runs.clone()));
        Coordinator {
            backend,
            runs,
            streams,
        }
    }

    /// Where runs' event streams are kept for clients that reattach.
    pub fn streams(&self) -> &dyn RunStreams {
        &*self.streams
    }

    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// Takes `session` for a new run; `None` when a run holds it on any replica.
    pub async fn claim(&self, session: &str) -> CoordResult<Option<Lease>> {
        // A run of this replica holds it: no round trip needed to know.
        if self.runs.contains(session) {
            return Ok(None);
        }
        let token = new_id();
        if self.backend.acquire(session, &token).await? {
            Ok(Some(Lease {
                session: session.to_string(),
                token,
            }))
        } else {
            Ok(None)
        }
    }

    /// Gives a lease back without a run (the run could not start).
    pub async fn give_back(&self, lease: &Lease) {
        if let Err(e) = self.backend.release(&lease.session, &lease.token).await {
            eprintln!(
                "canvasc serve: session {}: the lease could not be released ({e}); it expires in {} s",
                lease.session,
                LEASE_TTL.as_secs()
            );
        }
    }

    /// The run holding `lease` starts: its cancel handle answers cancel requests from any
    /// replica, and the lease is refreshed while it lives. (Its record was written before it
    /// started, so its first checkpoint has a record to go with.)
    pub fn started(&self, lease: &Lease, cancel: CancelHandle) {
        self.runs.insert(lease, cancel);
    }

    /// The run ended: its record gets its end and the lease goes, if still this run's.
    pub async fn finished(&self, lease: &Lease, run_id: &str, record: &RunRecord) {
        self.runs.remove(&lease.session);
        if let Err(e) = self.backend.finish_run(run_id, record, &lease.token).await {
            eprintln!(
                "canvasc serve: run {run_id}: the run's end could not be recorded ({e}); the session's lease expires in {} s",
                LEASE_TTL.as_secs()
            );
        }
    }

    /// Whether a run holds `session` on any replica.
    pub async fn is_running(&self, session: &str) -> CoordResult<bool> {
        if self.runs.contains(session) {
            return Ok(true);
        }
        self.backend.is_held(session).await
    }

    /// Cancels the task's run wherever it runs (RAGFlow's cancel key, and a notice).
    pub async fn cancel(&self, task_id: &str) -> CoordResult<()> {
        // This replica's own run stops without waiting for the notice to come back.
        self.runs.cancel(task_id);
        self.backend.request_cancel(task_id).await
    }

    /// Writes a run's record (a run found orphaned, marked failed).
    pub async fn put_run(&self, run_id: &str, record: &RunRecord) -> CoordResult<()> {
        self.backend.put_run(run_id, record).await
    }

    /// A run's record.
    pub async fn run(&self, run_id: &str) -> CoordResult<Option<RunRecord>> {
        self.backend.run(run_id).await
    }

    /// Stores a run's latest checkpoint.
    pub async fn put_checkpoint(&self, run_id: &str, checkpoint: &str) -> CoordResult<()> {
        self.backend.put_checkpoint(run_id, checkpoint).await
    }

    /// A run's latest checkpoint (JSON text).
    pub async fn checkpoint(&self, run_id: &str) -> CoordResult<Option<String>> {
        self.backend.checkpoint(run_id).await
    }

    /// The session's latest run id.
    pub async fn last_run(&self, session: &str) -> CoordResult<Option<String>> {
        self.backend.last_run(session).await
    }

    /// Admits a run under its tenant's quotas (`crate::quota`).
    pub async fn quota_admit(&self, ask: &QuotaAsk) -> CoordResult<QuotaVerdict> {
        self.backend.quota_admit(ask).await
    }

    /// Keeps a running run's quota slot.
    pub async fn quota_refresh(&self, tenant: &str, slot: &str) -> CoordResult<()> {
        self.backend.quota_refresh(tenant, slot).await
    }

    /// Frees a run's quota slot (and its minute's count, when it never started).
    pub async fn quota_release(
        &self,
        tenant: &str,
        slot: &str,
        unstarted_minute: Option<i64>,
    ) -> CoordResult<()> {
        self.backend
            .quota_release(tenant, slot, unstarted_minute)
            .await
    }

    /// Takes a token from a canvas's webhook rate-limit bucket.
    pub async fn take_webhook_token(
        &self,
        canvas_id: &str,
        capacity: f64,
        rate: f64,
        now_s: f64,
    ) -> CoordResult<bool> {
        self.backend
            .take_webhook_token(canvas_id, capacity, rate, now_s)
            .await
    }

    /// Stores a webhook test run's trace.
    pub async fn put_webhook_trace(
        &self,
        agent_id: &str,
        start: &str,
        run: &str,
    ) -> CoordResult<()> {
        self.backend.put_webhook_trace(agent_id, start, run).await
    }

    /// An agent's recorded webhook test runs.
    pub async fn webhook_traces(&self, agent_id: &str) -> CoordResult<Vec<(String, String)>> {
        self.backend.webhook_traces(agent_id).await
    }

    /// Takes `session` for a waiting request (`ticket`, ranked `rank`) once it is its turn;
    /// `None`: not yet. Call again within [`QUEUE_ALIVE`] to keep the place.
    pub async fn claim_queued(
        &self,
        session: &str,
        ticket: &str,
        rank: f64,
    ) -> CoordResult<Option<Lease>> {
        let token = new_id();
        let taken = self
            .backend
            .queue_claim(session, ticket, rank, &token)
            .await?;
        Ok(taken.then(|| Lease {
            session: session.to_string(),
            token,
        }))
    }

    /// A waiting request gives up its place.
    pub async fn leave_queue(&self, session: &str, ticket: &str) -> CoordResult<()> {
        self.backend.queue_leave(session, ticket).await
    }

    /// The turn of the run holding `session` now is discarded when it ends (it is being
    /// cancelled for a rollback).
    pub async fn mark_rollback(&self, session: &str) -> CoordResult<()> {
        self.backend.mark_rollback(session).await
    }

    /// Whether the turn of the run holding `lease` is to be discarded.
    pub async fn rolled_back(&self, lease: &Lease) -> CoordResult<bool> {
        self.backend.rolled_back(&lease.session, &lease.token).await
    }

    /// Counts the model tokens a run used on `day`.
    pub async fn quota_spend(&self, tenant: &str, day: &str, tokens: u64) -> CoordResult<()> {
        self.backend.quota_spend(tenant, day, tokens).await
    }
}
