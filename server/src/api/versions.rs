//! Versions of an agent (`http-api.md` §5): list without DSLs, one with its DSL. A released
//! version also says where the build of its program stands (`build`), with its log and a
//! retry of a failed one.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::{add_times, agent_of};
use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;
use crate::store::{BuildStatus, Version, VersionSummary};

async fn summary_json(app: &AppRef, v: &VersionSummary) -> Result<Map<String, Value>, ApiError> {
    let mut object = Map::new();
    object.insert("id".into(), v.id.clone().into());
    object.insert("user_canvas_id".into(), v.agent_id.clone().into());
    object.insert("title".into(), v.title.clone().into());
    object.insert("release".into(), v.released.into());
    add_times(&mut object, v.create_time, v.update_time);
    if let Some(key) = &v.program_key {
        let status = app.store.build_status(key).await?;
        object.insert("build".into(), status.as_ref().map(build_json).into());
    }
    Ok(object)
}

/// Where the build of a version's program stands.
fn build_json(status: &BuildStatus) -> Value {
    json!({
        "program": status.program_key,
        "state": status.state.as_str(),
        "error": status.error,
        "attempts": status.attempts,
        "queued_at": status.queued_at,
        "started_at": status.started_at,
        "finished_at": status.finished_at,
    })
}

/// `GET /api/v1/agents/{agent_id}/versions`.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let versions = app.store.versions(&agent_id).await?;
    let mut list = Vec::with_capacity(versions.len());
    for v in &versions {
        list.push(Value::Object(summary_json(&app, v).await?));
    }
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
    Ok(Reply::success(Value::Object(
        version_json(&app, version).await?,
    )))
}

/// A whole version: its summary, description, DSL and build.
pub(crate) async fn version_json(
    app: &AppRef,
    version: Version,
) -> Result<Map<String, Value>, ApiError> {
    let mut object = summary_json(app, &version.summary).await?;
    object.insert("description".into(), version.description.into());
    object.insert("dsl".into(), version.dsl);
    Ok(object)
}

/// `DELETE /api/v1/agents/{agent_id}/versions/{version_id}` (Go's `DeleteVersion`): `true`.
/// The version a released run starts from (the agent's newest release) is not deleted while
/// it is so: sessions starting now would lose their canvas.
pub(crate) async fn delete(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, version_id)): Path<(String, String)>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let newest_release = app.store.newest_release(&agent_id).await?;
    if newest_release.is_some_and(|v| v.summary.id == version_id) {
        return Err(ApiError::operating(
            "This is the released version the agent runs; release another version before deleting it.",
        ));
    }
    if !app.store.delete_version(&agent_id, &version_id).await? {
        return Err(ApiError::data("Version not found."));
    }
    Ok(Reply::success(Value::Bool(true)))
}

/// The program key of a version of an agent the tenant may read.
async fn program_of(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    version_id: &str,
) -> Result<String, ApiError> {
    agent_of(app, tenant, agent_id, ApiError::no_access).await?;
    let version = app
        .store
        .version(agent_id, version_id)
        .await?
        .ok_or_else(|| ApiError::data("Version not found."))?;
    version
        .summary
        .program_key
        .ok_or_else(|| ApiError::data("This version has no program build (it was not released)."))
}

/// `GET /api/v1/agents/{agent_id}/versions/{version_id}/build_log`: the log of the version's
/// program build, as text (the end of it, where the errors are).
pub(crate) async fn build_log(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, version_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let key = program_of(&app, &tenant, &agent_id, &version_id).await?;
    let log = app
        .store
        .build_log(&key)
        .await?
        .ok_or_else(|| ApiError::data("The build has not ended yet; it has no log."))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], log).into_response())
}

/// `POST /api/v1/agents/{agent_id}/versions/{version_id}/build`: queues a failed build again.
pub(crate) async fn retry_build(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, version_id)): Path<(String, String)>,
) -> Answer {
    let key = program_of(&app, &tenant, &agent_id, &version_id).await?;
    if !app.store.retry_build(&key, crate::clock::now_ms()).await? {
        return Err(ApiError::data(
            "Only a failed build can be retried; this one is queued, building or compiled.",
        ));
    }
    match &app.builds {
        Some(builds) => builds.requeued(&app.store, &key).await?,
        None => {
            let why = "this server builds no programs (a built binary serves what it carries)";
            app.store
                .fail_queued_build(&key, why, crate::clock::now_ms())
                .await?
        }
    }
    let status = app.store.build_status(&key).await?;
    Ok(Reply::success(status.as_ref().map(build_json).into()))
}
