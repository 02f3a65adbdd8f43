//! `GET /api/v1/agents/{agent_id}/components/{component_id}/input-form` (`http-api.md` #32):
//! the fields the editor shows to test-run one component, read from the agent's draft DSL
//! as RAGFlow reads them from the canvas it builds (`canvasc_frontend::input_form`): the form,
//! or RAGFlow's exception answered as it answers it (`server_error_response`, code 100).

use axum::extract::{Path, State};
use serde_json::Value;

use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::shared::AppRef;

pub(crate) async fn get(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, component_id)): Path<(String, String)>,
) -> Answer {
    let (_, draft) = app
        .store
        .agent_text(&tenant, &agent_id)
        .await?
        .ok_or_else(ApiError::no_access)?;
    // Reading the whole DSL is CPU work on client data: off the async workers.
    let form = tokio::task::spawn_blocking(move || {
        let dsl: Value =
            serde_json::from_str(&draft).map_err(|e| format!("JSONDecodeError('{e}')"))?;
        canvasc_frontend::input_form::input_form(&dsl, &component_id)
    })
    .await
    .map_err(|e| ApiError::exception(format!("reading the input form failed: {e}")))?;
    form.map(Reply::success).map_err(ApiError::exception)
}
