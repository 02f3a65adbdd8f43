//! The state every handler shares, apart from the router (`app.rs`) that hands it out, so that
//! handlers and extractors do not import the module that imports them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::store::Store;
use crate::telemetry::metrics::Metrics;
use crate::turn::{CancelHandle, TurnRunner};

/// What every handler shares.
pub(crate) struct App {
    pub store: Store,
    pub max_body_bytes: usize,
    pub model_providers: Vec<String>,
    /// `GET /agents/templates`: the templates loaded at start.
    pub templates: Vec<serde_json::Value>,
    /// Runs turns (the host's engine).
    pub runner: Arc<dyn TurnRunner>,
    /// An idle SSE stream gets a comment line this often, so proxies keep it open.
    pub keep_alive: Duration,
    /// The runs going on, by session id: one per session at a time, cancelled by
    /// `POST /tasks/{session_id}/cancel`.
    pub running: Mutex<HashMap<String, CancelHandle>>,
    /// What `GET /metrics` shows.
    pub metrics: Arc<Metrics>,
}

impl App {
    /// Registers a session's run; `false` when one is already going.
    pub fn claim(&self, session_id: &str, cancel: CancelHandle) -> bool {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if running.contains_key(session_id) {
            return false;
        }
        running.insert(session_id.to_string(), cancel);
        true
    }

    pub fn release(&self, session_id: &str) {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running.remove(session_id);
    }

    /// Cancels the session's run, if one is going.
    pub fn cancel(&self, session_id: &str) {
        let cancel = {
            let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
            running.get(session_id).cloned()
        };
        if let Some(cancel) = cancel {
            cancel();
        }
    }

    pub fn is_running(&self, session_id: &str) -> bool {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running.contains_key(session_id)
    }
}

pub(crate) type Shared = Arc<App>;
