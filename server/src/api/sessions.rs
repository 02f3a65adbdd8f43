//! Agent sessions (`http-api.md` §6): create, list, get, delete one, delete many.

use std::collections::HashSet;

use axum::extract::{Path, State};
use serde_json::{json, Map, Value};

use super::turn_start::session_canvas;
use super::{add_times, agent_of};
use crate::auth::Tenant;
use crate::clock::{date_bound, new_id, now_ms};
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::{flag, paging, string, truthy, type_name, Body, Params};
use crate::shared::AppRef;
use crate::store::session_state;
use crate::store::{NewSession, SessionFilter, SessionRecord};
use crate::turn::SessionState;

const DEFAULT_PROLOGUE: &str = "Hi! I'm your smart assistant. What can I do for you?";

fn session_not_found() -> ApiError {
    ApiError::data("Session not found!")
}

/// The Begin component's prologue, in the v1 form (`components`) or the editor's graph form.
fn prologue(dsl: &Value) -> String {
    let from_components = dsl
        .get("components")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|components| components.values())
        .filter(|c| c.pointer("/obj/component_name").and_then(Value::as_str) == Some("Begin"))
        .find_map(|c| c.pointer("/obj/params/prologue").and_then(Value::as_str));
    let from_graph = || {
        dsl.pointer("/graph/nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|n| n.pointer("/data/label").and_then(Value::as_str) == Some("Begin"))
            .find_map(|n| n.pointer("/data/form/prologue").and_then(Value::as_str))
    };
    from_components
        .or_else(from_graph)
        .unwrap_or(DEFAULT_PROLOGUE)
        .to_string()
}

/// A stored reference chunk in the list form RAGFlow's session list shows.
fn chunk_json(chunk: &Value, citation_id: Option<&str>) -> Value {
    let pick = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| chunk.get(*k).filter(|v| !v.is_null()))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut object = json!({
        "id": pick(&["id", "chunk_id"]),
        "content": pick(&["content", "content_with_weight"]),
        "document_id": pick(&["document_id", "doc_id"]),
        "document_name": pick(&["document_name", "docnm_kwd"]),
        "dataset_id": pick(&["dataset_id", "kb_id"]),
        "image_id": pick(&["image_id", "img_id"]),
        "positions": pick(&["positions", "position_int"]),
    });
    if let Some(id) = citation_id {
        object["citation_id"] = id.into();
    }
    object
}

/// One assistant turn's reference entry as a list of chunks.
fn reference_list(entry: &Value) -> Vec<Value> {
    match entry.get("chunks") {
        Some(Value::Array(chunks)) => chunks.iter().map(|c| chunk_json(c, None)).collect(),
        Some(Value::Object(chunks)) => chunks
            .iter()
            .map(|(id, c)| chunk_json(c, Some(id)))
            .collect(),
        _ => Vec::new(),
    }
}

/// A session as the list shows it: each assistant turn after the prologue carries its
/// references, internal `prompt` fields are dropped.
fn session_json(record: &SessionRecord, dsl: Option<Value>) -> Map<String, Value> {
    let state = &record.state;
    let references: Vec<Value> = state
        .get("reference")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut assistant_turns = 0usize;
    let messages: Vec<Value> = state
        .get("message")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|message| {
            let mut message = message.clone();
            if let Some(object) = message.as_object_mut() {
                object.remove("prompt");
                if object.get("role").and_then(Value::as_str) == Some("assistant") {
                    if assistant_turns > 0 {
                        let entry = references.get(assistant_turns - 1).unwrap_or(&Value::Null);
                        object.insert("reference".into(), Value::from(reference_list(entry)));
                    }
                    assistant_turns += 1;
                }
            }
            message
        })
        .collect();
    let field = |key: &str, default: Value| state.get(key).cloned().unwrap_or(default);
    let mut object = Map::new();
    object.insert("id".into(), record.id.clone().into());
    object.insert("agent_id".into(), record.agent_id.clone().into());
    object.insert("name".into(), record.name.clone().into());
    object.insert("user_id".into(), record.user_id.clone().into());
    object.insert("exp_user_id".into(), record.user_id.clone().into());
    object.insert("source".into(), record.source.clone().into());
    object.insert("message".into(), Value::from(messages));
    if let Some(dsl) = dsl {
        object.insert("dsl".into(), dsl);
    }
    object.insert("round".into(), field("round", json!(0)));
    object.insert("tokens".into(), field("tokens", json!(0)));
    object.insert("duration".into(), field("duration", json!(0.0)));
    object.insert("thumb_up".into(), field("thumb_up", json!(0)));
    object.insert("errors".into(), field("errors", Value::Null));
    object.insert("version_title".into(), record.version_title.clone().into());
    add_times(&mut object, record.create_time, record.update_time);
    object
}

