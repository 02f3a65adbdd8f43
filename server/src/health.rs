//! `GET /healthz` and `GET /readyz`, for load balancers and orchestrators: the process is alive,
//! and it is ready to take runs (its database answers and it is not draining for a shutdown).
//! Both answer without authentication and say nothing but their state.

use std::sync::atomic::Ordering;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use crate::envelope::json_response;
use crate::shared::AppRef;

/// Alive: the process answers HTTP.
pub(crate) async fn healthz() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

/// Ready: not draining, and the database answers; otherwise 503 with why.
pub(crate) async fn readyz(State(app): State<AppRef>) -> Response {
    if app.draining.load(Ordering::Relaxed) {
        return json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"status": "draining"}),
        );
    }
    match app.store.ping().await {
        Ok(()) => json_response(StatusCode::OK, &json!({"status": "ready"})),
        Err(_) => {
            let body = json!({"status": "unavailable", "reason": "the database does not answer"});
            json_response(StatusCode::SERVICE_UNAVAILABLE, &body)
        }
    }
}
