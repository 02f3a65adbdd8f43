//! The engine's side of telemetry: `tracing` spans for a run, each component invocation, each
//! model call and each outbound call, and the seam through which the host propagates a trace.
//!
//! The engine only creates spans; it installs no subscriber and knows no exporter. With no
//! subscriber (or one whose filter rejects them) every span here is disabled at its call site,
//! which costs one relaxed atomic load, and field values are not even computed, so the
//! scheduler's per-node budget holds. The span structure is the same for compiled and
//! interpreted runs; only `canvasc.mode` tells them apart.
//!
//! Names follow OpenTelemetry: the GenAI semantic conventions for model calls
//! (`gen_ai.*`), the HTTP ones for outbound calls (`url.full`, `http.response.status_code`);
//! `otel.name` and `otel.status_code` are read by `tracing-opentelemetry` on the host.

use reqwest::header::HeaderMap;
use std::sync::{Arc, OnceLock};

/// The target of every span the engine creates, so a filter can select them (`canvasc=info`).
pub const TARGET: &str = "canvasc";

/// What the host knows about a run that the engine does not: shown on the run span.
#[derive(Clone, Debug, Default)]
pub struct RunLabels {
    /// The agent (canvas) id, where the host has one (the server; the CLI names the file).
    pub canvas_id: Option<Arc<str>>,
    pub session_id: Option<Arc<str>>,
    /// The DSL's fingerprint, where the host computed it (choosing a compiled program).
    pub fingerprint: Option<Arc<str>>,
}

/// Writes the current trace context (W3C `traceparent`, `tracestate`) into a request's headers.
pub type HeaderInjector = fn(&mut HeaderMap);

/// The host's injector. A process-wide hook rather than a field of `Services`: the context it
/// reads is the current `tracing` span, which is process-wide state already (the subscriber is
/// global), and every HTTP call site (model clients the host builds, tools, MCP) reaches it
/// without threading `Services` through clients that are built before any run.
static INJECTOR: OnceLock<HeaderInjector> = OnceLock::new();

/// Install the trace-context injector (once per process; `false` if one was installed).
pub fn set_header_injector(inject: HeaderInjector) -> bool {
    INJECTOR.set(inject).is_ok()
}

/// Add the current trace context to an outbound request's headers (nothing when the host
/// installed no injector, or no span is being recorded).
pub fn inject_trace_context(headers: &mut HeaderMap) {
    if let Some(inject) = INJECTOR.get() {
        inject(headers);
    }
}

/// Add `span`'s trace context (rather than the current span's) to a request's headers.
pub fn inject_trace_context_in(span: &tracing::Span, headers: &mut HeaderMap) {
    if span.is_disabled() {
        inject_trace_context(headers);
    } else {
        span.in_scope(|| inject_trace_context(headers));
    }
}

/// The current trace context as header pairs, for call sites that keep headers as text.
pub fn trace_context_pairs() -> Vec<(String, String)> {
    let mut headers = HeaderMap::new();
    inject_trace_context(&mut headers);
    headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect()
}

/// The URL as a span shows it: no userinfo, query or fragment (where keys travel).
pub fn redacted_url(url: &str) -> String {
    super::redact::shown(url)
}

/// A span for one outbound HTTP call to a URL a canvas or configuration controls (`call`: what
/// for, `tool`, `invoke`, `mcp`, `model`); the caller records the answer with [`record_status`]
/// or [`record_failure`]. The URL is redacted only when the span is recorded.
pub fn outbound_span(call: &'static str, method: &str, url: &str) -> tracing::Span {
    tracing::info_span!(
        target: "canvasc",
        "canvasc.http",
        otel.kind = "client",
        canvasc.call = call,
        http.request.method = method,
        url.full = %redacted_url(url),
        http.response.status_code = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// Record an outbound call's answer on its span: the status, and an error for 4xx/5xx.
pub fn record_status(span: &tracing::Span, status: u16) {
    span.record("http.response.status_code", status);
    if status >= 400 {
        span.record("error.type", status.to_string().as_str());
        span.record("otel.status_code", "ERROR");
    }
}

/// Record a call that got no answer (connection, timeout, guard refusal).
pub fn record_failure(span: &tracing::Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
}

#[cfg(test)]
mod tests {
    use super::redacted_url;

    #[test]
    fn urls_lose_userinfo_query_and_fragment() {
        assert_eq!(
            redacted_url("https://user:pw@api.example.com:8443/v1/x?key=sk-123#frag"),
            "https://api.example.com:8443/v1/x"
        );
        assert_eq!(redacted_url("not a url"), "<invalid URL>");
    }
}
