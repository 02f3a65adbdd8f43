//! One span per request (OpenTelemetry's HTTP server conventions). Only the method, the path
//! and the status are recorded: never a header or the query string, where keys travel. A
//! route whose path can hold a secret (`DELETE /system/tokens/{key}` takes the API key
//! itself from RAGFlow's clients) is recorded by its route template instead of its path.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The middleware: the handler and everything it starts on the request's task (a turn's
/// engine task inherits it) run inside the span.
pub(crate) async fn request_span(request: Request, next: Next) -> Response {
    let path = loggable_path(&request);
    let span = tracing::info_span!(
        target: "canvasc",
        "canvasc.request",
        otel.name = tracing::field::Empty,
        otel.kind = "server",
        http.request.method = %request.method(),
        url.path = %path,
        http.response.status_code = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    span.record("otel.name", format!("{} {path}", request.method()).as_str());
    super::extract_context(request.headers(), &span);
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    span.record("http.response.status_code", status);
    if status >= 500 {
        span.record("otel.status_code", "ERROR");
    }
    response
}

/// Routes whose path parameters may be secrets.
const SECRET_ROUTES: &[&str] = &["/api/v1/system/tokens/{key}"];

/// The request's path, or its route template when the path may carry a secret.
fn loggable_path(request: &Request) -> String {
    match request.extensions().get::<MatchedPath>() {
        Some(route) if SECRET_ROUTES.contains(&route.as_str()) => route.as_str().to_string(),
        _ => request.uri().path().to_string(),
    }
}
