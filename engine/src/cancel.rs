//! Cancelling a run from outside it (a client that disconnects, a timer, Ctrl-C).
//!
//! RAGFlow polls `is_canceled()` between steps; a model, HTTP or MCP call in flight there runs
//! to its end. Here the flag can also be awaited, so every outbound call races it
//! ([`CancelFlag::or_cancel`]) and a cancelled run stops at once instead of after a 20 s
//! answer, then ends with the same events RAGFlow's polling produces.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// How long a tool's call in flight at a cancel may still answer (see
/// [`CancelFlag::or_cancel_after_grace`]).
pub const CALL_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Cancellation of one run, checked where RAGFlow checks `is_canceled()`.
#[derive(Clone, Default)]
pub struct CancelFlag(Arc<Inner>);

#[derive(Default)]
struct Inner {
    set: AtomicBool,
    /// Wakes the calls waiting in [`CancelFlag::canceled`].
    wake: Notify,
}

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.set.store(true, Ordering::SeqCst);
        self.0.wake.notify_waiters();
    }

    pub fn is_canceled(&self) -> bool {
        self.0.set.load(Ordering::SeqCst)
    }

    pub fn reset(&self) {
        self.0.set.store(false, Ordering::SeqCst);
    }

    /// Completes once the run is cancelled (at once when it already is).
    pub async fn canceled(&self) {
        loop {
            let woken = self.0.wake.notified();
            let mut woken = std::pin::pin!(woken);
            // Registered before the check, so a `cancel()` between the two is not missed.
            woken.as_mut().enable();
            if self.is_canceled() {
                return;
            }
            woken.await;
        }
    }

    /// Runs `call`, which a cancel stops only after [`CALL_GRACE`]: RAGFlow lets a tool's
    /// request in flight at a cancel finish and shows its result, so one that answers within
    /// the grace keeps that parity, and one that never answers (a silent endpoint) still ends.
    /// `None` when the grace ran out (the call is dropped, which aborts its request).
    pub async fn or_cancel_after_grace<F: Future>(&self, call: F) -> Option<F::Output> {
        let call = std::pin::pin!(call);
        let stop = std::pin::pin!(async {
            self.canceled().await;
            tokio::time::sleep(CALL_GRACE).await;
        });
        match futures::future::select(call, stop).await {
            futures::future::Either::Left((out, _)) => Some(out),
            futures::future::Either::Right(((), _)) => None,
        }
    }

    /// Runs `call` unless the run is cancelled first: `None` when cancellation won (the call
    /// is dropped, which aborts its request).
    pub async fn or_cancel<F: Future>(&self, call: F) -> Option<F::Output> {
        if self.is_canceled() {
            return None;
        }
        let call = std::pin::pin!(call);
        let stop = std::pin::pin!(self.canceled());
        match futures::future::select(call, stop).await {
            futures::future::Either::Left((out, _)) => Some(out),
            futures::future::Either::Right(((), _)) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CancelFlag;
    use std::time::Duration;

    #[tokio::test]
    async fn a_cancel_aborts_a_call_in_flight() {
        let flag = CancelFlag::default();
        let trigger = flag.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            trigger.cancel();
        });
        let started = std::time::Instant::now();
        let out = flag
            .or_cancel(tokio::time::sleep(Duration::from_secs(20)))
            .await;
        assert!(out.is_none());
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_call_that_ends_first_gives_its_output() {
        let flag = CancelFlag::default();
        assert_eq!(flag.or_cancel(async { 7 }).await, Some(7));
        flag.cancel();
        assert_eq!(flag.or_cancel(async { 7 }).await, None);
    }
}
