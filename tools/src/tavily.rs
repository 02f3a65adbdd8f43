//! TavilySearch and TavilyExtract (tools.md §21–22, `agent/tools/tavily.py`): RAGFlow calls
//! the `tavily-python` client, which posts the call's keyword arguments as JSON to
//! `https://api.tavily.com/{search,extract}` with the key as a bearer token. canvasc sends the
//! same request itself.

use crate::common::keyword_thoughts;
use crate::common::{
    finish, raise_for_status, retrieve_chunks, send_raw, text, with_retries, Found,
};
use crate::config::{Secret, ToolsConfig};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "tavily";
const DEFAULT_BASE: &str = "https://api.tavily.com";
/// `tavily-python`'s default request timeout (60 s).
const TIMEOUT: Duration = Duration::from_secs(60);

/// `TavilyClient(api_key=…)`: the key is required before anything is sent.
fn client_key(cx: &ToolCx<'_>, config: &ToolsConfig) -> Result<Secret, RunError> {
    let key = config.api_key(SERVICE, &text(cx.param("api_key")));
    if key.is_empty() {
        return Err(RunError::raised(
            "MissingAPIKeyError",
            "No API key provided. Please provide the api_key attribute or set the TAVILY_API_KEY environment variable.",
        ));
    }
    Ok(key)
}

/// One POST to Tavily; an error response is worded as `tavily-python` raises it: the body's
/// `detail.error` for 400, 401, 403, 429, 432 and 433, else `raise_for_status()`.
async fn post(
    cx: &ToolCx<'_>,
    config: &ToolsConfig,
    key: &Secret,
    path: &str,
    body: &Map<String, Json>,
) -> Result<Json, String> {
    let url = format!("{}{path}", config.base_url(SERVICE, DEFAULT_BASE));
    let req = cx
        .http()
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Authorization", format!("Bearer {}", key.expose()))
        .header("X-Client-Source", "tavily-python")
        .body(serde_json::to_vec(body).unwrap_or_default());
    let (status, body) = send_raw(req, TIMEOUT, &url).await?;
    let parsed: Option<Json> = serde_json::from_str(&body).ok();
    if status.as_u16() == 200 {
        return parsed.ok_or_else(|| {
            format!(
                "Expecting value: {}",
                body.chars().take(80).collect::<String>()
            )
        });
    }
    if matches!(status.as_u16(), 400 | 401 | 403 | 429 | 432 | 433) {
        let detail = parsed
            .as_ref()
            .and_then(|v| v.pointer("/detail/error"))
            .map(|d| text(Some(d)))
            .unwrap_or_else(|| "None".into());
        return Err(detail);
    }
    raise_for_status(status, &url)?;
    Err(format!("{} for url: {url}", status.as_u16()))
}

pub struct TavilySearch {
    config: Arc<ToolsConfig>,
}

impl TavilySearch {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        TavilySearch { config }
    }
}

/// The parameters a search sends when the call does not give them.
const SEARCH_FIELDS: &[&str] = &[
    "search_depth",
    "topic",
    "max_results",
    "days",
    "include_answer",
    "include_raw_content",
    "include_images",
    "include_image_descriptions",
    "include_domains",
    "exclude_domains",
];

impl External for TavilySearch {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        mut args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            if !args.get("query").is_some_and(py::truthy) {
                cx.set_output("formalized_content", Json::String(String::new()));
                return Ok(Json::String(String::new()));
            }
            let key = client_key(cx, &self.config)?;
            for field in SEARCH_FIELDS {
                if !args.contains_key(*field) {
                    args.insert(
                        field.to_string(),
                        cx.param(field).cloned().unwrap_or(Json::Null),
                    );
                }
            }
            args.insert("include_images".into(), Json::Bool(false));
            args.insert("include_raw_content".into(), Json::Bool(false));
            let outcome = with_retries(cx, true, || async {
                let res = post(cx, &self.config, &key, "/search", &args).await?;
                let results = res
                    .get("results")
                    .cloned()
                    .ok_or_else(|| "'results'".to_string())?;
                let found = results
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|r| {
                        let raw = r.get("raw_content").filter(|v| py::truthy(v));
                        Found {
                            title: r.get("title").cloned().unwrap_or(Json::Null),
                            url: r.get("url").cloned().unwrap_or(Json::Null),
                            content: text(raw.or_else(|| r.get("content"))),
                            score: r.get("score").cloned().unwrap_or(Json::Null),
                        }
                    })
                    .collect::<Vec<_>>();
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", results);
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "Tavily", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        Some(keyword_thoughts(
            input,
            "Looking for the most relevant articles.",
            16,
        ))
    }
}

pub struct TavilyExtract {
    config: Arc<ToolsConfig>,
}

impl TavilyExtract {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        TavilyExtract { config }
    }
}

impl External for TavilyExtract {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        mut args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let key = client_key(cx, &self.config)?;
            for field in ["urls", "extract_depth", "format"] {
                if !args.contains_key(field) {
                    args.insert(
                        field.to_string(),
                        cx.param(field).cloned().unwrap_or(Json::Null),
                    );
                }
            }
            if let Some(Json::String(urls)) = args.get("urls").filter(|u| py::truthy(u)) {
                let list = urls.split(',').map(|u| Json::String(u.into())).collect();
                args.insert("urls".into(), Json::Array(list));
            }
            args.insert("include_images".into(), Json::Bool(false));
            // RAGFlow retries an extraction without waiting between attempts.
            let outcome = with_retries(cx, false, || async {
                let res = post(cx, &self.config, &key, "/extract", &args).await?;
                let results = res
                    .get("results")
                    .cloned()
                    .ok_or_else(|| "'results'".to_string())?;
                cx.set_output("json", results.clone());
                Ok(results)
            })
            .await;
            Ok(finish(cx, "Tavily", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let urls = input
            .get("urls")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Opened {urls}—pulling out the main text…"))
    }
}
