//! Webhooks (`http-api.md` §12): a canvas whose Begin is in `Webhook` mode is started by an
//! HTTP request to `ANY /api/v1/agents/{agent_id}/webhook`, secured by the Begin's own
//! settings instead of an API key, as RAGFlow's `_webhook_impl` runs it. The request's query,
//! headers and body, validated by the Begin's schema, become Begin's outputs; the answer is
//! either the configured response at once (the run goes on in the background) or the run's
//! final message. `/webhook/test` does the same for the owner and records the run for the
//! editor's poll (`trace.rs`).

pub(crate) mod begin;
mod jwt;
pub mod parts;
pub mod schema;
mod security;
mod trace;
mod trigger;

use axum::routing::{get, on, MethodFilter};
use axum::Router;
use serde_json::{Map, Value};

use crate::shared::AppRef;

/// The methods RAGFlow routes to a webhook.
fn webhook_methods() -> MethodFilter {
    MethodFilter::POST
        .or(MethodFilter::GET)
        .or(MethodFilter::PUT)
        .or(MethodFilter::PATCH)
        .or(MethodFilter::DELETE)
        .or(MethodFilter::HEAD)
}

pub(crate) fn routes() -> Router<AppRef> {
    Router::new()
        .route(
            "/api/v1/agents/{agent_id}/webhook",
            on(webhook_methods(), trigger::production),
        )
        .route(
            "/api/v1/agents/{agent_id}/webhook/test",
            on(webhook_methods(), trigger::test),
        )
        .route("/api/v1/agents/{agent_id}/webhook/logs", get(trace::logs))
}

/// The payload a Webhook-mode Begin gets (`clean_request`): the schema's fields of each part,
/// and the whole request under `input`. The error is the schema's rejection.
pub fn payload(parts: &parts::Parts, schema: Option<&Value>) -> Result<Map<String, Value>, String> {
    let empty = Value::Object(Map::new());
    let schema = schema.unwrap_or(&empty);
    let section = |name: &str| -> Result<Value, String> {
        let part_schema = match schema {
            Value::Object(s) => s.get(name).unwrap_or(&empty),
            other => {
                return Err(format!(
                    "'{}' object has no attribute 'get'",
                    canvasc_value::py::type_name(other)
                ))
            }
        };
        Ok(Value::Object(schema::extract(
            &match name {
                "query" => Value::Object(parts.query.clone()),
                "headers" => Value::Object(parts.headers.clone()),
                _ => parts.body.clone(),
            },
            part_schema,
            name,
        )?))
    };
    let mut payload = Map::new();
    payload.insert("query".into(), section("query")?);
    payload.insert("headers".into(), section("headers")?);
    payload.insert("body".into(), section("body")?);
    payload.insert("input".into(), parts.to_value());
    Ok(payload)
}
