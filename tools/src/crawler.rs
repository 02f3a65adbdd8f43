//! Crawler (tools.md §5, `agent/tools/crawler.py`). RAGFlow checks the URL with its SSRF guard
//! and crawls it with crawl4ai's headless browser; canvasc fetches it through the outbound
//! layer (`exec::outbound`: the guard on every hop, the vetted address pinned) and renders the
//! page itself: `html` is the page without scripts, styles and comments, `markdown` a Markdown
//! rendering, `content` is empty (crawl4ai has no extracted content without an extraction
//! strategy, and RAGFlow configures none).
//!
//! Differences from crawl4ai: no JavaScript runs, and the Markdown differs in detail
//! (tools.md: byte equality with crawl4ai is not achievable). `proxy` is not supported.

use crate::common::query_arg;
use crate::common::text;
use crate::html;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::outbound::{self, Request};
use canvasc_engine::{ssrf, RunError};
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use std::time::Duration;

pub struct Crawler;

/// crawl4ai's page timeout (60 s).
const TIMEOUT: Duration = Duration::from_secs(60);

impl External for Crawler {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let url = match query_arg(cx, &args, "query") {
                Ok(url) => url,
                Err(early) => return Ok(early),
            };
            let guard = cx.guard();
            if ssrf::assert_url_is_safe(&url, &guard).await.is_err() {
                let msg = "URL not valid";
                cx.set_output("_ERROR", Json::String(msg.into()));
                return Ok(Json::String(msg.into()));
            }
            let page = match outbound::fetch(&guard, Request::get(url.as_str(), TIMEOUT)).await {
                Ok(resp) => resp.text(),
                Err(e) => {
                    if cx.check_canceled() {
                        return Ok(Json::Null);
                    }
                    let msg = format!("An unexpected error occurred: {e}");
                    cx.set_output("_ERROR", Json::String(msg.clone()));
                    return Ok(Json::String(msg));
                }
            };
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let result = match text(cx.param("extract_type")).as_str() {
                "html" => html::cleaned(&page),
                "content" => String::new(),
                _ => html::markdown(&page),
            };
            cx.set_output("formalized_content", Json::String(result.clone()));
            Ok(Json::String(result))
        })
    }
}
