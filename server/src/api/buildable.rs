//! RAGFlow builds the canvas (`Canvas(dsl)`) before it creates a session, resets an agent or
//! starts a new session's first turn, and answers a canvas it cannot build with
//! `server_error_response(e)`: code 100 and `repr(e)`, e.g.
//! `{"code":100,"message":"AssertionError(\"Can't import AnswerParam\")","data":null}`
//! (`frontend/construct.rs` says which canvases those are).

use serde_json::Value;

use crate::envelope::ApiError;

/// Refuses a DSL RAGFlow cannot build, as RAGFlow's API answers it. A DSL that is not a canvas
/// at all passes: the step that reads it reports that.
pub(crate) async fn refuse_unbuildable(dsl: &Value) -> Result<(), ApiError> {
    let dsl = dsl.clone();
    // Loading is CPU work on client data: off the async workers.
    let error = tokio::task::spawn_blocking(move || {
        canvasc_frontend::load_value(dsl)
            .ok()
            .and_then(|loaded| canvasc_frontend::construct::construction_error(&loaded.document))
    })
    .await
    .map_err(|e| ApiError::exception(format!("checking the DSL failed: {e}")))?;
    match error {
        Some(e) => Err(ApiError::exception(e.repr())),
        None => Ok(()),
    }
}
