//! GitHub (tools.md §10, `agent/tools/github.py`): repository search through GitHub's REST
//! API. RAGFlow concatenates the query into the URL without encoding it; canvasc keeps that, so
//! the same query text reaches GitHub (the client only escapes what a URL cannot hold).

use crate::common::query_arg;
use crate::common::{
    finish, param_int, retrieve_chunks, send_raw, text, with_retries, Found, DEFAULT_TIMEOUT,
};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "github";
const DEFAULT_BASE: &str = "https://api.github.com";

pub struct GitHub {
    config: Arc<ToolsConfig>,
}

impl GitHub {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        GitHub { config }
    }
}

impl External for GitHub {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let query = match query_arg(cx, &args, "query") {
                Ok(query) => query,
                Err(early) => return Ok(early),
            };
            let base = format!(
                "{}/search/repositories",
                self.config.base_url(SERVICE, DEFAULT_BASE)
            );
            let url = format!(
                "{base}?q={query}&sort=stars&order=desc&per_page={}",
                param_int(cx, "top_n", 10)
            );
            let outcome = with_retries(cx, true, || async {
                let req = cx
                    .http()
                    .get(&url)
                    .header("Content-Type", "application/vnd.github+json")
                    .header("X-GitHub-Api-Version", "2022-11-28");
                // RAGFlow reads the JSON whatever the status: errors come as `message`.
                let (_, body) = send_raw(req, DEFAULT_TIMEOUT, &base).await?;
                let res: Json =
                    serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))?;
                let Some(items) = res.get("items") else {
                    return Err(res
                        .get("message")
                        .map(|m| text(Some(m)))
                        .unwrap_or_else(|| "GitHub search returned no items.".into()));
                };
                let found = items
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|r| Found {
                        title: r.get("name").cloned().unwrap_or(Json::Null),
                        url: r.get("html_url").cloned().unwrap_or(Json::Null),
                        content: format!(
                            "{}\n stars:{}",
                            py::str_of(r.get("description").unwrap_or(&Json::Null)),
                            py::str_of(r.get("watchers").unwrap_or(&Json::Null))
                        ),
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", items.clone());
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "GitHub", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Scanning GitHub repos related to `{q}`."))
    }
}
