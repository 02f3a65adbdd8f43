//! The replica's side loop: every [`CANCEL_POLL`] it reads the cancel keys of its runs (one
//! round trip for all of them), so a cancel whose notice was lost still lands; every
//! [`LEASE_REFRESH`] it extends its leases, and a run whose lease another run took is
//! cancelled (two replicas never run one session on).

use std::sync::{Arc, Weak};
use std::time::Instant;

use super::registry::Registry;
use super::{Backend, CANCEL_POLL, LEASE_REFRESH};

/// Runs until the coordinator is dropped.
pub(crate) async fn watch(backend: Arc<dyn Backend>, runs: Arc<Registry>) {
    let runs: Weak<Registry> = Arc::downgrade(&runs);
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
        let sessions: Vec<String> = held.iter().map(|(s, _)| s.clone()).collect();
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
            let refreshes = held.iter().map(|(session, token)| {
                let backend = backend.clone();
                async move { (session, token, backend.refresh(session, token).await) }
            });
            for (session, token, outcome) in futures::future::join_all(refreshes).await {
                match outcome {
                    Ok(true) => {}
                    Ok(false) => {
                        eprintln!("canvasc serve: session {session}: its lease was taken by another run; this run is cancelled");
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
