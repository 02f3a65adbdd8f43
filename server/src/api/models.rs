//! The model endpoints RAGFlow's test set-up calls before any agent test (`http-api.md` §14).

use axum::extract::State;
use serde_json::{json, Value};

use crate::auth::Tenant;
use crate::envelope::{Answer, Reply};
use crate::request::Body;
use crate::shared::Shared;

/// `GET /api/v1/models`: the LLM factories this server offers.
pub(crate) async fn list(State(app): State<Shared>, Tenant(_): Tenant) -> Answer {
    let models: Vec<Value> = app
        .model_providers
        .iter()
        .map(|name| json!({"model_provider": name, "provider_name": name}))
        .collect();
    Ok(Reply::success(Value::from(models)))
}

/// `PATCH /api/v1/models/default`: models are chosen per component in the DSL, so there is no
/// tenant default to change; the answer is the JSON the set-up needs.
pub(crate) async fn set_default(Tenant(_): Tenant, _: Body) -> Answer {
    Ok(Reply::success(Value::Bool(true)))
}
