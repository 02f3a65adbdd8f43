//! What components call outside the canvas: the model provider, HTTP, MCP servers, prompt
//! texts, and RAGFlow's process-wide settings (`settings.rs`). The engine only holds them: the
//! host (crate `canvasc-host`) reads the configuration file and the environment and fills them
//! in.

use super::llm::prompts::Prompts;
use super::settings::Settings;
use super::{external, http, llm, mcp, ssrf, telemetry};
use std::sync::Arc;

/// Services components call: the model provider, HTTP, MCP servers, prompt texts, settings.
#[derive(Clone)]
pub struct Services {
    pub llm: Option<Arc<dyn llm::ChatProvider>>,
    pub http: reqwest::Client,
    /// The MCP servers Agents may name in `mcp`.
    pub mcp: Arc<mcp::McpServers>,
    /// The run's `custom_header` (HTTP API): sent to MCP servers, never stored.
    pub custom_header: Arc<[(String, String)]>,
    /// The instruction texts the LLM and Agent components add to prompts.
    pub prompts: Arc<Prompts>,
    pub settings: Settings,
    /// Components and tools implemented outside the engine (web tools, document writers),
    /// which the host registers; a kind without one fails when it runs.
    pub external: Arc<external::Externals>,
    /// Hosts and networks the SSRF guard admits although they are not public (configuration).
    pub outbound_allow: ssrf::AllowList,
    /// How the SSRF guard resolves host names (the system's resolver unless a host says).
    pub resolver: Arc<dyn ssrf::Resolver>,
    /// The tenant the run belongs to (RAGFlow's `canvas.get_tenant_id()`): files a run stores
    /// go under it, so one tenant never reads another's. `None` outside a server.
    pub tenant_id: Option<Arc<str>>,
    /// What the run span shows besides the mode (canvas id, session, fingerprint): the host's.
    pub run_labels: telemetry::RunLabels,
}

impl Services {
    /// The SSRF guard every canvas-controlled URL or host passes: `ALLOW_ANY_HOST`, the
    /// allow-list, the resolver.
    pub fn guard(&self) -> ssrf::Guard {
        ssrf::Guard {
            allow_any_host: self.settings.allow_any_host,
            allow: self.outbound_allow.clone(),
            resolver: Arc::clone(&self.resolver),
        }
    }
}

/// No model, no MCP servers, no external components, canvasc's own prompt texts and RAGFlow's default settings (as
/// with an empty environment).
impl Default for Services {
    fn default() -> Self {
        Services {
            llm: None,
            http: http::shared_client(),
            mcp: Arc::default(),
            custom_header: Arc::new([]),
            prompts: Arc::default(),
            settings: Settings::default(),
            external: Arc::default(),
            outbound_allow: ssrf::AllowList::default(),
            resolver: Arc::new(ssrf::SystemResolver),
            tenant_id: None,
            run_labels: telemetry::RunLabels::default(),
        }
    }
}
