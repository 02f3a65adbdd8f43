//! RAGFlow's process-wide settings, which the host reads from its environment. Apart from
//! `services.rs` so what only reads them (the tool seam, `external.rs`) does not name
//! `Services`, which holds the registry of external implementations.

/// Process-wide settings RAGFlow reads from its environment.
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
