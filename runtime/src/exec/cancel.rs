//! Cancelling a run from outside it (a client that disconnects, a timer, Ctrl-C).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cancellation of one run, checked where RAGFlow checks `is_canceled()`.
#[derive(Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_canceled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}
