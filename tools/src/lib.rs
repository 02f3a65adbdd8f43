//! RAGFlow's tools (`agent/tools/*.py`, tools.md), implemented on the engine's seam for
//! components outside it (`canvasc_runtime::exec::external`). One module per tool; each serves
//! a canvas node and an Agent's function call alike. The host registers them
//! ([`register_all`]); the engine never depends on this crate.
//!
//! Endpoints and API keys come from [`config::ToolsConfig`] (tools.md §31).

pub mod common;
pub mod config;
pub mod legacy;
pub mod tavily;
pub mod wencai;

use canvasc_runtime::exec::external::Registry;
use canvasc_runtime::frontend::catalog::Kind;
use config::ToolsConfig;
use std::sync::Arc;

/// Every tool of this crate, registered for its kind.
pub fn register_all(registry: &mut Registry, config: &ToolsConfig) {
    let config = Arc::new(config.clone());
    registry.register(Kind::Jin10, Arc::new(legacy::Legacy));
    registry.register(Kind::TuShare, Arc::new(legacy::Legacy));
    registry.register(Kind::WenCai, Arc::new(wencai::WenCai));
    registry.register(
        Kind::TavilySearch,
        Arc::new(tavily::TavilySearch::new(Arc::clone(&config))),
    );
    registry.register(
        Kind::TavilyExtract,
        Arc::new(tavily::TavilyExtract::new(Arc::clone(&config))),
    );
}
