//! Cancelling a run (`http-api.md` §9): `POST /api/v1/tasks/{session_id}/cancel` and Python's
//! `PATCH /api/v1/tasks/{session_id}` with `{"action": "stop"}`. Any replica answers: the
//! coordinator sets RAGFlow's `{task_id}-cancel` key and notifies the replica running it. The
//! run stops at once (calls in flight are abandoned) and its stream ends with RAGFlow's cancel
//! events; idempotent.

use axum::extract::{Path, State};
use serde_json::Value;

use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply, OWNER_ONLY};
use crate::request::{string, Body};
use crate::shared::AppRef;

pub(crate) async fn cancel(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(session_id): Path<String>,
) -> Answer {
    stop(&app, &tenant, &session_id).await
}

pub(crate) async fn patch(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(session_id): Path<String>,
    body: Body,
) -> Answer {
    let action = string(&body.0, "action")?.unwrap_or_default();
    if action != "stop" {
        return Err(ApiError::argument(format!(
            "Invalid action '{action}'. Only 'stop' is supported."
        )));
    }
    stop(&app, &tenant, &session_id).await
}

/// Another tenant's session answers as RAGFlow answers a non-owner; an unknown one is a no-op.
async fn stop(app: &AppRef, tenant: &str, session_id: &str) -> Answer {
    if let Some((_, owner)) = app.store.session_owner(session_id).await? {
        if owner != tenant {
            return Err(ApiError::operating(OWNER_ONLY));
        }
        app.coord.cancel(session_id).await?;
    }
    Ok(Reply::success(Value::Bool(true)))
}
