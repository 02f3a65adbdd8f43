//! Executing canvases: the scheduler (RAGFlow's `Canvas.run`), run state, components, and the
//! interpreter back-end.
//!
//! The scheduler is generic over a [`Program`]: the interpreter ([`interp::Interpreter`]) builds
//! one from the IR at run time; generated code supplies one per canvas. Both call the same
//! component implementations in [`components`].

mod cancel;
mod clock;
pub mod components;
mod context;
mod conversation;
mod error;
pub mod events;
pub mod http;
mod identity;
pub mod interp;
pub mod interpolate;
pub mod jinja;
pub mod llm;
pub mod mcp;
pub mod persist;
mod program;
pub mod py_json;
pub mod random;
mod read_bound;
pub mod scheduler;
pub mod sharing;
pub mod ssrf;
pub mod state;

pub use cancel::CancelFlag;
pub use clock::{perf_counter, unix_seconds};
pub use context::{NodeCx, Shared, SharedRandom};
pub use conversation::{Published, Session};
pub use error::{RunError, CANCELED};
pub use events::{Envelope, EventSink};
pub use program::{Program, ProgramVisitor};
pub use scheduler::{run, RunInput, RunOutcome};
pub use state::RunState;

use std::sync::Arc;

/// Process-wide settings read from the environment, as RAGFlow reads them.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `ENABLE_TIMEOUT_ASSERTION`: component timeouts are enforced only when set.
    pub enforce_timeouts: bool,
    /// `COMPONENT_EXEC_TIMEOUT`: overrides every per-class default.
    pub component_exec_timeout: Option<u64>,
    /// `ALLOW_ANY_HOST`: disables the SSRF guard's address check (local stubs in tests).
    pub allow_any_host: bool,
    /// At most this many component invocations per turn (`None`: no limit, as in RAGFlow, where
    /// a canvas that cycles without a Loop runs until it is killed). Hosts set it for drafts.
    pub step_limit: Option<usize>,
}

impl Settings {
    pub fn from_env() -> Self {
        let truthy =
            |v: &str| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on");
        Settings {
            enforce_timeouts: std::env::var("ENABLE_TIMEOUT_ASSERTION")
                .is_ok_and(|v| !v.is_empty()),
            component_exec_timeout: std::env::var("COMPONENT_EXEC_TIMEOUT")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
            allow_any_host: std::env::var("ALLOW_ANY_HOST").is_ok_and(|v| truthy(&v)),
            step_limit: None,
        }
    }
}

/// Services components call: the model provider, HTTP, MCP servers, settings.
#[derive(Clone)]
pub struct Services {
    pub llm: Option<Arc<dyn llm::ChatProvider>>,
    pub http: reqwest::Client,
    /// The MCP servers Agents may name in `mcp`.
    pub mcp: Arc<mcp::Registry>,
    /// The run's `custom_header` (HTTP API): sent to MCP servers, never stored.
    pub custom_header: Arc<[(String, String)]>,
    pub settings: Settings,
}

/// One HTTP client per process (connection pools and TLS set-up are shared), built on first use.
static HTTP: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
    http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
});

impl Default for Services {
    fn default() -> Self {
        Services {
            llm: None,
            http: HTTP.clone(),
            mcp: Arc::default(),
            custom_header: Arc::new([]),
            settings: Settings::from_env(),
        }
    }
}
