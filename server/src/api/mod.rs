//! The endpoints, one module per resource of `http-api.md`.

pub(crate) mod account;
pub(crate) mod admin;
pub(crate) mod agentbots;
pub(crate) mod agents;
pub(crate) mod attachments;
pub(crate) mod completions;
pub(crate) mod editor;
pub(crate) mod files;
pub(crate) mod input_form;
pub(crate) mod models;
pub(crate) mod openai;
pub(crate) mod reset;
pub(crate) mod run_logs;
pub(crate) mod run_stream;
pub(crate) mod runs;
pub(crate) mod sessions;
pub(crate) mod system;
pub(crate) mod tags;
pub(crate) mod tasks;
pub(crate) mod turn_start;
pub(crate) mod versions;

use serde_json::{Map, Value};

use crate::clock::http_date;
use crate::envelope::ApiError;
use crate::shared::AppRef;
use crate::store::Agent;

/// `tenant`'s agent `agent_id`, or `missing` when it has none such (another tenant's agent
/// answers exactly as a missing one does).
pub(crate) async fn agent_of(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    missing: fn() -> ApiError,
) -> Result<Agent, ApiError> {
    app.store.agent(tenant, agent_id).await?.ok_or_else(missing)
}

/// `create_time`, `create_date`, `update_time` and `update_date`.
pub(crate) fn add_times(object: &mut Map<String, Value>, create_time: i64, update_time: i64) {
    object.insert("create_time".into(), create_time.into());
    object.insert("create_date".into(), http_date(create_time).into());
    object.insert("update_time".into(), update_time.into());
    object.insert("update_date".into(), http_date(update_time).into());
}
