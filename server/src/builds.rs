//! Publishing compiles: releasing a version queues the build of its program, and a builder
//! loop on every replica that can build claims queued builds (one replica per program key,
//! under a lease in the database) and hands them to the host's [`ProgramBuilder`], which
//! compiles out of this process and puts the program where every turn runner finds it. The
//! version serves on the interpreter meanwhile; a failed build leaves it there, and can be
//! retried.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::{Notify, Semaphore};

use crate::clock::{new_id, now_ms};
use crate::store::{BuildJob, Store, StoreError};
use crate::telemetry::metrics::Metrics;

/// How long a claim holds without renewal; the builder renews it a few times as often.
const LEASE: Duration = Duration::from_secs(60);

/// How often the queue is looked at when nothing announced a build (another replica's
/// release, a lease that ran out).
const POLL: Duration = Duration::from_secs(2);

/// The longest build log kept (its end, where the errors are).
pub const LOG_BYTES: usize = 256 << 10;

/// What a finished build says.
pub struct BuildOutcome {
    pub result: Result<(), String>,
    /// What the build printed (its last [`LOG_BYTES`] are kept).
    pub log: String,
}

/// Compiles programs: the host's side of publishing.
pub trait ProgramBuilder: Send + Sync + 'static {
    /// The engine version programs are built for: part of every program key, so a server of
    /// another engine never takes a program built for this one.
    fn engine_version(&self) -> &str;

    /// Why this process cannot build (no Rust toolchain, no canvasc source tree); `None` when
    /// it can.
    fn unavailable(&self) -> Option<String>;

    /// Builds the program of `job` and installs it where turn runners find it.
    fn build(&self, job: BuildJob) -> BoxFuture<'static, BuildOutcome>;
}

/// The builds of one server.
pub(crate) struct Builds {
    builder: Arc<dyn ProgramBuilder>,
    /// Wakes the builder loop when this replica queued one.
    queued: Arc<Notify>,
}

impl Builds {
    pub fn new(builder: Arc<dyn ProgramBuilder>) -> Builds {
        Builds {
            builder,
            queued: Arc::default(),
        }
    }

    /// Wakes this replica's builder loop (a build was queued or queued again).
    fn announce(&self) {
        self.queued.notify_one();
    }

    /// A build was queued again: built here, or failed again with why it cannot be.
    pub async fn requeued(&self, store: &Store, program_key: &str) -> Result<(), StoreError> {
        match self.builder.unavailable() {
            None => self.announce(),
            Some(why) => store.fail_queued_build(program_key, &why, now_ms()).await?,
        }
        Ok(())
    }

    /// The key of the program a canvas with `fingerprint` builds into.
    pub fn program_key(&self, fingerprint: &str) -> String {
        format!("{fingerprint}@engine-{}", self.builder.engine_version())
    }

    /// Queues the program of a released version (`dsl` is its canvas). A server that cannot
    /// build records the build as failed with why, so the version says so; a replica that can
    /// build takes it over when asked to retry.
    pub async fn released(
        &self,
        store: &Store,
        version_id: &str,
        dsl: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let dsl = dsl.clone();
        let fingerprint = tokio::task::spawn_blocking(move || {
            let fingerprint = canvasc_frontend::load_value(dsl.clone())
                .ok()
                .map(|loaded| canvasc_frontend::fingerprint::fingerprint(&loaded.document));
            (fingerprint, dsl)
        })
        .await;
        // A DSL that is no canvas has no program (its runs fail as the interpreter fails them).
        let Ok((Some(fingerprint), dsl)) = fingerprint else {
            return Ok(());
        };
        let key = self.program_key(&fingerprint);
        let now = now_ms();
        store
            .queue_build(version_id, &key, &fingerprint, &dsl.to_string(), now)
            .await?;
        match self.builder.unavailable() {
            None => self.announce(),
            Some(why) => store.fail_queued_build(&key, &why, now).await?,
        }
        Ok(())
    }

    /// Claims and runs builds, at most `jobs` at once, until the server stops.
    pub fn spawn_loop(
        &self,
        store: Store,
        metrics: Arc<Metrics>,
        jobs: usize,
    ) -> Option<tokio::task::JoinHandle<()>> {
        if let Some(why) = self.builder.unavailable() {
            eprintln!(
                "canvasc serve: released versions will not be compiled here ({why}); they run on the interpreter"
            );
            return None;
        }
        let (builder, queued) = (Arc::clone(&self.builder), Arc::clone(&self.queued));
        let owner = format!("builder-{}", new_id());
        Some(tokio::spawn(async move {
            let slots = Arc::new(Semaphore::new(jobs.max(1)));
            loop {
                let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                    return;
                };
                let now = now_ms();
                let lease_until = now + LEASE.as_millis() as i64;
                match store.claim_build(&owner, now, lease_until).await {
                    Ok(Some(job)) => {
                        let (store, builder, owner) =
                            (store.clone(), Arc::clone(&builder), owner.clone());
                        let metrics = Arc::clone(&metrics);
                        tokio::spawn(async move {
                            run_build(&store, &*builder, &owner, job, &metrics).await;
                            drop(slot);
                        });
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => eprintln!("canvasc serve: the build queue cannot be read: {e}"),
                }
                drop(slot);
                let _ = tokio::time::timeout(POLL, queued.notified()).await;
            }
        }))
    }
}

/// Runs one claimed build, renewing its lease meanwhile, and records how it ended.
async fn run_build(
    store: &Store,
    builder: &dyn ProgramBuilder,
    owner: &str,
    job: BuildJob,
    metrics: &Metrics,
) {
    let key = job.program_key.clone();
    let started = std::time::Instant::now();
    eprintln!("canvasc serve: building the program {key}");
    let build = builder.build(job);
    tokio::pin!(build);
    let mut renew = tokio::time::interval(LEASE / 4);
    renew.tick().await;
    let outcome = loop {
        tokio::select! {
            outcome = &mut build => break outcome,
            _ = renew.tick() => {
                let lease_until = now_ms() + LEASE.as_millis() as i64;
                if let Ok(false) = store.renew_build(&key, owner, lease_until).await {
                    eprintln!("canvasc serve: the build of {key} was taken over by another replica");
                }
            }
        }
    };
    let log = tail(&outcome.log, LOG_BYTES);
    let ok = outcome.result.is_ok();
    match &outcome.result {
        Ok(()) => eprintln!(
            "canvasc serve: the program {key} is compiled ({:.1} s)",
            started.elapsed().as_secs_f64()
        ),
        Err(e) => eprintln!("canvasc serve: the build of {key} failed: {e}"),
    }
    metrics.build_ended(ok, started.elapsed());
    match store
        .finish_build(&key, owner, outcome.result, log, now_ms())
        .await
    {
        Ok(true) => {}
        // Its lease lapsed (this replica stalled past it) and another replica took the build
        // over: that one's end is the build's; this one's is left out, and said so.
        Ok(false) => eprintln!(
            "canvasc serve: the build of {key} was taken over by another replica while this one ran; its end here is not recorded"
        ),
        Err(e) => {
            eprintln!("canvasc serve: the end of the build of {key} could not be recorded: {e}")
        }
    }
}

/// The last `max` bytes of `text`, cut at a character boundary.
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::tail;

    #[test]
    fn a_long_log_keeps_its_end_whole_characters_only() {
        assert_eq!(tail("short", 10), "short");
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("aé", 1), "");
        assert_eq!(tail("aéb", 2), "b");
    }
}
