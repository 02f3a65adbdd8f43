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
pub mod tabulate;
pub mod tavily;
pub mod wencai;
pub mod wikipedia;
pub mod yahoo_fundamentals;
pub mod yahoofinance;

use canvasc_engine::external::Registry;
use canvasc_frontend::catalog::Kind;
use config::ToolsConfig;
use std::sync::Arc;

/// Every tool of this crate, registered for its kind.
pub fn register_all(registry: &mut Registry, config: &ToolsConfig) {
    let config = Arc::new(config.clone());
    registry.register(Kind::Jin10, Arc::new(legacy::Legacy));
    registry.register(Kind::TuShare, Arc::new(legacy::Legacy));
    registry.register(Kind::WenCai, Arc::new(wencai::WenCai));
    registry.register(
        Kind::CodeExec,
        Arc::new(code_exec::CodeExec::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::Email,
        Arc::new(email::Email::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::ExeSql,
        Arc::new(exesql::ExeSql::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::TavilySearch,
        Arc::new(tavily::TavilySearch::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::TavilyExtract,
        Arc::new(tavily::TavilyExtract::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::Wikipedia,
        Arc::new(wikipedia::Wikipedia::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::DuckDuckGo,
        Arc::new(duckduckgo::DuckDuckGo::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::GitHub,
        Arc::new(github::GitHub::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::Google,
        Arc::new(google::Google::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::ArXiv,
        Arc::new(arxiv::ArXiv::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::PubMed,
        Arc::new(pubmed::PubMed::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::Retrieval,
        Arc::new(retrieval::Retrieval::new(retrieval_store(&config))),
    );
    registry.register(Kind::SearXng, Arc::new(searxng::SearXng));
    registry.register(Kind::Crawler, Arc::new(crawler::Crawler));
    registry.register(
        Kind::DeepL,
        Arc::new(deepl::DeepL::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::KeenableSearch,
        Arc::new(keenable::KeenableSearch::new(Arc::clone(&config))),
    );
    registry.register(Kind::Bgpt, Arc::new(bgpt::Bgpt::new(Arc::clone(&config))));
    registry.register(
        Kind::QueritSearch,
        Arc::new(querit::QueritSearch::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::QueritContents,
        Arc::new(querit::QueritContents::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::QWeather,
        Arc::new(qweather::QWeather::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::AkShare,
        Arc::new(akshare::AkShare::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::GoogleScholar,
        Arc::new(googlescholar::GoogleScholar::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::YahooFinance,
        Arc::new(yahoofinance::YahooFinance::new(Arc::clone(&config))),
    );
    #[cfg(feature = "browser")]
    registry.register(
        Kind::Browser,
        Arc::new(browser::Browser::new(Arc::clone(&config), None)),
    );
}

/// The Browser component with `files` as its file store (downloads, upload file ids): the host
/// calls this after [`register_all`], which registers it without one.
#[cfg(feature = "browser")]
pub fn register_browser(
    registry: &mut Registry,
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
