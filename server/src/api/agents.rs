//! Agents: list, create, get, update, delete (`http-api.md` §4). Saving a DSL also saves a
//! version (§5); publishing one with checker errors is refused, a draft with errors is saved
//! and answered with the diagnostics as `warnings`.

use axum::extract::{Path, State};
use serde_json::{json, Map, Value};

use super::{add_times, agent_of};
use crate::auth::Tenant;
use crate::clock::{new_id, now_ms, stamp};
use crate::envelope::{Answer, ApiError, Reply, OWNER_ONLY};
use crate::request::{paging, string, truthy, Body, Params};
use crate::shared::AppRef;
use crate::store::{Agent, AgentSummary, NewAgent, Version, VersionSummary};

const CATEGORIES: [&str; 2] = ["agent_canvas", "dataflow_canvas"];

fn canvas_not_found() -> ApiError {
    ApiError::data("canvas not found.")
}

/// An agent as `GET /agents/{id}` and `POST /agents` answer it.
fn agent_json(agent: &Agent) -> Map<String, Value> {
    let a = &agent.summary;
    let mut object = Map::new();
    object.insert("id".into(), a.id.clone().into());
    object.insert("title".into(), a.title.clone().into());
    object.insert("description".into(), a.description.clone().into());
    object.insert("avatar".into(), a.avatar.clone().into());
    object.insert("dsl".into(), agent.dsl.clone());
    object.insert("user_id".into(), a.user_id.clone().into());
    object.insert("permission".into(), a.permission.clone().into());
    object.insert("canvas_type".into(), a.canvas_type.clone().into());
    object.insert("canvas_category".into(), a.canvas_category.clone().into());
    object.insert("tags".into(), a.tags.clone().into());
    object.insert("nickname".into(), a.nickname.clone().into());
    object.insert("tenant_avatar".into(), Value::Null);
    add_times(&mut object, a.create_time, a.update_time);
    object
}

/// A list item: no DSL, plus the release time and RAGFlow's `type`.
fn summary_json(a: &AgentSummary) -> Value {
    json!({
        "id": a.id, "title": a.title, "description": a.description, "avatar": a.avatar,
        "permission": a.permission, "tenant_id": a.user_id, "user_id": a.user_id,
        "nickname": a.nickname, "tenant_avatar": null, "create_time": a.create_time,
        "update_time": a.update_time, "canvas_type": a.canvas_type,
        "canvas_category": a.canvas_category, "tags": a.tags, "release_time": a.release_time,
        "type": "agent",
    })
}