/// The session's `dsl` as RAGFlow stores it: rebuilt from its canvas and run state.
async fn session_dsl(app: &AppRef, record: &SessionRecord) -> Result<Value, ApiError> {
    // Only what names the canvas and the run state, not the transcript.
    let mut state = Map::new();
    for key in [
        session_state::CANVAS_KEY,
        session_state::RUN_STATE_KEY,
        "dsl",
    ] {
        if let Some(value) = record.state.get(key) {
            state.insert(key.into(), value.clone());
        }
    }
    let mut state = Value::Object(state);
    let (canvas, run_state) = session_canvas(app, &mut state).await?;
    match run_state {
        SessionState::Dsl(dsl) => Ok(dsl),
        SessionState::Canvas if canvas.dsl.is_null() => Ok(json!({})),
        SessionState::Canvas => Ok((*canvas.dsl).clone()),
        document @ SessionState::Document(_) => app
            .runner
            .session_dsl(&canvas, &document)
            .map_err(|e| ApiError::data(format!("The session's DSL cannot be shown: {e}"))),
    }
}

/// `POST /api/v1/agents/{agent_id}/sessions`: a new session on the agent's draft DSL (or its
/// newest released version with `release`), its run state reset, its transcript the prologue.
pub(crate) async fn create(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    params: Params,
    body: Body,
) -> Answer {
    let (_, draft) = app
        .store
        .agent_text(&tenant, &agent_id)
        .await?
        .ok_or_else(ApiError::no_access)?;
    let body = body.0;
    let release = truthy(body.get("release")) || params.get("release").is_some_and(flag);
    let (dsl, version_title) = if release {
        let (version, dsl) = app
            .store
            .version_text(&agent_id, None)
            .await?
            .ok_or_else(|| ApiError::data("No available published version"))?;
        (dsl, Some(version.title))
    } else {
        let newest = app.store.newest_version_title(&agent_id).await?;
        (draft, newest)
    };
    let canvas = app
        .starting_canvases
        .starting_canvas(&agent_id, &dsl, true)
        .await?;
    let user_id = match string(&body, "user_id")? {
        Some(user) => user,
        None => params.get("user_id").unwrap_or(&tenant).to_string(),
    };
    let session = NewSession {
        id: new_id(),
        agent_id: agent_id.clone(),
        tenant_id: tenant,
        user_id,
        name: string(&body, "name")?.unwrap_or_default(),
        source: "agent".into(),
        version_title,
        state: json!({
            "message": [{"role": "assistant", "content": prologue(&canvas.dsl)}],
            "reference": [],
            // A released version's session may run a compiled program.
            "released": release,
            "round": 0,
            "tokens": 0,
            "duration": 0.0,
            "thumb_up": 0,
            "errors": null,
        }),
        canvas,
        create_time: now_ms(),
    };
    app.store.insert_session(&session, "").await?;
    let stored = app
        .store
        .session(&agent_id, &session.id)
        .await?
        .ok_or_else(session_not_found)?;
    Ok(Reply::raw(
        json!({"code": 0, "data": session_json(&stored, Some(session_dsl(&app, &stored).await?))}),
    ))
}

/// `GET /api/v1/agents/{agent_id}/sessions`.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    params: Params,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let (page, page_size) = paging(&params)?;
    let order_by_create = params.get("orderby") == Some("create_time");
    let text = |key: &str| params.get(key).filter(|v| !v.is_empty()).map(String::from);
    let date = |key: &str, end_of_day: bool| -> Result<Option<i64>, ApiError> {
        match params.get(key).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => date_bound(v, end_of_day).map(Some).ok_or_else(|| {
                ApiError::argument(format!(
                    "`{key}` must be a date (YYYY-MM-DD) or an ISO-8601 date-time, not `{v}`."
                ))
            }),
        }
    };
    if let Some(exp_user_id) = text("exp_user_id") {
        let filter = SessionFilter {
            user_id: Some(exp_user_id),
            descending: true,
            ..SessionFilter::default()
        };
        let (sessions, _) = app.store.sessions(&agent_id, &filter).await?;
        let names: Vec<Value> = sessions
            .iter()
            .map(|s| json!({"id": s.id, "name": s.name}))
            .collect();
        return Ok(Reply::success(Value::from(names)));
    }
    let filter = SessionFilter {
        id: text("id"),
        user_id: text("user_id"),
        keywords: text("keywords").map(|k| k.to_lowercase()),
        from_time: date("from_date", false)?,
        to_time: date("to_date", true)?,
        order_by_create,
        descending: !matches!(params.get("desc"), Some("false" | "False")),
        page: Some((page_size, (page - 1).saturating_mul(page_size))),
    };
    let with_dsl = !matches!(params.get("dsl"), Some("false" | "False"));
    let (sessions, total) = app.store.sessions(&agent_id, &filter).await?;
    let mut list = Vec::with_capacity(sessions.len());
    for session in &sessions {
        let dsl = match with_dsl {
            true => Some(session_dsl(&app, session).await?),
            false => None,
        };
        list.push(Value::Object(session_json(session, dsl)));
    }
    Ok(Reply::raw(
        json!({"code": 0, "message": "success", "total": total, "data": list}),
    ))
}

