//! `GET /api/v1/system/config` (no credentials), as RAGFlow's `system_api.py` answers it: the
//! web client shows its sign-up form only when `registerEnabled` is not 0.

use axum::extract::State;
use serde_json::json;

use crate::envelope::{Answer, Reply};
use crate::registration::Registration;
use crate::shared::AppRef;

/// Registration is enabled for the web client when anyone may register, or when the
/// database has no account yet (its first account becomes the administrator). Invitations
/// are not offered there: RAGFlow's form has no field for a code.
pub(crate) async fn config(State(app): State<AppRef>) -> Answer {
    let enabled =
        app.registration == Registration::Open || app.store.awaiting_first_account().await?;
    Ok(Reply::success(json!({
        "registerEnabled": i64::from(enabled),
        "disablePasswordLogin": false,
    })))
}
