//! The state every handler shares, apart from the router (`app.rs`) that hands it out, so that
//! handlers and extractors do not import the module that imports them.

use std::sync::Arc;
use std::time::Duration;

use crate::coord::Coordinator;
use crate::login_limit::LoginLimiter;
use crate::password::PasswordWork;
use crate::quota::Quotas;
use crate::registration::Registration;
use crate::starting_canvas::StartingCanvases;
use crate::store::Store;
use crate::telemetry::metrics::Metrics;
use crate::turn::TurnRunner;

/// What every handler shares.
pub(crate) struct App {
    pub store: Store,
    pub max_body_bytes: usize,
    /// Web origins allowed to call the API from a browser (none: same-origin only).
    pub cors_origins: Vec<axum::http::HeaderValue>,
    /// The models the configuration serves (`GET /models`), and its `[llm] default`.
    pub models: Vec<crate::model_catalog::ConfiguredModel>,
    pub default_model: Option<String>,
    /// `GET /agents/templates`: the templates loaded at start.
    pub templates: Vec<serde_json::Value>,
    /// Runs turns (the host's engine).
    pub runner: Arc<dyn TurnRunner>,
    /// An idle SSE stream gets a comment line this often, so proxies keep it open.
    pub keep_alive: Duration,
    /// Who runs which session, and cancelling runs, across replicas (`coord/`): one run per
    /// session at a time, cancelled by `POST /tasks/{session_id}/cancel` on any replica.
    pub coord: Coordinator,
    /// What `GET /metrics` shows.
    pub metrics: Arc<Metrics>,
    /// Who may register (`POST /users`).
    pub registration: Registration,
    /// How long a login token works.
    pub token_ttl: Duration,
    /// Argon2 (and RSA) work, bounded.
    pub passwords: PasswordWork,
    /// Failed logins per account and address.
    pub login_limiter: LoginLimiter,
    /// The header a reverse proxy puts the client's address in, if any.
    pub client_ip_header: Option<String>,
    /// Per-tenant limits on runs and model tokens.
    pub quotas: Quotas,
    /// The canvases new sessions start from, checked and reset once per agent and DSL.
    pub starting_canvases: StartingCanvases,
    /// Publishing's builds (none: released versions run on the interpreter).
    pub builds: Option<crate::builds::Builds>,
    /// Set once a shutdown began: `/readyz` then answers 503.
    pub draining: Arc<std::sync::atomic::AtomicBool>,
}

pub(crate) type AppRef = Arc<App>;
