//! `GET /api/v1/agents/{agent_id}/runs/{message_id}` (issue 42): how a run stands, from its
//! record on any replica, and once it ended its answer from the session it was saved into.
//! Background runs are read here; any run of the caller's agents can be.

use axum::extract::{Path, State};
use serde_json::{json, Value};

use super::agent_of;
use crate::auth::Tenant;
use crate::coord::{RunRecord, RunStatus};
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;

pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, message_id)): Path<(String, String)>,
) -> Answer {
    let record = run_of(&app, &tenant, &agent_id, &message_id).await?;
    let ms_or_null = |ms: i64| if ms > 0 { json!(ms) } else { Value::Null };
    let mut data = json!({
        "message_id": message_id, "agent_id": agent_id, "session_id": record.session_id,
        "status": record.status.as_str(), "program": record.mode,
        "started_at": ms_or_null(record.started_at), "finished_at": ms_or_null(record.finished_at),
        "failure_reason": record.failure_reason,
    });
    if record.status != RunStatus::Running {
        data["answer"] = answer(&app, &agent_id, &record.session_id, &message_id).await?;
    }
    Ok(Reply::success(data))
}

/// The record of run `message_id` of the caller's agent `agent_id` (any replica's).
pub(crate) async fn run_of(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    message_id: &str,
) -> Result<RunRecord, ApiError> {
    agent_of(app, tenant, agent_id, ApiError::no_access).await?;
    app.coord
        .run(message_id)
        .await?
        .filter(|r| r.canvas_id == agent_id && r.tenant_id == tenant)
        .ok_or_else(|| ApiError::data("Run not found."))
}

/// The run's assistant message in its session (`content`, and the references of that turn),
/// or `null` when the session no longer holds it.
async fn answer(
    app: &AppRef,
    agent_id: &str,
    session_id: &str,
    message_id: &str,
) -> Result<Value, ApiError> {
    let Some(session) = app.store.session(agent_id, session_id).await? else {
        return Ok(Value::Null);
    };
    let messages = session.state["message"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let assistants: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    let Some(turn) = assistants.iter().position(|m| m["id"] == message_id) else {
        return Ok(Value::Null);
    };
    let reference = session.state["reference"]
        .get(turn)
        .cloned()
        .unwrap_or(Value::Null);
    Ok(json!({"content": assistants[turn]["content"], "reference": reference}))
}
