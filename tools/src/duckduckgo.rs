//! DuckDuckGo (tools.md §7, `agent/tools/duckduckgo.py`). RAGFlow calls `duckduckgo_search`
//! 7.5's `DDGS().text(query, max_results=top_n)`, and always the text search: it decides by a
//! `topic` argument nobody supplies, so `channel` never matters. canvasc sends the request of
//! the library's `html` backend, `POST https://html.duckduckgo.com/html` with the form
//! `q`, `b`, `kl=wt-wt`, and reads the results it lists: title, link and snippet of each
//! `result__a`/`result__snippet` pair, as `{title, href, body}`.
//!
//! Differences from the library: one results page is read (the library follows the next-page
//! form until it has `max_results`, which the first page's ten results normally satisfy), no
//! `lite` fallback backend, and DuckDuckGo's `/l/?uddg=` redirect links are read as their
//! target. The page is read by patterns over DuckDuckGo's result markup rather than a full
//! HTML parser: the markup is fixed by the service, and the workspace has no HTML parser crate
//! (the engine's own is private to Invoke).

use crate::common::{
    finish, form_body, param_int, retrieve_chunks, send, text, with_retries, Found, DEFAULT_TIMEOUT,
};
use crate::common::{keyword_thoughts, query_arg};
use crate::config::ToolsConfig;
use crate::html::{normalize, unescape};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use regex::Regex;
use std::sync::{Arc, LazyLock};

const SERVICE: &str = "duckduckgo";
const DEFAULT_BASE: &str = "https://html.duckduckgo.com";

pub struct DuckDuckGo {
    config: Arc<ToolsConfig>,
}

impl DuckDuckGo {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        DuckDuckGo { config }
    }
}

static TITLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<a[^>]*class="[^"]*\bresult__a\b[^"]*"[^>]*>(.*?)</a>"#)
        .expect("valid pattern")
});
static SNIPPET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<a[^>]*class="[^"]*\bresult__snippet\b[^"]*"[^>]*>(.*?)</a>"#)
        .expect("valid pattern")
});
static HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"href="([^"]*)""#).expect("valid pattern"));
/// The library's `_normalize_url` (`unquote`, spaces as `+`), with a DuckDuckGo redirect link
/// read as its target.
fn normalize_url(href: &str) -> String {
    let href = unescape(href);
    let target = url::Url::parse(&format!("https:{href}"))
        .ok()
        .filter(|u| u.path() == "/l/")
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "uddg")
                .map(|(_, v)| v.into_owned())
        });
    let href = match target {
        Some(t) => t,
        None => percent_decode(&href),
    };
    href.replace(' ', "+")
}

/// `urllib.parse.unquote`.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The results of one page: `{title, href, body}` in page order, ads and repeats left out.
pub fn parse_results(page: &str, max: usize) -> Vec<Json> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let titles: Vec<_> = TITLE.captures_iter(page).collect();
    for (i, t) in titles.iter().enumerate() {
        let start = t.get(0).map_or(0, |m| m.end());
        let end = titles
            .get(i + 1)
            .and_then(|n| n.get(0))
            .map_or(page.len(), |m| m.start());
        let block = &page[start..end];
        let Some(snippet) = SNIPPET.captures(block) else {
            continue;
        };
        let anchor = snippet.get(0).map_or("", |m| m.as_str());
        let Some(href) = HREF.captures(anchor).map(|h| h[1].to_string()) else {
            continue;
        };
        if href.starts_with("http://www.google.com/search?q=")
            || href.starts_with("https://duckduckgo.com/y.js?ad_domain")
            || !seen.insert(href.clone())
        {
            continue;
        }
        out.push(serde_json::json!({
            "title": normalize(&t[1]),
            "href": normalize_url(&href),
            "body": normalize(&snippet[1]),
        }));
        if out.len() >= max {
            break;
        }
    }
    out
}

impl External for DuckDuckGo {
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
            let url = format!("{}/html", self.config.base_url(SERVICE, DEFAULT_BASE));
            let top_n = usize::try_from(param_int(cx, "top_n", 10)).unwrap_or(0);
            let outcome = with_retries(cx, true, || async {
                let form = [("q", query.as_str()), ("b", ""), ("kl", "wt-wt")];
                let req = cx
                    .http()
                    .post(&url)
                    .header("Referer", "https://html.duckduckgo.com/")
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .body(form_body(&form));
                let (_, page) = send(req, DEFAULT_TIMEOUT, &url).await?;
                let results = parse_results(&page, top_n);
                let found = results
                    .iter()
                    .map(|r| Found {
                        title: r.get("title").cloned().unwrap_or(Json::Null),
                        url: r.get("href").cloned().unwrap_or(Json::Null),
                        content: text(r.get("body")),
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", Json::Array(results));
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "DuckDuckGo", outcome))
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
