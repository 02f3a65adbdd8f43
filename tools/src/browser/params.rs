//! The Browser node's parameters (components.md §14, `BrowserParam`), read as Python reads them
//! once the checker has vetted them (`[Browser] Max steps` positive, the flags booleans).

use canvasc_value::{py, Json, Map};

#[derive(Clone, Debug)]
pub struct Params {
    pub llm_id: String,
    /// The task text template (`"{sys.query}"` by default).
    pub prompts: String,
    pub max_steps: usize,
    pub headless: bool,
    pub enable_default_extensions: bool,
    pub chromium_sandbox: bool,
    pub persist_session: bool,
    pub upload_sources: Json,
    pub temperature: Option<f64>,
    pub max_retries: Option<u32>,
}

impl Params {
    pub fn read(params: &Map<String, Json>) -> Params {
        let flag = |key: &str, default: bool| params.get(key).map_or(default, py::truthy);
        let text = |key: &str, default: &str| match params.get(key) {
            None => default.to_string(),
            Some(Json::Null) => String::new(),
            Some(Json::String(s)) => s.clone(),
            Some(other) => py::str_of(other),
        };
        Params {
            llm_id: text("llm_id", ""),
            prompts: text("prompts", "{sys.query}"),
            max_steps: params
                .get("max_steps")
                .and_then(Json::as_u64)
                .map_or(30, |n| usize::try_from(n).unwrap_or(usize::MAX))
                .max(1),
            headless: flag("headless", true),
            enable_default_extensions: flag("enable_default_extensions", false),
            chromium_sandbox: flag("chromium_sandbox", false),
            persist_session: flag("persist_session", true),
            upload_sources: params.get("upload_sources").cloned().unwrap_or(Json::Null),
            temperature: params.get("temperature").and_then(Json::as_f64),
            max_retries: params
                .get("max_retries")
                .and_then(Json::as_u64)
                .and_then(|n| u32::try_from(n).ok()),
        }
    }
}
