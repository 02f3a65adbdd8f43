//! Wikipedia (tools.md §25, `agent/tools/wikipedia.py`). RAGFlow calls the `wikipedia` Python
//! library (goldsmith/Wikipedia 1.4); canvasc sends the MediaWiki API requests that library
//! sends: `list=search` for the titles, then per title the library's `page(title)`: a one-result
//! search with `srinfo=suggestion` (its auto-suggest), `prop=info|pageprops` (missing pages and
//! disambiguations are skipped; a redirect is followed once) and `prop=extracts` for the intro.
//!
//! Differences from the library: a disambiguation page is skipped without the extra request
//! the library makes to list its options (RAGFlow only logs them).

use crate::common::{
    finish, get_json, retrieve_chunks, text, with_retries, Found, DEFAULT_TIMEOUT,
};
use crate::common::{keyword_thoughts, query_arg};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "wikipedia";
/// `{lang}` is the `language` parameter.
const DEFAULT_BASE: &str = "https://{lang}.wikipedia.org/w/api.php";
const USER_AGENT: &str = "wikipedia (https://github.com/goldsmith/Wikipedia/)";

pub struct Wikipedia {
    config: Arc<ToolsConfig>,
}

impl Wikipedia {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        Wikipedia { config }
    }
}

/// One MediaWiki API call as the library makes it (`format=json&action=query` added); an
/// `error` in the answer is raised with its `info`.
async fn wiki(cx: &ToolCx<'_>, api: &str, params: &[(&str, String)]) -> Result<Json, String> {
    let mut query: Vec<(&str, String)> = params.to_vec();
    query.push(("format", "json".into()));
    query.push(("action", "query".into()));
    let res = get_json(
        cx,
        api,
        &query,
        &[("User-Agent", USER_AGENT)],
        DEFAULT_TIMEOUT,
    )
    .await?;
    if let Some(err) = res.get("error") {
        return Err(text(err.get("info")));
    }
    Ok(res)
}

/// `wikipedia.search(query, results)`: the titles.
async fn search(
    cx: &ToolCx<'_>,
    api: &str,
    query: &str,
    results: i64,
) -> Result<Vec<String>, String> {
    let res = wiki(
        cx,
        api,
        &[
            ("list", "search".into()),
            ("srprop", String::new()),
            ("srlimit", results.to_string()),
            ("limit", results.to_string()),
            ("srsearch", query.into()),
        ],
    )
    .await?;
    Ok(res
        .pointer("/query/search")
        .and_then(Json::as_array)
        .map(|a| a.iter().map(|d| text(d.get("title"))).collect())
        .unwrap_or_default())
}

/// `wikipedia.page(title)`: title, URL and summary, or `None` for a page the library raises
/// on (missing, disambiguation, any failure), which RAGFlow skips.
async fn page(cx: &ToolCx<'_>, api: &str, title: &str) -> Option<(String, String, String)> {
    // auto_suggest: `search(title, results=1, suggestion=True)`.
    let res = wiki(
        cx,
        api,
        &[
            ("list", "search".into()),
            ("srprop", String::new()),
            ("srlimit", "1".into()),
            ("limit", "1".into()),
            ("srsearch", title.into()),
            ("srinfo", "suggestion".into()),
        ],
    )
    .await
    .ok()?;
    let suggestion = res
        .pointer("/query/searchinfo/suggestion")
        .map(|s| text(Some(s)))
        .filter(|s| !s.is_empty());
    let first = res.pointer("/query/search/0/title").map(|t| text(Some(t)));
    let mut title = suggestion.or(first)?;
    for _ in 0..2 {
        let res = wiki(
            cx,
            api,
            &[
                ("prop", "info|pageprops".into()),
                ("inprop", "url".into()),
                ("ppprop", "disambiguation".into()),
                ("redirects", String::new()),
                ("titles", title.clone()),
            ],
        )
        .await
        .ok()?;
        let query = res.get("query")?;
        let (pageid, page) = query.get("pages")?.as_object()?.iter().next()?;
        if page.get("missing").is_some() {
            return None;
        }
        if let Some(to) = query.pointer("/redirects/0/to") {
            title = text(Some(to));
            continue;
        }
        if page.get("pageprops").is_some() {
            return None; // DisambiguationError
        }
        let title = text(page.get("title"));
        let url = text(page.get("fullurl"));
        let res = wiki(
            cx,
            api,
            &[
                ("prop", "extracts".into()),
                ("explaintext", String::new()),
                ("exintro", String::new()),
                ("titles", title.clone()),
            ],
        )
        .await
        .ok()?;
        let summary = text(res.pointer(&format!("/query/pages/{pageid}/extract")));
        return Some((title, url, summary));
    }
    None
}

impl External for Wikipedia {
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
            let language = text(cx.param("language"));
            // The language becomes part of the host name: only a wiki code may.
            if language.is_empty()
                || !language
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                return Err(RunError::msg(format!(
                    "{}: parameter `language` must be a Wikipedia language code, got {}",
                    cx.name(),
                    py::repr_str(&language)
                )));
            }
            let api = self
                .config
                .base_url(SERVICE, DEFAULT_BASE)
                .replace("{lang}", &language.to_lowercase());
            let top_n = crate::common::param_int(cx, "top_n", 10);
            let outcome = with_retries(cx, true, || async {
                let titles = search(cx, &api, &query, top_n).await?;
                let mut found = Vec::new();
                for t in titles {
                    if cx.is_canceled() {
                        return Ok(Json::Null);
                    }
                    if let Some((title, url, summary)) = page(cx, &api, &t).await {
                        found.push(Found {
                            title: Json::String(title),
                            url: Json::String(url),
                            content: summary,
                            score: Json::from(1),
                        });
                    }
                }
                Ok(Json::String(retrieve_chunks(cx, found)))
            })
            .await;
            Ok(finish(cx, "Wikipedia", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        Some(keyword_thoughts(
            input,
            "Looking for the most relevant articles.",
            8,
        ))
    }
}
