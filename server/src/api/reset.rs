//! `POST /api/v1/agents/{agent_id}/reset` (`http-api.md` §8): RAGFlow's `Canvas.reset()` on
//! the agent's stored DSL, stored and answered.

use axum::extract::{Path, State};
use serde_json::Value;

use super::agent_of;
use crate::auth::Tenant;
use crate::clock::now_ms;
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;

pub(crate) async fn reset(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Answer {
    let agent = agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let mut dsl: Value = agent.dsl;
    crate::buildable::refuse_unbuildable(&dsl).await?;
    canvasc_frontend::reset::reset(&mut dsl);
    app.store
        .set_agent_dsl(&tenant, &agent_id, &dsl, now_ms())
        .await?;
    Ok(Reply::success(dsl))
}
