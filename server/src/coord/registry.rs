//! This replica's runs: the cancel handle and lease of each, by session (= task id). The
//! backends' notices and the [`super::watch`] loop cancel through it.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Lease;
use crate::turn::CancelHandle;

#[derive(Clone)]
pub(crate) struct LocalRun {
    pub token: String,
    pub cancel: CancelHandle,
}

#[derive(Default)]
pub(crate) struct Registry {
    runs: Mutex<HashMap<String, LocalRun>>,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, LocalRun>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn insert(&self, lease: &Lease, cancel: CancelHandle) {
        self.lock().insert(
            lease.session.clone(),
            LocalRun {
                token: lease.token.clone(),
                cancel,
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

    /// The runs going on here: `(session, lease token)`.
    pub fn snapshot(&self) -> Vec<(String, String)> {
        self.lock()
            .iter()
            .map(|(session, run)| (session.clone(), run.token.clone()))
            .collect()
    }

    /// Cancels the run if it still holds `token` (a lease lost to a newer run).
    pub fn cancel_if_token(&self, session: &str, token: &str) {
        let run = self.lock().get(session).cloned();
        if let Some(run) = run.filter(|run| run.token == token) {
            (run.cancel)();
        }
    }
}
