//! A message for a session that is running already ("double-texting", issue 42) follows the
//! request's `multitask_strategy`, the same on every replica:
//! - `reject` (the default): RAGFlow's refusal (103);
//! - `enqueue`: the request waits its turn, in order of arrival, and runs after the current one;
//! - `interrupt`: the current run is cancelled at its next boundary, its turn saved with what
//!   it finished (as `/tasks/{id}/cancel` leaves it), then this one runs;
//! - `rollback`: the same, but the cancelled run's turn is discarded: the session is left as it
//!   was before that turn.
//!
//! Waiting requests queue in the coordinator (`Backend::queue_claim`): a free lease goes to the
//! first live waiter, interrupting ones ahead of enqueued ones, before any new request.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::clock::{new_id, now_ms};
use crate::coord::{Coordinator, Lease};
use crate::envelope::ApiError;
use crate::request::string;
use crate::shared::AppRef;

/// RAGFlow's refusal of a second run on a busy session.
pub(crate) const ALREADY_RUNNING: &str = "This agent session is already running.";

/// A waiting request gives up after this (its client has likely given up before).
const MAX_WAIT: Duration = Duration::from_secs(300);
/// How often a waiting request looks whether its turn came (and keeps its place).
const POLL: Duration = Duration::from_millis(25);
/// Interrupting requests rank ahead of every enqueued one (ranks are arrival milliseconds).
const URGENT: f64 = 1e13;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    Reject,
    Enqueue,
    Interrupt,
    Rollback,
}

impl Strategy {
    /// The request's `multitask_strategy`.
    pub(crate) fn of(body: &Map<String, Value>) -> Result<Strategy, ApiError> {
        Ok(match string(body, "multitask_strategy")?.as_deref() {
            None | Some("") | Some("reject") => Strategy::Reject,
            Some("enqueue") => Strategy::Enqueue,
            Some("interrupt") => Strategy::Interrupt,
            Some("rollback") => Strategy::Rollback,
            Some(other) => {
                return Err(ApiError::argument(format!(
                    "`multitask_strategy` must be \"reject\", \"enqueue\", \"interrupt\" or \"rollback\", not \"{other}\"."
                )))
            }
        })
    }
}

/// The session's lease for a request that continues it, as its strategy says.
pub(crate) async fn take(
    app: &AppRef,
    session: &str,
    strategy: Strategy,
) -> Result<Lease, ApiError> {
    if let Some(lease) = app.coord.claim(session).await? {
        return Ok(lease);
    }
    if strategy == Strategy::Reject {
        return Err(ApiError::operating(ALREADY_RUNNING));
    }
    let urgent = matches!(strategy, Strategy::Interrupt | Strategy::Rollback);
    let rank = now_ms() as f64 - if urgent { URGENT } else { 0.0 };
    let mut place = Place {
        coord: app.coord.clone(),
        session: session.to_string(),
        ticket: new_id(),
        waiting: true,
    };
    // The place first: the run this request cancels ends into a queue the request is in.
    if let Some(lease) = app.coord.claim_queued(session, &place.ticket, rank).await? {
        place.waiting = false;
        return Ok(lease);
    }
    if strategy == Strategy::Rollback {
        // The lease's holder is marked (even one starting, whose record does not name it
        // yet) before the cancel, so it sees the mark once it sees the cancel.
        app.coord.mark_rollback(session).await?;
    }
    if urgent {
        app.coord.cancel(session).await?;
    }
    let deadline = Instant::now() + MAX_WAIT;
    loop {
        if let Some(lease) = app.coord.claim_queued(session, &place.ticket, rank).await? {
            place.waiting = false;
            return Ok(lease);
        }
        if Instant::now() >= deadline {
            return Err(ApiError::operating(format!(
                "{ALREADY_RUNNING} This request waited {} s for its turn and gave up.",
                MAX_WAIT.as_secs()
            )));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// A request's place in its session's queue: given up when the request ends without the lease
/// (its client went away, or it waited too long), so the requests behind it do not wait for
/// its place to expire.
struct Place {
    coord: Coordinator,
    session: String,
    ticket: String,
    waiting: bool,
}

impl Drop for Place {
    fn drop(&mut self) {
        if !self.waiting {
            return;
        }
        let coord = self.coord.clone();
        let (session, ticket) = (
            std::mem::take(&mut self.session),
            std::mem::take(&mut self.ticket),
        );
        tokio::spawn(async move {
            if let Err(e) = coord.leave_queue(&session, &ticket).await {
                eprintln!(
                    "canvasc serve: session {session}: a waiting request could not leave the queue ({e}); its place expires"
                );
            }
        });
    }
}
