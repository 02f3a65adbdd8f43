//! This replica's runs: the cancel handle and lease of each, by session (= task id). The
//! backends' notices and the [`super::watch`] loop cancel through it.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::time::Instant;

use super::Lease;
use crate::turn::CancelHandle;

#[derive(Clone)]
pub(crate) struct LocalRun {
    pub token: String,
    pub cancel: CancelHandle,
    /// When the backend last confirmed the lease (taken or refreshed).
    pub renewed: Instant,
}

#[derive(Default)]
pub(crate) struct LocalRuns {
    runs: Mutex<HashMap<String, LocalRun>>,
}

impl LocalRuns {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, LocalRun>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn insert(&self, lease: &Lease, cancel: CancelHandle) {
        self.lock().insert(
            lease.session.clone(),
            LocalRun {
                token: lease.token.clone(),
                cancel,
                renewed: Instant::now(),
            },
        );
    }

    pub fn remove(&self, session: &str) {
        self.lock().remove(session);
    }

    pub fn contains(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Cancels the task's run if it runs here; `true` when it did.
    pub fn cancel(&self, task_id: &str) -> bool {
        let run = self.lock().get(task_id).cloned();
        match run {
            Some(run) => {
                (run.cancel)();
                true
            }
            None => false,
        }
    }

    /// The runs going on here: `(session, lease token, when the lease was last confirmed)`.
    pub fn snapshot(&self) -> Vec<(String, String, Instant)> {
        self.lock()
            .iter()
            .map(|(session, run)| (session.clone(), run.token.clone(), run.renewed))
            .collect()
    }

    /// The backend confirmed that `token` still holds `session`'s lease.
    pub fn renewed(&self, session: &str, token: &str, at: Instant) {
        if let Some(run) = self.lock().get_mut(session).filter(|r| r.token == token) {
            run.renewed = at;
        }
    }

    /// Cancels the run if it still holds `token` (a lease lost to a newer run).
    pub fn cancel_if_token(&self, session: &str, token: &str) {
        let run = self.lock().get(session).cloned();
        if let Some(run) = run.filter(|run| run.token == token) {
            (run.cancel)();
        }
    }
}
