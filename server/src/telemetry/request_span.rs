//! One span per request (OpenTelemetry's HTTP server conventions). Only the method, the path
//! and the status are recorded: never a header or the query string, where keys travel.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The middleware: the handler and everything it starts on the request's task (a turn's
/// engine task inherits it) run inside the span.
pub(crate) async fn request_span(request: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        target: "canvasc",
        "canvasc.request",
        otel.name = tracing::field::Empty,
        otel.kind = "server",
        http.request.method = %request.method(),
        url.path = %request.uri().path(),
        http.response.status_code = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    span.record(
        "otel.name",
        format!("{} {}", request.method(), request.uri().path()).as_str(),
    );
    super::extract_context(request.headers(), &span);
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    span.record("http.response.status_code", status);
    if status >= 500 {
        span.record("otel.status_code", "ERROR");
    }
    response
}
