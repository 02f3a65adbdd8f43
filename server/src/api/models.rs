//! RAGFlow's model endpoints (`api/apps/restful_apis/models_api.py`) over the models the
//! configuration serves (`model_catalog.rs`): the list, the tenant's defaults, and setting
//! one. A run whose LLM names no model uses the tenant's default chat model (else the
//! configuration's `[llm] default`), as RAGFlow's LLM component uses the tenant's `llm_id`.

use axum::extract::State;
use serde_json::{json, Map, Value};

use crate::auth::Tenant;
use crate::clock::now_ms;
use crate::envelope::{Answer, ApiError, Reply};
use crate::model_catalog::{ConfiguredModel, ANY_MODEL, INSTANCE};
use crate::request::{Body, Params};
use crate::shared::AppRef;

/// RAGFlow's model types (`MODEL_TYPE_TO_FIELD`), in its order.
const MODEL_TYPES: &[&str] = &["chat", "embedding", "rerank", "asr", "vision", "tts", "ocr"];

/// `GET /api/v1/models` (`?type=chat`): RAGFlow's list of a tenant's added models, here the
/// configuration's (every tenant has the same). A line named `*` stands for any model of its
/// provider.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    params: Params,
) -> Answer {
    let wanted = params.get("type").map(str::to_lowercase);
    let tenant_name = app
        .store
        .user_by_id(&tenant)
        .await?
        .map(|user| format!("{}\u{2018}s Kingdom", user.nickname))
        .unwrap_or_default();
    let models: Vec<Value> = app
        .models
        .iter()
        .filter(|m| wanted.as_deref().is_none_or(|t| m.types().contains(&t)))
        .map(|m| {
            let concrete = m.model.is_some();
            json!({
                "model_id": if concrete { m.llm_id(m.name()) } else { String::new() },
                "tenant_id": tenant,
                "tenant_name": tenant_name,
                "model_type": m.types(),
                "name": m.name(),
                "provider_id": m.provider(),
                "provider_name": m.provider(),
                "instance_id": INSTANCE,
                "instance_name": INSTANCE,
                "rank": 500,
            })
        })
        .collect();
    Ok(Reply::success(Value::from(models)))
}

/// `GET /api/v1/models/default`: `{"models": [...]}`, the tenant's defaults (the chat
/// default falls back to the configuration's `[llm] default`, which is what its runs use).
pub(crate) async fn defaults(State(app): State<AppRef>, Tenant(tenant): Tenant) -> Answer {
    let mut defaults = app.store.default_models(&tenant).await?;
    if !defaults.iter().any(|(kind, _)| kind == "chat") {
        if let Some(llm_id) = &app.default_model {
            defaults.push(("chat".into(), llm_id.clone()));
        }
    }
    defaults.sort_by_key(|(kind, _)| MODEL_TYPES.iter().position(|t| t == kind));
    let models: Vec<Value> = defaults
        .iter()
        .map(|(kind, llm_id)| {
            let (name, provider) = name_and_provider(&app.models, llm_id);
            json!({"model_id": llm_id, "model_provider": provider, "model_instance": INSTANCE,
                "model_name": name, "model_type": kind, "enable": true})
        })
        .collect();
    Ok(Reply::success(json!({ "models": models })))
}

/// `(model name, provider)` of an llm_id as the list shows them.
fn name_and_provider(models: &[ConfiguredModel], llm_id: &str) -> (String, String) {
    let line = models.iter().find(|m| match &m.factory {
        Some(factory) => llm_id.ends_with(&format!("@{factory}")),
        None => false,
    });
    match line.and_then(|m| m.factory.as_deref()) {
        Some(factory) => (
            llm_id[..llm_id.len() - factory.len() - 1].to_string(),
            factory.to_string(),
        ),
        None => (
            llm_id.to_string(),
            crate::model_catalog::ANY_PROVIDER.to_string(),
        ),
    }
}

/// `PATCH /api/v1/models/default`: sets the tenant's default of `model_type` to the model
/// `model_id` names, or to `model_provider`/`model_instance`/`model_name`; with none of them,
/// clears it. RAGFlow's checks and messages: the model must be one the configuration serves,
/// of that type.
pub(crate) async fn set_default(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    body: Body,
) -> Answer {
    let body = body.0;
    let Some(model_type) = body.get("model_type") else {
        return Err(ApiError::bare(
            crate::envelope::ARGUMENT_ERROR,
            "model_type is required",
        ));
    };
    let model_type = model_type.as_str().unwrap_or_default().to_string();
    let text = |key: &str| field(&body, key);
    if !MODEL_TYPES.contains(&model_type.as_str()) {
        return Err(ApiError::bare(
            crate::envelope::DATA_ERROR,
            format!("model type '{model_type}' is invalid"),
        ));
    }
    let (model_id, provider, instance, name) = (
        text("model_id"),
        text("model_provider"),
        text("model_instance"),
        text("model_name"),
    );
    let chosen = if !model_id.is_empty() {
        let line = app
            .models
            .iter()
            .find(|m| m.model.is_some() && m.llm_id(m.name()) == model_id)
            .ok_or_else(|| refused(format!("model_id '{model_id}' not found")))?;
        Some(checked(line, line.name(), &model_type)?)
    } else if !provider.is_empty() && !instance.is_empty() && !name.is_empty() {
        if !app.models.iter().any(|m| m.provider() == provider) {
            return Err(refused(format!("Provider '{provider}' not found")));
        }
        if instance != INSTANCE {
            return Err(refused(format!(
                "Instance '{instance}' not found for provider '{provider}'"
            )));
        }
        let line = app
            .models
            .iter()
            .find(|m| m.serves(&provider, &name) && name != ANY_MODEL)
            .ok_or_else(|| refused(format!("Model '{name}' isn't available")))?;
        Some(checked(line, &name, &model_type)?)
    } else {
        None
    };
    app.store
        .set_default_model(&tenant, &model_type, chosen.as_deref(), now_ms())
        .await?;
    Ok(Reply::raw(json!({"code": 0})))
}

/// The llm_id of `name` on `line`, if the line's model is of `model_type`.
fn checked(line: &ConfiguredModel, name: &str, model_type: &str) -> Result<String, ApiError> {
    match line.types().contains(&model_type) {
        true => Ok(line.llm_id(name)),
        false => Err(refused(format!(
            "Model '{name}' isn't a {model_type} model"
        ))),
    }
}

/// RAGFlow's `get_error_data_result`: code 102, no `data`.
fn refused(message: String) -> ApiError {
    ApiError::bare(crate::envelope::DATA_ERROR, message)
}

fn field(body: &Map<String, Value>, key: &str) -> String {
    body.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default()
        .to_string()
}
