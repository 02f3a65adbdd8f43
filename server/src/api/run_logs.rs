//! `GET /api/v1/agents/{agent_id}/logs/{message_id}` (`http-api.md` §11): the component trace
//! of one run, kept ten minutes, and which program ran it.

use axum::extract::{Path, State};
use serde_json::{json, Value};

use super::agent_of;
use crate::auth::Tenant;
use crate::clock::now_ms;
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;

const KEPT_MS: i64 = 10 * 60 * 1000;

pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, message_id)): Path<(String, String)>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    match trace(&app, &tenant, &agent_id, &message_id).await? {
        Some((program, trace)) => Ok(Reply::raw(
            json!({"code": 0, "message": "success", "data": trace, "program": program}),
        )),
        // RAGFlow answers an unknown run with an empty object, which its test checks.
        None => Ok(Reply::success(Value::Object(Default::default()))),
    }
}

/// The run's program and component trace, while it is kept.
pub(crate) async fn trace(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    message_id: &str,
) -> Result<Option<(String, Value)>, ApiError> {
    let since = now_ms() - KEPT_MS;
    Ok(app
        .store
        .run_trace(tenant, agent_id, message_id, since)
        .await?)
}