/// `GET /api/v1/agents`.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    params: Params,
) -> Answer {
    let (page, page_size) = paging(&params)?;
    let comma_list = |key: &str| -> Vec<String> {
        params
            .get(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let owner_ids = comma_list("owner_ids");
    if owner_ids.len() > 100 || owner_ids.iter().any(|id| *id != tenant) {
        return Err(ApiError::operating(
            "Only authorized owner_ids can be queried.",
        ));
    }
    let categories = comma_list("canvas_category");
    let tags: Vec<String> = comma_list("tags")
        .iter()
        .map(|t| t.to_lowercase())
        .collect();
    let keywords = params
        .get("keywords")
        .map(str::to_lowercase)
        .filter(|k| !k.is_empty());
    let mut agents: Vec<AgentSummary> = app
        .store
        .agents(&tenant)
        .await?
        .into_iter()
        .filter(|a| {
            let agent_tags: Vec<String> =
                a.tags.split(',').map(|t| t.trim().to_lowercase()).collect();
            keywords.as_ref().is_none_or(|k| {
                a.title.to_lowercase().contains(k.as_str())
                    || a.tags.to_lowercase().contains(k.as_str())
            }) && params.get("title").is_none_or(|t| a.title == t)
                && params.get("id").is_none_or(|id| a.id == id)
                && (categories.is_empty() || categories.contains(&a.canvas_category))
                && params.get("canvas_type").is_none_or(|t| a.canvas_type == t)
                && (tags.is_empty() || tags.iter().any(|t| agent_tags.contains(t)))
        })
        .collect();

    if params.get("type") == Some("filter") {
        return Ok(Reply::success(filter_counts(&agents)));
    }
    let by_title = params.get("orderby") == Some("title");
    let by_update = params.get("orderby") == Some("update_time");
    agents.sort_by(|a, b| {
        if by_title {
            a.title.cmp(&b.title)
        } else if by_update {
            (a.update_time, &a.id).cmp(&(b.update_time, &b.id))
        } else {
            (a.create_time, &a.id).cmp(&(b.create_time, &b.id))
        }
    });
    let descending = params
        .get("desc")
        .is_none_or(|d| !d.eq_ignore_ascii_case("false"));
    if descending {
        agents.reverse();
    }
    let total = agents.len();
    let skip = usize::try_from((page - 1).saturating_mul(page_size)).unwrap_or(usize::MAX);
    let take = usize::try_from(page_size).unwrap_or(usize::MAX);
    let canvas: Vec<Value> = agents
        .iter()
        .skip(skip)
        .take(take)
        .map(summary_json)
        .collect();
    Ok(Reply::success(json!({"canvas": canvas, "total": total})))
}

/// `type=filter`: how many agents per owner and per category (the web UI's filter panel).
fn filter_counts(agents: &[AgentSummary]) -> Value {
    let mut owners: Vec<(String, String, usize)> = Vec::new();
    let mut categories: Vec<(String, usize)> = Vec::new();
    for a in agents {
        match owners.iter_mut().find(|(id, _, _)| *id == a.user_id) {
            Some(owner) => owner.2 += 1,
            None => owners.push((a.user_id.clone(), a.nickname.clone(), 1)),
        }
        match categories
            .iter_mut()
            .find(|(id, _)| *id == a.canvas_category)
        {
            Some(category) => category.1 += 1,
            None => categories.push((a.canvas_category.clone(), 1)),
        }
    }
    json!({
        "filter": {
            "owner": owners.iter().map(|(id, label, count)| json!({"id": id, "label": label, "count": count})).collect::<Vec<_>>(),
            "canvas_category": categories.iter().map(|(id, count)| json!({"id": id, "count": count})).collect::<Vec<_>>(),
        },
        "total": agents.len(),
    })
}

/// The `dsl` field: an object, or a string holding one.
fn dsl_field(body: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    match body.get("dsl") {
        None => Ok(None),
        Some(Value::Object(dsl)) => Ok(Some(Value::Object(dsl.clone()))),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(dsl @ Value::Object(_)) => Ok(Some(dsl)),
            Ok(_) => Err(ApiError::argument("DSL must be a JSON object.")),
            Err(_) => Err(ApiError::argument("Invalid DSL JSON string.")),
        },
        Some(_) => Err(ApiError::argument("DSL must be a JSON object.")),
    }
}

/// The checker's diagnostics of `dsl` (JSON form); a DSL that is no canvas at all is one
/// diagnostic-like entry naming why.
async fn diagnostics(dsl: &Value) -> Result<Vec<Value>, ApiError> {
    let dsl = dsl.clone();
    // Checking is CPU work on client data: off the async workers.
    tokio::task::spawn_blocking(move || match canvasc_frontend::load_value(dsl) {
        Ok(loaded) => canvasc_frontend::analyze_loaded(loaded)
            .diagnostics
            .iter()
            .map(|d| serde_json::to_value(d).unwrap_or(Value::Null))
            .collect(),
        Err(e) => vec![json!({"severity": "error", "message": e.to_string()})],
    })
    .await
    .map_err(|e| ApiError::exception(format!("checking the DSL failed: {e}")))
}

fn is_error(diagnostic: &Value) -> bool {
    diagnostic.get("severity").and_then(Value::as_str) == Some("error")
}

/// Diagnostics of a DSL about to be saved: publishing one with errors is refused.
async fn checked(dsl: &Value, release: bool) -> Result<Vec<Value>, ApiError> {
    let diagnostics = diagnostics(dsl).await?;
    if release && diagnostics.iter().any(is_error) {
        let errors: Vec<&Value> = diagnostics.iter().filter(|d| is_error(d)).collect();
        return Err(ApiError::argument(format!(
            "The DSL has errors and cannot be published: {}",
            Value::from(errors.into_iter().cloned().collect::<Vec<_>>())
        )));
    }
    Ok(diagnostics)
}

/// `data` of a save, with the checker's diagnostics beside it when there are any.
fn saved(data: Value, warnings: Vec<Value>) -> Reply {
    let mut body = json!({"code": 0, "message": "success", "data": data});
    if !warnings.is_empty() {
        body["warnings"] = Value::from(warnings);
    }
    Reply::raw(body)
}

/// Saves `agent`'s DSL as a version; returns the id of the version that holds it.
async fn save_version(
    app: &AppRef,
    agent: &NewAgent,
    nickname: &str,
    released: bool,
    now: i64,
) -> Result<String, ApiError> {
    let version = Version {
        summary: VersionSummary {
            id: new_id(),
            agent_id: agent.id.clone(),
            title: format!("{nickname}_{}_{}", agent.title, stamp(now)),
            released,
            create_time: now,
            update_time: now,
            program_key: None,
        },
        description: agent.description.clone(),
        dsl: agent.dsl.clone(),
    };
    let holder = app.store.save_version(&agent.id, &version).await?;
    // Publishing compiles: the version serves on the interpreter at once, and its program is
    // built meanwhile (`builds.rs`).
    if let (true, Some(builds)) = (released, &app.builds) {
        builds.released(&app.store, &holder, &version.dsl).await?;
    }
    Ok(holder)
}

/// `POST /api/v1/agents`.
pub(crate) async fn create(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    body: Body,
) -> Answer {
    let body = body.0;
    if !body.contains_key("dsl") {
        return Err(ApiError::argument("No DSL data in request."));
    }
    let dsl = dsl_field(&body)?.unwrap_or_default();
    let title = string(&body, "title")?.map(|t| t.trim().to_string());
    let Some(title) = title.filter(|t| !t.is_empty()) else {
        return Err(ApiError::argument("No title in request."));
    };
    let canvas_category =
        string(&body, "canvas_category")?.unwrap_or_else(|| "agent_canvas".into());
    if !CATEGORIES.contains(&canvas_category.as_str()) {
        return Err(ApiError::argument(format!(
            "`canvas_category` must be one of {}, not `{canvas_category}`.",
            CATEGORIES.join(", ")
        )));
    }
    let release = truthy(body.get("release"));
    let warnings = checked(&dsl, release).await?;
    if app
        .store
        .agent_title_taken(&tenant, &canvas_category, &title, None)
        .await?
    {
        return Err(ApiError::data(format!("{title} already exists.")));
    }
    let now = now_ms();
    let agent = NewAgent {
        id: new_id(),
        user_id: tenant.clone(),
        title,
        description: string(&body, "description")?,
        avatar: string(&body, "avatar")?,
        dsl,
        canvas_type: string(&body, "canvas_type")?.unwrap_or_default(),
        canvas_category,
        permission: permission(&body)?.unwrap_or_else(|| "me".into()),
        create_time: now,
    };
    app.store.insert_agent(&agent).await?;
    let stored = agent_of(&app, &tenant, &agent.id, canvas_not_found).await?;
    save_version(&app, &agent, &stored.summary.nickname, release, now).await?;
    Ok(saved(Value::Object(agent_json(&stored)), warnings))
}

fn permission(body: &Map<String, Value>) -> Result<Option<String>, ApiError> {
    match string(body, "permission")? {
        Some(p) if p != "me" && p != "team" => Err(ApiError::argument(format!(
            "`permission` must be `me` or `team`, not `{p}`."
        ))),
        p => Ok(p),
    }
}

/// `GET /api/v1/agents/{agent_id}`.
pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Answer {
    let agent = agent_of(&app, &tenant, &agent_id, canvas_not_found).await?;
    let mut object = agent_json(&agent);
    let last_publish = app.store.newest_release(&agent_id).await?;
    object.insert(
        "last_publish_time".into(),
        last_publish.map(|v| v.summary.update_time).into(),
    );
    Ok(Reply::success(Value::Object(object)))
}

/// `PUT /api/v1/agents/{agent_id}`: absent fields keep their value; a `dsl` (or `release`)
/// saves a version.
pub(crate) async fn update(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Answer {
    let release = truthy(body.0.get("release"));
    let updated = update_agent(&app, &tenant, &agent_id, &body.0, release).await?;
    Ok(saved(
        json!({"update_time": updated.time}),
        updated.warnings,
    ))
}

/// `POST /api/v1/agents/{agent_id}/publish` (Go's `PublishAgent`): the agent's DSL, or the
/// `dsl` given (with `title` and `description` as an update takes them), saved as a released
/// version, which is returned (with its DSL and where its build stands).
pub(crate) async fn publish(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Answer {
    let updated = update_agent(&app, &tenant, &agent_id, &body.0, true).await?;
    let id = updated.version.unwrap_or_default();
    let version = app
        .store
        .version(&agent_id, &id)
        .await?
        .ok_or_else(|| ApiError::data("Version not found."))?;
    let object = super::versions::version_json(&app, version).await?;
    Ok(saved(Value::Object(object), updated.warnings))
}

/// What an update did.
struct Updated {
    time: i64,
    warnings: Vec<Value>,
    /// The version that holds the save, when it saved one.
    version: Option<String>,
}

/// Updates the agent from `body` (absent fields keep their value); a `dsl`, or `release`,
/// saves a version, released with `release`.
async fn update_agent(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    body: &Map<String, Value>,
    release: bool,
) -> Result<Updated, ApiError> {
    let stored = agent_of(app, tenant, agent_id, ApiError::no_access).await?;
    let s = &stored.summary;
    let new_dsl = dsl_field(body)?;
    let title = match string(body, "title")? {
        Some(t) if !t.trim().is_empty() => t.trim().to_string(),
        _ => s.title.clone(),
    };
    let agent = NewAgent {
        id: s.id.clone(),
        user_id: s.user_id.clone(),
        title,
        description: string(body, "description")?.or_else(|| s.description.clone()),
        avatar: string(body, "avatar")?.or_else(|| s.avatar.clone()),
        dsl: new_dsl.clone().unwrap_or_else(|| stored.dsl.clone()),
        canvas_type: string(body, "canvas_type")?.unwrap_or_else(|| s.canvas_type.clone()),
        canvas_category: s.canvas_category.clone(),
        permission: permission(body)?.unwrap_or_else(|| s.permission.clone()),
        create_time: s.create_time,
    };
    let saves_version = new_dsl.is_some() || release;
    let warnings = if saves_version {
        checked(&agent.dsl, release).await?
    } else {
        Vec::new()
    };
    if app
        .store
        .agent_title_taken(
            tenant,
            &agent.canvas_category,
            &agent.title,
            Some(&agent.id),
        )
        .await?
    {
        return Err(ApiError::data(format!("{} already exists.", agent.title)));
    }
    let now = now_ms();
    app.store.update_agent(&agent, now).await?;
    let version = match saves_version {
        true => Some(save_version(app, &agent, &s.nickname, release, now).await?),
        false => None,
    };
    Ok(Updated {
        time: now,
        warnings,
        version,
    })
}

/// `DELETE /api/v1/agents/{agent_id}` (owner only; its versions and sessions go with it).
pub(crate) async fn delete(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Answer {
    if !app.store.delete_agent(&tenant, &agent_id).await? {
        return Err(ApiError::operating(OWNER_ONLY));
    }
    Ok(Reply::success(Value::Bool(true)))
}
