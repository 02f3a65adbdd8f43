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
    match unbuildable(dsl).await? {
        Some(why) => Err(ApiError::exception(why.repr)),
        None => Ok(()),
    }
}

/// Why RAGFlow cannot build a DSL: its exception.
#[derive(Clone, Debug)]
pub(crate) struct Unbuildable {
    /// `repr(e)`, which `server_error_response` answers.
    pub repr: String,
    /// `str(e)`, which the webhook answers.
    pub message: String,
    /// canvasc's own words: the component, its kind and where in the DSL (the answer keeps
    /// RAGFlow's text; the log says this).
    pub finding: String,
}

/// Why RAGFlow cannot build `dsl`, or `None` when it can.
pub(crate) async fn unbuildable(dsl: &Value) -> Result<Option<Unbuildable>, ApiError> {
    let dsl = dsl.clone();
    // Loading is CPU work on client data: off the async workers.
    tokio::task::spawn_blocking(move || {
        canvasc_frontend::load_value(dsl)
            .ok()
            .and_then(|loaded| canvasc_frontend::construct::construction_error(&loaded.document))
            .map(|e| Unbuildable {
                repr: e.repr(),
                finding: format!(
                    "component `{}` ({}) at {}: {}",
                    e.component, e.component_name, e.pointer, e.message
                ),
                message: e.message,
            })
    })
    .await
    .map_err(|e| ApiError::exception(format!("checking the DSL failed: {e}")))
}
