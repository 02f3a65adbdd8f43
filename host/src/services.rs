//! Assembling the [`Services`] a run's components call, from the configuration and the
//! environment ([`crate::config`]).

use crate::config;
use canvasc_engine::config::ConfigError;
use canvasc_engine::external::Externals;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::Services;
use std::path::Path;
use std::sync::Arc;

/// What every run of this process starts from: the shared HTTP client, RAGFlow's settings,
/// the prompt texts the environment asks for and the tools (endpoints and keys from the
/// environment); no model, no MCP servers.
pub fn from_env() -> Services {
    Services {
        settings: config::settings(&config::raw_env),
        prompts: Arc::new(config::prompts(&config::raw_env)),
        external: Arc::new(external_registry(None, &config::data_dir())),
        // A malformed `CANVASC_OUTBOUND_ALLOW` admits nothing extra here; `assemble` reports it.
        outbound_allow: config::outbound_allow("", &config::process_env).unwrap_or_default(),
        ..Services::default()
    }
}

/// The components and tools implemented outside the engine, configured from `text` (a
/// `canvasc.toml`) and the environment, with the local datasets under `data_dir`. Only a
/// configuration without a file cannot fail.
#[cfg(feature = "tools")]
fn external_with(text: &str, data_dir: &Path) -> Result<Externals, ConfigError> {
    let tools = canvasc_tools::config::ToolsConfig::from_toml_str(text, &config::process_env)?
        .with_datasets_dir(config::datasets_dir(data_dir));
    let mut registry = Externals::default();
    canvasc_tools::register_all(&mut registry, &tools);
    register_documents(&mut registry);
    register_browser(&mut registry, &tools);
    Ok(registry)
}

/// The Browser with the documents' file store (where DocGenerator's files go too), so its
/// downloads are stored and its upload file ids read there.
#[cfg(feature = "browser")]
fn register_browser(registry: &mut Externals, tools: &canvasc_tools::config::ToolsConfig) {
    let services = crate::documents::services(&config::raw_env);
    canvasc_tools::register_browser(
        registry,
        tools,
        canvasc_tools::browser::files::FileTarget {
            files: Arc::new(crate::documents::BrowserStore(services.store)),
            bucket: services.bucket,
        },
    );
}

#[cfg(all(feature = "tools", not(feature = "browser")))]
fn register_browser(_registry: &mut Externals, _tools: &canvasc_tools::config::ToolsConfig) {}

#[cfg(not(feature = "tools"))]
fn external_with(_text: &str, _data_dir: &Path) -> Result<Externals, ConfigError> {
    let mut registry = Externals::default();
    register_documents(&mut registry);
    Ok(registry)
}

/// DocGenerator and ExcelProcessor, with the fonts, image directory and file store the
/// environment names ([`crate::documents`]).
#[cfg(feature = "documents")]
fn register_documents(registry: &mut Externals) {
    let services = crate::documents::services(&config::raw_env);
    canvasc_documents::components::register(registry, &services);
}

#[cfg(not(feature = "documents"))]
fn register_documents(_registry: &mut Externals) {}

/// [`external_with`] the environment alone, or the configuration file's `text` as well.
fn external_registry(text: Option<&str>, data_dir: &Path) -> Externals {
    // Without a file the only input is the environment; a malformed override variable there
    // leaves that tool unconfigured, and its error surfaces through `assemble`.
    external_with(text.unwrap_or(""), data_dir).unwrap_or_default()
}

/// The services of a run: every LLM call answered from `script` when one is given, else by the
/// models of the configuration (`config`, else `$CANVASC_CONFIG`, else `./canvasc.toml`, else
/// the environment); the MCP servers of that configuration.
pub fn assemble(script: Option<Script>, config: Option<&Path>) -> Result<Services, ConfigError> {
    assemble_in(script, config, &config::data_dir())
}

/// [`assemble`] with the local knowledge base's datasets under `data_dir` (`serve --data-dir`).
pub fn assemble_in(
    script: Option<Script>,
    config: Option<&Path>,
    data_dir: &Path,
) -> Result<Services, ConfigError> {
    let mut services = from_env();
    services.llm = Some(match script {
        Some(script) => Arc::new(ScriptedProvider::new(script)),
        None => {
            let models = config::llm_config(config)?;
            Arc::new(OpenAiProvider::new(services.http.clone(), models))
        }
    });
    services.mcp = Arc::new(config::mcp_registry(config)?);
    services.external = Arc::new(config::external_config(config, |text| {
        external_with(text, data_dir)
    })?);
    services.outbound_allow = config::external_config(config, |text| {
        config::outbound_allow(text, &config::process_env)
    })?;
    Ok(services)
}

#[cfg(all(test, feature = "tools"))]
mod tests {
    use canvasc_frontend::catalog::Kind;

    /// The catalogue says which kinds run outside the engine (`external::Spec`), and the checker
    /// tells users those kinds run; the host must register exactly those.
    #[test]
    fn every_external_kind_is_registered() {
        let registry = super::external_registry(None, std::path::Path::new("canvasc-data"));
        for kind in Kind::ALL.iter().copied() {
            let external = kind.implementation().module == "external";
            assert_eq!(
                registry.get(kind).is_some(),
                external,
                "{kind}: the catalogue says external = {external}"
            );
        }
    }
}
