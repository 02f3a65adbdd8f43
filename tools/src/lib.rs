//! RAGFlow's tools (`agent/tools/*.py`, tools.md), implemented on the engine's seam for
//! components outside it (`canvasc_engine::external`). One module per tool; each serves
//! a canvas node and an Agent's function call alike. The host registers them
//! ([`register_all`]); the engine never depends on this crate.
//!
//! Endpoints and API keys come from [`config::ToolsConfig`] (tools.md §31).

pub mod akshare;
pub mod arxiv;
pub mod bgpt;
#[cfg(feature = "browser")]
pub mod browser;
pub mod code_exec;
pub mod common;
pub mod config;
pub mod crawler;
pub mod deepl;
pub mod duckduckgo;
pub mod email;
pub mod exesql;
pub mod github;
pub mod google;
pub mod googlescholar;
pub mod host_guard;
pub mod html;
pub mod html_tree;
#[cfg(feature = "kb")]
pub mod kb;
pub mod keenable;
pub mod legacy;
pub mod pubmed;
pub mod querit;
pub mod qweather;
pub mod retrieval;
pub mod searxng;
pub mod tavily;
pub mod wencai;
pub mod wikipedia;
pub mod yahoo_fundamentals;
pub mod yahoofinance;

use canvasc_engine::external::{External, Externals};
use canvasc_frontend::catalog::Kind;
use config::ToolsConfig;
use std::sync::Arc;

/// Every tool of this crate, registered for its kind.
pub fn register_all(registry: &mut Externals, config: &ToolsConfig) {
    let config = Arc::new(config.clone());
    for &kind in Kind::ALL {
        if let Some(tool) = implementation(kind, &config) {
            registry.register(kind, tool);
        }
    }
}

/// This crate's implementation of `kind`. The match names every kind, so a new row in the
/// catalogue's table of kinds does not compile until it is decided here whether this crate
/// implements it.
fn implementation(kind: Kind, config: &Arc<ToolsConfig>) -> Option<Arc<dyn External>> {
    let config = Arc::clone(config);
    Some(match kind {
        Kind::AkShare => Arc::new(akshare::AkShare::new(config)),
        Kind::ArXiv => Arc::new(arxiv::ArXiv::new(config)),
        Kind::Bgpt => Arc::new(bgpt::Bgpt::new(config)),
        Kind::CodeExec => Arc::new(code_exec::CodeExec::new(config)),
        Kind::Crawler => Arc::new(crawler::Crawler),
        Kind::DeepL => Arc::new(deepl::DeepL::new(config)),
        Kind::DuckDuckGo => Arc::new(duckduckgo::DuckDuckGo::new(config)),
        Kind::Email => Arc::new(email::Email::new(config)),
        Kind::ExeSql => Arc::new(exesql::ExeSql::new(config)),
        Kind::GitHub => Arc::new(github::GitHub::new(config)),
        Kind::Google => Arc::new(google::Google::new(config)),
        Kind::GoogleScholar => Arc::new(googlescholar::GoogleScholar::new(config)),
        Kind::Jin10 | Kind::TuShare => Arc::new(legacy::Legacy),
        Kind::KeenableSearch => Arc::new(keenable::KeenableSearch::new(config)),
        Kind::PubMed => Arc::new(pubmed::PubMed::new(config)),
        Kind::QueritSearch => Arc::new(querit::QueritSearch::new(config)),
        Kind::QueritContents => Arc::new(querit::QueritContents::new(config)),
        Kind::QWeather => Arc::new(qweather::QWeather::new(config)),
        Kind::Retrieval => Arc::new(retrieval::Retrieval::new(retrieval_store(&config))),
        Kind::SearXng => Arc::new(searxng::SearXng),
        Kind::TavilySearch => Arc::new(tavily::TavilySearch::new(config)),
        Kind::TavilyExtract => Arc::new(tavily::TavilyExtract::new(config)),
        Kind::WenCai => Arc::new(wencai::WenCai),
        Kind::Wikipedia => Arc::new(wikipedia::Wikipedia::new(config)),
        Kind::YahooFinance => Arc::new(yahoofinance::YahooFinance::new(config)),
        #[cfg(feature = "browser")]
        Kind::Browser => Arc::new(browser::Browser::new(config, None)),
        #[cfg(not(feature = "browser"))]
        Kind::Browser => return None,
        // canvasc-documents implements these; the host registers them.
        Kind::DocGenerator | Kind::ExcelProcessor => return None,
        // The engine's own components, and RAGFlow's removed `Answer`.
        Kind::Begin
        | Kind::UserFillUp
        | Kind::Message
        | Kind::Llm
        | Kind::Categorize
        | Kind::Switch
        | Kind::Agent
        | Kind::Iteration
        | Kind::IterationItem
        | Kind::Loop
        | Kind::LoopItem
        | Kind::ExitLoop
        | Kind::Invoke
        | Kind::DataOperations
        | Kind::ListOperations
        | Kind::StringTransform
        | Kind::VariableAggregator
        | Kind::VariableAssigner
        | Kind::Answer => return None,
    })
}

/// The Browser component with `files` as its file store (downloads, upload file ids): the host
/// calls this after [`register_all`], which registers it without one.
#[cfg(feature = "browser")]
pub fn register_browser(
    registry: &mut Externals,
    config: &ToolsConfig,
    files: browser::files::FileTarget,
) {
    registry.register(
        Kind::Browser,
        Arc::new(browser::Browser::new(Arc::new(config.clone()), Some(files))),
    );
}

/// The Retrieval tool's store: a RAGFlow server when `[tools.retrieval] base_url` names one,
/// else the local knowledge base under the configured datasets folder (feature `kb`), else
/// none.
fn retrieval_store(config: &ToolsConfig) -> Arc<dyn retrieval::service::RetrievalService> {
    if let Some(base) = config.configured_base_url("retrieval") {
        return Arc::new(retrieval::ragflow_api::RagflowApi::new(
            &base,
            config.api_key("retrieval", ""),
        ));
    }
    local_store(config)
}

#[cfg(feature = "kb")]
fn local_store(config: &ToolsConfig) -> Arc<dyn retrieval::service::RetrievalService> {
    match config.datasets_dir() {
        Some(dir) => Arc::new(retrieval::local::LocalStore::new(
            Arc::new(kb::DatasetStore::new(dir)),
            config.embedding().cloned(),
        )),
        None => Arc::new(retrieval::service::NoStore),
    }
}

#[cfg(not(feature = "kb"))]
fn local_store(_config: &ToolsConfig) -> Arc<dyn retrieval::service::RetrievalService> {
    Arc::new(retrieval::service::NoStore)
}
