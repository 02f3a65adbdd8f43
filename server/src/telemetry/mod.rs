//! Telemetry of the server: a span per request (the parent of the turn it starts, continuing
//! the caller's W3C trace context) and the Prometheus metrics of `GET /metrics`.
//!
//! The server depends on `tracing` only. Reading `traceparent` into a span needs the
//! OpenTelemetry context, which the host owns: it installs [`set_context_extractor`] when it
//! exports traces; without one the request span simply starts a trace of its own.

pub(crate) mod metrics;
mod request_span;

pub(crate) use request_span::request_span;

use axum::http::HeaderMap;
use std::sync::OnceLock;

/// Makes `span`'s parent the trace context the request's headers carry (`traceparent`).
pub type ContextExtractor = fn(&HeaderMap, &tracing::Span);

static EXTRACTOR: OnceLock<ContextExtractor> = OnceLock::new();

/// Install the trace-context extractor (once per process; `false` if one was installed).
pub fn set_context_extractor(extract: ContextExtractor) -> bool {
    EXTRACTOR.set(extract).is_ok()
}

fn extract_context(headers: &HeaderMap, span: &tracing::Span) {
    if let Some(extract) = EXTRACTOR.get() {
        extract(headers, span);
    }
}
