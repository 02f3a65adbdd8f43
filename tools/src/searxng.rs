//! SearXNG (tools.md §20, `agent/tools/searxng.py`): `GET <searxng_url>/search` on the
//! instance the canvas names, so the URL passes the SSRF guard and every hop goes through the
//! outbound layer (`exec::outbound`; RAGFlow pins only the first hop's address, canvasc checks
//! and pins each redirect too).

use crate::common::keyword_thoughts;
use crate::common::{param_int, retrieve_chunks, text, Found};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::outbound::{self, Request};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::time::Duration;

pub struct SearXng;

/// One attempt's failure: `requests`' exceptions are worded `Network error: …`.
fn network(e: impl std::fmt::Display) -> String {
    format!("Network error: {e}")
}

async fn attempt(cx: &ToolCx<'_>, base: &str, query: &str, top_n: usize) -> Result<Json, String> {
    let mut url = url::Url::parse(&format!("{base}/search")).map_err(network)?;
    url.query_pairs_mut()
        .append_pair("q", query)
        .append_pair("format", "json")
        .append_pair("categories", "general")
        .append_pair("language", "auto")
        .append_pair("safesearch", "1")
        .append_pair("pageno", "1");
    let guard = cx.guard();
    let resp = outbound::fetch(&guard, Request::get(url.as_str(), Duration::from_secs(10)))
        .await
        .map_err(network)?;
    if resp.status >= 400 {
        let kind = if resp.status < 500 {
            "Client Error"
        } else {
            "Server Error"
        };
        let reason = reqwest::StatusCode::from_u16(resp.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        return Err(network(format!(
            "{} {kind}: {reason} for url: {}",
            resp.status,
            canvasc_engine::redact::shown(&resp.url)
        )));
    }
    let data: Json = serde_json::from_slice(&resp.body)
        .map_err(|_| network("Expecting value: line 1 column 1 (char 0)"))?;
    let Some(data) = data.as_object().filter(|d| !d.is_empty()) else {
        return Err("Invalid response from SearXNG".into());
    };
    let results = match data.get("results") {
        None => Vec::new(),
        Some(Json::Array(r)) => r.iter().take(top_n).cloned().collect(),
        Some(_) => return Err("Invalid results format from SearXNG".into()),
    };
    if cx.is_canceled() {
        return Ok(Json::Null);
    }
    let get = |r: &Json, k: &str| r.get(k).cloned().unwrap_or(Json::from(""));
    let found = results
        .iter()
        .map(|r| Found {
            title: get(r, "title"),
            url: get(r, "url"),
            content: text(r.get("content")),
            score: Json::from(1),
        })
        .collect::<Vec<_>>();
    let content = retrieve_chunks(cx, found);
    cx.set_output("json", Json::Array(results));
    Ok(Json::String(content))
}

impl External for SearXng {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let query = match args.get("query") {
                Some(Json::String(q)) if !py::strip(q).is_empty() => q.clone(),
                _ => {
                    cx.set_output("formalized_content", Json::String(String::new()));
                    return Ok(Json::String(String::new()));
                }
            };
            let from_param = cx.param("searxng_url").filter(|v| py::truthy(v));
            let base = from_param
                .or_else(|| args.get("searxng_url").filter(|v| py::truthy(v)))
                .map(|v| py::strip(&text(Some(v))).to_string())
                .unwrap_or_default();
            if base.is_empty() {
                cx.set_output("formalized_content", Json::String(String::new()));
                return Ok(Json::String(String::new()));
            }
            if let Err(e) = canvasc_engine::ssrf::assert_url_is_safe(&base, &cx.guard()).await {
                cx.set_output("_ERROR", Json::String(e.clone()));
                return Ok(Json::String(format!(
                    "SearXNG error: SSRF guard blocked {}: {e}",
                    py::repr_str(&base)
                )));
            }
            let top_n = usize::try_from(param_int(cx, "top_n", 10)).unwrap_or(0);
            let outcome =
                crate::common::with_retries(cx, true, || attempt(cx, &base, &query, top_n)).await;
            Ok(crate::common::finish(cx, "SearXNG", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        Some(keyword_thoughts(
            input,
            "Searching with SearXNG for relevant results...",
            16,
        ))
    }
}
