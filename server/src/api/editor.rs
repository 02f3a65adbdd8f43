//! The agent editor's support endpoints (`http-api.md` §12–§13): default prompts, templates,
//! the database connection test and the pipeline re-run.
//!
//! `test_db_connection` and `rerun` validate their body before they authenticate, as
//! RAGFlow's `@validate_request` wraps its `@login_required`.

use axum::extract::State;
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Map, Value};

use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::{type_name, Body};
use crate::shared::AppRef;
use crate::turn::{DbConnection, DbTestFailure};

/// The routes of this module; static segments win over `/agents/{agent_id}`.
pub(crate) fn routes() -> Router<AppRef> {
    Router::new()
        .route("/api/v1/agents/prompts", get(prompts))
        .route("/api/v1/agents/templates", get(templates))
        .route(
            "/api/v1/agents/test_db_connection",
            post(test_db_connection),
        )
        .route("/api/v1/agents/rerun", post(rerun))
}

/// `GET /agents/prompts`: the host's prompt texts, unrendered.
async fn prompts(State(app): State<AppRef>, Tenant(_): Tenant) -> Answer {
    let data: Map<String, Value> = app
        .runner
        .editor_prompts()
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    Ok(Reply::success(Value::Object(data)))
}

/// `GET /agents/templates`: the templates loaded at start (none unless configured).
async fn templates(State(app): State<AppRef>, Tenant(_): Tenant) -> Answer {
    Ok(Reply::success(Value::Array(app.templates.clone())))
}

/// RAGFlow's `validate_request(*keys)`: every key must be present (any value), else code 101
/// naming the missing ones.
fn require(body: &Map<String, Value>, keys: &[&str]) -> Result<(), ApiError> {
    let missing: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| !body.contains_key(*k))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ApiError::missing_arguments(&missing))
    }
}

/// A connection field as the Python drivers would read it: text as is, numbers as digits.
fn field_text(body: &Map<String, Value>, key: &str) -> Result<String, ApiError> {
    match body.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        None => Ok(String::new()),
        Some(other) => Err(ApiError::exception(format!(
            "`{key}` must be a string, not {}.",
            type_name(other)
        ))),
    }
}

fn port(body: &Map<String, Value>) -> Result<u16, ApiError> {
    let bad = || ApiError::exception("`port` must be a TCP port number (1-65535).");
    let n = match body.get("port") {
        Some(Value::Number(n)) => n.as_u64().ok_or_else(bad)?,
        Some(Value::String(s)) => s.trim().parse::<u64>().map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    u16::try_from(n).ok().filter(|p| *p > 0).ok_or_else(bad)
}

/// `POST /agents/test_db_connection`: the host's ExeSQL drivers connect and run `SELECT 1`.
async fn test_db_connection(
    State(app): State<AppRef>,
    tenant: Result<Tenant, ApiError>,
    body: Body,
) -> Answer {
    let body = body.0;
    require(
        &body,
        &[
            "db_type", "database", "username", "host", "port", "password",
        ],
    )?;
    tenant?;
    let db = DbConnection {
        db_type: field_text(&body, "db_type")?,
        host: field_text(&body, "host")?,
        port: port(&body)?,
        database: field_text(&body, "database")?,
        username: field_text(&body, "username")?,
        password: field_text(&body, "password")?,
    };
    match app.runner.test_db_connection(db).await {
        Ok(()) => Ok(Reply::success(json!("Database Connection Successful!"))),
        Err(DbTestFailure::Host(reason)) => Err(ApiError::data(reason)),
        Err(DbTestFailure::Failed(text)) => Err(ApiError::exception(text)),
    }
}

/// `POST /agents/rerun`: re-runs an ingestion pipeline's document from a component. canvasc
/// runs no ingestion pipelines, so no pipeline log names a document: RAGFlow's answer for an
/// unknown one.
async fn rerun(tenant: Result<Tenant, ApiError>, body: Body) -> Answer {
    require(&body.0, &["id", "dsl", "component_id"])?;
    tenant?;
    Err(ApiError::data("Document not found."))
}

/// RAGFlow's `CanvasTemplate` rows from a directory of template files (`agent/templates/` of
/// a RAGFlow checkout, or a deployment's own), as its `add_graph_templates` loads them at
/// start: `*.json` in name order, categories normalised.
pub(crate) fn load_templates(dir: &std::path::Path, now_ms: i64) -> Result<Vec<Value>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the templates directory {}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut templates = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the template {}: {e}", path.display()))?;
        let Ok(Value::Object(mut t)) = serde_json::from_str::<Value>(&text) else {
            return Err(format!(
                "the template {} is not a JSON object",
                path.display()
            ));
        };
        normalise_categories(&mut t);
        t.entry("canvas_category")
            .or_insert_with(|| "agent_canvas".into());
        for key in ["avatar", "title", "description", "dsl"] {
            t.entry(key).or_insert(Value::Null);
        }
        let mut times = Map::new();
        super::add_times(&mut times, now_ms, now_ms);
        t.extend(times);
        templates.push(Value::Object(t));
    }
    Ok(templates)
}

/// `normalize_canvas_template_categories`: `canvas_types` = `canvas_type` then the listed
/// types, trimmed, non-empty, de-duplicated; `canvas_type` = the first of them or null.
fn normalise_categories(t: &mut Map<String, Value>) {
    let mut types: Vec<String> = Vec::new();
    if let Some(Value::String(s)) = t.get("canvas_type") {
        types.push(s.trim().to_string());
    }
    match t.get("canvas_types") {
        Some(Value::Array(items)) => types.extend(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_string()),
        ),
        Some(Value::String(s)) => types.push(s.trim().to_string()),
        _ => {}
    }
    let mut seen = Vec::new();
    for ty in types {
        if !ty.is_empty() && !seen.contains(&ty) {
            seen.push(ty);
        }
    }
    t.insert(
        "canvas_type".into(),
        seen.first().cloned().map_or(Value::Null, Value::String),
    );
    t.insert(
        "canvas_types".into(),
        Value::Array(seen.into_iter().map(Value::String).collect()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_are_named_in_order() {
        let body: Map<String, Value> =
            serde_json::from_value(json!({"db_type": "mysql"})).unwrap_or_default();
        let err = require(&body, &["db_type", "database", "host"]).err();
        let text = format!("{err:?}");
        assert!(
            text.contains("required argument are missing: database,host; "),
            "{text}"
        );
    }

    #[test]
    fn categories_normalise_like_ragflow() {
        let mut t: Map<String, Value> = serde_json::from_value(
            json!({"canvas_type": " Agent ", "canvas_types": ["Agent", "", "Marketing", 3]}),
        )
        .unwrap_or_default();
        normalise_categories(&mut t);
        assert_eq!(t["canvas_type"], json!("Agent"));
        assert_eq!(t["canvas_types"], json!(["Agent", "Marketing"]));
        let mut none = Map::new();
        normalise_categories(&mut none);
        assert_eq!(none["canvas_type"], Value::Null);
        assert_eq!(none["canvas_types"], json!([]));
    }
}
