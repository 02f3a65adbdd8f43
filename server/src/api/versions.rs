//! Versions of an agent (`http-api.md` §5): list without DSLs, one with its DSL.

use axum::extract::{Path, State};
use serde_json::{Map, Value};

use super::{add_times, agent_of};
use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;
use crate::store::VersionSummary;

fn summary_json(v: &VersionSummary) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("id".into(), v.id.clone().into());
    object.insert("user_canvas_id".into(), v.agent_id.clone().into());
    object.insert("title".into(), v.title.clone().into());
    object.insert("release".into(), v.released.into());
    add_times(&mut object, v.create_time, v.update_time);
    object
}

/// `GET /api/v1/agents/{agent_id}/versions`.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let versions = app.store.versions(&agent_id).await?;
    let list: Vec<Value> = versions
        .iter()
        .map(|v| Value::Object(summary_json(v)))
        .collect();
    Ok(Reply::success(Value::from(list)))
}

/// `GET /api/v1/agents/{agent_id}/versions/{version_id}`.
pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, version_id)): Path<(String, String)>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let version = app
        .store
        .version(&agent_id, &version_id)
        .await?
        .ok_or_else(|| ApiError::data("Version not found."))?;
    let mut object = summary_json(&version.summary);
    object.insert("description".into(), version.description.into());
    object.insert("dsl".into(), version.dsl);
    Ok(Reply::success(Value::Object(object)))
}
