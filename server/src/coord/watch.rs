//! The replica's side loop: every [`CANCEL_POLL`] it reads the cancel keys of its runs (one
//! round trip for all of them), so a cancel whose notice was lost still lands; every
//! [`LEASE_REFRESH`] it extends its leases, and a run whose lease another run took is
//! cancelled (two replicas never run one session on). A run whose lease could not be
//! refreshed for so long that it may have expired is cancelled too: another replica may take
//! the session over, and the run stops at its next batch boundary, resumable from its
//! checkpoint (its save, if it still comes, is fenced by the store).

use std::sync::{Arc, Weak};

use tokio::time::Instant;

use super::local_runs::LocalRuns;
use super::{Backend, CANCEL_POLL, LEASE_REFRESH, LEASE_TTL};

/// A lease not confirmed for this long may expire before the next refresh: its run stops.
const LEASE_DOUBT: std::time::Duration = LEASE_TTL.saturating_sub(LEASE_REFRESH);
// The refresh after the doubt begins comes before the lease's expiry.
const _: () = assert!(LEASE_DOUBT.as_millis() + LEASE_REFRESH.as_millis() <= LEASE_TTL.as_millis());

/// Runs until the coordinator is dropped.
pub(crate) async fn watch(backend: Arc<dyn Backend>, runs: Arc<LocalRuns>) {
    let runs: Weak<LocalRuns> = Arc::downgrade(&runs);
    let mut tick = tokio::time::interval(CANCEL_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_refresh = Instant::now();
    // Reported once per outage, not every tick.
    let mut failing = false;
    loop {
        tick.tick().await;
        let Some(runs) = runs.upgrade() else { return };
        let held = runs.snapshot();
        if held.is_empty() {
            continue;
        }
        let sessions: Vec<String> = held.iter().map(|(s, _, _)| s.clone()).collect();
        let polled = backend.cancel_requested(&sessions).await;
        match polled {
            Ok(flags) => {
                for (session, requested) in sessions.iter().zip(flags) {
                    if requested {
                        runs.cancel(session);
                    }
                }
                if failing {
                    eprintln!("canvasc serve: the run coordinator answers again");
                    failing = false;
                }
            }
            Err(e) => {
                if !failing {
                    eprintln!("canvasc serve: cannot read cancel requests: {e}; runs go on and are polled again");
                    failing = true;
                }
            }
        }
        if last_refresh.elapsed() >= LEASE_REFRESH {
            last_refresh = Instant::now();
            let refreshes = held.iter().map(|(session, token, renewed)| {
                let backend = backend.clone();
                async move {
                    let asked = Instant::now();
                    let outcome = backend.refresh(session, token).await;
                    (session, token, renewed, asked, outcome)
                }
            });
            for (session, token, renewed, asked, outcome) in
                futures::future::join_all(refreshes).await
            {
                match outcome {
                    Ok(true) => runs.renewed(session, token, asked),
                    Ok(false) => {
                        eprintln!("canvasc serve: session {session}: its lease was taken by another run; this run is cancelled");
                        runs.cancel_if_token(session, token);
                    }
                    Err(e) if renewed.elapsed() >= LEASE_DOUBT => {
                        eprintln!("canvasc serve: session {session}: the lease could not be refreshed for {} s ({e}); another replica may take the session, so this run stops at its next batch boundary (resumable)", renewed.elapsed().as_secs());
                        runs.cancel_if_token(session, token);
                    }
                    Err(e) => {
                        if !failing {
                            eprintln!("canvasc serve: session {session}: the lease could not be refreshed: {e}");
                            failing = true;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use futures::future::BoxFuture;
    use futures::FutureExt;

    use super::super::{Backend, CoordError, CoordResult, Lease, RunRecord};
    use super::*;

    /// A coordinator that stopped answering after the lease was taken (Redis gone).
    struct Unreachable;

    fn gone<'a, T: Send + 'a>() -> BoxFuture<'a, CoordResult<T>> {
        async { Err(CoordError("connection refused".into())) }.boxed()
    }

    impl Backend for Unreachable {
        fn acquire<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn refresh<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn release<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn is_held<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn request_cancel<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn cancel_requested<'a>(
            &'a self,
            _: &'a [String],
        ) -> BoxFuture<'a, CoordResult<Vec<bool>>> {
            gone()
        }
        fn put_run<'a>(&'a self, _: &'a str, _: &'a RunRecord) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn finish_run<'a>(
            &'a self,
            _: &'a str,
            _: &'a RunRecord,
            _: &'a str,
        ) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn run<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<Option<RunRecord>>> {
            gone()
        }
        fn put_checkpoint<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn checkpoint<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
            gone()
        }
        fn last_run<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
            gone()
        }
        fn quota_admit<'a>(
            &'a self,
            _: &'a crate::coord::QuotaAsk,
        ) -> BoxFuture<'a, CoordResult<crate::coord::QuotaVerdict>> {
            gone()
        }
        fn quota_refresh<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn quota_release<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: Option<i64>,
        ) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn quota_spend<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: u64,
        ) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn take_webhook_token<'a>(
            &'a self,
            _: &'a str,
            _: f64,
            _: f64,
            _: f64,
        ) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn put_webhook_trace<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: &'a str,
        ) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn webhook_traces<'a>(
            &'a self,
            _: &'a str,
        ) -> BoxFuture<'a, CoordResult<Vec<(String, String)>>> {
            gone()
        }
        fn queue_claim<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: f64,
            _: &'a str,
        ) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn queue_leave<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn mark_rollback<'a>(&'a self, _: &'a str) -> BoxFuture<'a, CoordResult<()>> {
            gone()
        }
        fn rolled_back<'a>(&'a self, _: &'a str, _: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
            gone()
        }
        fn name(&self) -> &'static str {
            "unreachable"
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_run_whose_lease_cannot_be_refreshed_stops_before_the_lease_may_expire() {
        let runs = Arc::new(LocalRuns::default());
        let cancelled = Arc::new(AtomicBool::new(false));
        let flag = cancelled.clone();
        let lease = Lease {
            session: "s".into(),
            token: "t".into(),
        };
        runs.insert(&lease, Arc::new(move || flag.store(true, Ordering::SeqCst)));
        tokio::spawn(watch(Arc::new(Unreachable), runs.clone()));

        // Short outages leave the run alone: the lease still lives in the coordinator.
        tokio::time::sleep(LEASE_DOUBT - LEASE_REFRESH).await;
        assert!(!cancelled.load(Ordering::SeqCst));
        // Before the lease can have expired, the run is told to stop.
        tokio::time::sleep(LEASE_REFRESH + CANCEL_POLL * 2).await;
        assert!(cancelled.load(Ordering::SeqCst));
    }
}
