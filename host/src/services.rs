//! Assembling the [`Services`] a run's components call, from the configuration and the
//! environment ([`crate::config`]).

use crate::config;
use canvasc_runtime::exec::llm::config::ConfigError;
use canvasc_runtime::exec::llm::openai::OpenAiProvider;
use canvasc_runtime::exec::llm::script::{Script, ScriptedProvider};
use canvasc_runtime::exec::Services;
use std::path::Path;
use std::sync::Arc;

/// What every run of this process starts from: the shared HTTP client, RAGFlow's settings and
/// the prompt texts the environment asks for; no model, no MCP servers.
pub fn from_env() -> Services {
    Services {
        settings: config::settings(&config::raw_env),
        prompts: Arc::new(config::prompts(&config::raw_env)),
        ..Services::default()
    }
}

/// The services of a run: every LLM call answered from `script` when one is given, else by the
/// models of the configuration (`config`, else `$CANVASC_CONFIG`, else `./canvasc.toml`, else
/// the environment); the MCP servers of that configuration.
pub fn assemble(script: Option<Script>, config: Option<&Path>) -> Result<Services, ConfigError> {
    let mut services = from_env();
    services.llm = Some(match script {
        Some(script) => Arc::new(ScriptedProvider::new(script)),
        None => {
            let models = config::llm_config(config)?;
            Arc::new(OpenAiProvider::new(services.http.clone(), models))
        }
    });
    services.mcp = Arc::new(config::mcp_registry(config)?);
    Ok(services)
}