/// `GET /api/v1/agents/{agent_id}/sessions/{session_id}`: the list shape plus RAGFlow's raw
/// `dialog_id`, so readers of either form work.
pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, session_id)): Path<(String, String)>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let session = app
        .store
        .session(&agent_id, &session_id)
        .await?
        .ok_or_else(session_not_found)?;
    let mut object = session_json(&session, Some(session_dsl(&app, &session).await?));
    object.insert("dialog_id".into(), session.agent_id.clone().into());
    Ok(Reply::success(Value::Object(object)))
}

/// `DELETE /api/v1/agents/{agent_id}/sessions/{session_id}`.
pub(crate) async fn delete_one(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, session_id)): Path<(String, String)>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    if !app.store.delete_session(&agent_id, &session_id).await? {
        return Err(session_not_found());
    }
    Ok(Reply::success(Value::Bool(true)))
}

/// The ids of a batch delete: the body's `ids` list, or the query's comma list (Go's form).
fn batch_ids(body: &Map<String, Value>, params: &Params) -> Result<Vec<String>, ApiError> {
    match body.get("ids") {
        Some(Value::Array(ids)) => ids
            .iter()
            .map(|id| match id {
                Value::String(id) => Ok(id.clone()),
                other => Err(ApiError::argument(format!(
                    "`ids` must be a list of strings, not a list holding {}.",
                    type_name(other)
                ))),
            })
            .collect(),
        Some(other) => Err(ApiError::argument(format!(
            "`ids` must be a list of strings, not {}.",
            type_name(other)
        ))),
        None => Ok(params
            .get("ids")
            .map(|ids| {
                ids.split(',')
                    .map(str::trim)
                    .filter(|id| !id.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()),
    }
}

/// `DELETE /api/v1/agents/{agent_id}/sessions`: by `ids`, or all with `delete_all: true`.
pub(crate) async fn delete_many(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    params: Params,
    body: Body,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let body = body.0;
    let ids = batch_ids(&body, &params)?;
    let delete_all = truthy(body.get("delete_all")) || params.get("delete_all").is_some_and(flag);
    if ids.is_empty() {
        if delete_all {
            app.store.delete_all_sessions(&agent_id).await?;
        }
        return Ok(Reply::raw(json!({"code": 0})));
    }
    let mut seen = HashSet::new();
    let mut errors = Vec::new();
    let mut deleted = 0usize;
    for id in &ids {
        if !seen.insert(id.as_str()) {
            errors.push(format!("Duplicate session ids: {id}"));
            continue;
        }
        if app.store.delete_session(&agent_id, id).await? {
            deleted += 1;
        } else {
            errors.push(format!("The agent doesn't own the session {id}"));
        }
    }
    if errors.is_empty() {
        Ok(Reply::raw(json!({"code": 0})))
    } else if deleted > 0 {
        Ok(Reply::raw(json!({
            "code": 0,
            "message": format!("Partially deleted {deleted} sessions with {} errors", errors.len()),
            "data": {"success_count": deleted, "errors": errors},
        })))
    } else {
        Err(ApiError::data(errors.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prologue_comes_from_begin() {
        let v1 = json!({"components": {"begin": {"obj": {"component_name": "Begin",
            "params": {"prologue": "Hello"}}}}});
        assert_eq!(prologue(&v1), "Hello");
        let graph = json!({"graph": {"nodes": [{"data": {"label": "Begin",
            "form": {"prologue": "Hi there"}}}]}});
        assert_eq!(prologue(&graph), "Hi there");
        assert_eq!(prologue(&json!({})), DEFAULT_PROLOGUE);
    }

    #[test]
    fn references_fold_into_chunk_lists() {
        let entry = json!({"chunks": {"20": {"chunk_id": "c", "content_with_weight": "x",
            "doc_id": "d", "docnm_kwd": "n", "kb_id": "k", "img_id": "i", "position_int": []}}});
        let list = reference_list(&entry);
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["citation_id"], "20");
        assert_eq!(list[0]["document_name"], "n");
    }
}
