//! KeenableSearch (tools.md §14, `agent/tools/keenable.py`): `POST <base>/v1/search` with
//! `X-API-Key` when a key is set, else the keyless `POST <base>/v1/search/public`. The base is
//! the configured one (`[tools.keenable] base_url`, `RAGFLOW_TOOL_KEENABLE_BASE_URL`, or
//! RAGFlow's own `KEENABLE_API_URL`), which must be https, or http to a loopback host.

use crate::common::keyword_thoughts;
use crate::common::{
    finish, param_int, param_text, retrieve_chunks, send, text, with_retries, Attempts, Found,
};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "keenable";
const DEFAULT_BASE: &str = "https://api.keenable.ai";
const TIMEOUT: Duration = Duration::from_secs(30);

pub struct KeenableSearch {
    config: Arc<ToolsConfig>,
}

impl KeenableSearch {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        KeenableSearch { config }
    }

    /// `_base_url()`: https, or plain http to a loopback host only.
    fn base(&self) -> Result<String, String> {
        let base = self.config.base_url(SERVICE, DEFAULT_BASE);
        let ok = url::Url::parse(&base)
            .ok()
            .is_some_and(|u| match u.host_str() {
                None => false,
                Some(h) => {
                    u.scheme() == "https"
                        || (u.scheme() == "http"
                            && matches!(h, "localhost" | "127.0.0.1" | "[::1]"))
                }
            });
        if ok {
            Ok(base)
        } else {
            Err(format!(
                "KEENABLE_API_URL must be an https:// URL with a host, got {}",
                py::repr_str(&base)
            ))
        }
    }
}

/// `_result_content`: `snippet`, else `description`, whitespace runs folded.
fn content_of(r: &Json) -> String {
    let raw = r
        .get("snippet")
        .filter(|v| py::truthy(v))
        .or_else(|| r.get("description").filter(|v| py::truthy(v)));
    text(raw).split_whitespace().collect::<Vec<_>>().join(" ")
}

impl External for KeenableSearch {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            // The query goes into the JSON body as the value it is, not as its text.
            let Some(query) = args.get("query").filter(|q| py::truthy(q)) else {
                cx.set_output("formalized_content", Json::String(String::new()));
                return Ok(Json::String(String::new()));
            };
            let mut payload = Map::new();
            payload.insert("query".into(), query.clone());
            payload.insert("mode".into(), Json::String(param_text(cx, "mode")));
            if let Some(site) = args.get("site").filter(|s| py::truthy(s)) {
                payload.insert("site".into(), site.clone());
            }
            // A configuration error is not retried.
            let base = match self.base() {
                Ok(b) => b,
                Err(e) => return Ok(finish(cx, "Keenable", Attempts::Failed(e))),
            };
            let key = self.config.api_key(SERVICE, &param_text(cx, "api_key"));
            let url = if key.is_empty() {
                format!("{base}/v1/search/public")
            } else {
                format!("{base}/v1/search")
            };
            let top_n = usize::try_from(param_int(cx, "top_n", 10)).unwrap_or(0);
            let outcome = with_retries(cx, true, || async {
                let mut req = cx
                    .http()
                    .post(&url)
                    .header("User-Agent", "keenable-ragflow")
                    .header("X-Keenable-Title", "RAGFlow")
                    .header("Content-Type", "application/json")
                    .body(Json::Object(payload.clone()).to_string());
                if !key.is_empty() {
                    req = req.header("X-API-Key", key.expose().trim());
                }
                let (_, body) = send(req, TIMEOUT, &url).await?;
                let data: Json =
                    serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))?;
                let results: Vec<Json> = data
                    .get("results")
                    .and_then(Json::as_array)
                    .map(|r| r.iter().take(top_n).cloned().collect())
                    .unwrap_or_default();
                let found = results
                    .iter()
                    .map(|r| Found {
                        title: r.get("title").cloned().unwrap_or(Json::Null),
                        url: r.get("url").cloned().unwrap_or(Json::Null),
                        content: content_of(r),
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", Json::Array(results));
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "Keenable", outcome))
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
