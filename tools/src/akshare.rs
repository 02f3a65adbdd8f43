//! AkShare (tools.md §1, `agent/tools/akshare.py`). RAGFlow calls the `akshare` library's
//! `stock_news_em(symbol)`, which is one `GET https://search-api-web.eastmoney.com/search/jsonp`
//! (East Money's news search: `cb` a JSONP callback name, `param` the search as JSON text with
//! 100 articles a page, `_` a fixed cache-buster) answered as JSONP; the library removes the
//! `<em>` highlight tags from titles and contents, ideographic spaces and `\r\n` from contents,
//! and RAGFlow keeps the first `top_n` rows. canvasc sends the same request and cleans the rows
//! the same way. Differences from the library: none in the fields RAGFlow prints; an article
//! without a `url` gets East Money's article address built from its `code`, as older versions
//! of the library did.

use crate::common::query_arg;
use crate::common::{finish, param_int, send, text, with_query, with_retries, DEFAULT_TIMEOUT};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "akshare";
const DEFAULT_BASE: &str = "https://search-api-web.eastmoney.com";
/// The callback name and cache-buster `stock_news_em` sends.
const CALLBACK: &str = "jQuery3510875346244069884_1668256937995";
const CACHE_BUSTER: &str = "1668256937996";

pub struct AkShare {
    config: Arc<ToolsConfig>,
}

impl AkShare {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        AkShare { config }
    }
}

/// The `param` query value: the search as `stock_news_em` writes it (compact JSON, the
/// symbol inserted as typed).
fn search_param(symbol: &str) -> String {
    let inner = serde_json::json!({
        "uid": "", "keyword": symbol, "type": ["cmsArticleWebOld"], "client": "web",
        "clientType": "web", "clientVersion": "curr",
        "param": {"cmsArticleWebOld": {"searchScope": "default", "sort": "default",
            "pageIndex": 1, "pageSize": 100, "preTag": "<em>", "postTag": "</em>"}},
    });
    // serde_json keeps insertion order here (`preserve_order`), so this is the library's text.
    inner.to_string()
}

/// The JSON inside the JSONP answer `<callback>(…)`.
fn unwrap_jsonp(body: &str) -> Result<Json, String> {
    let body = py::strip(body);
    let inner = match (body.find('('), body.rfind(')')) {
        (Some(open), Some(close)) if open < close => &body[open + 1..close],
        _ => body,
    };
    serde_json::from_str(inner).map_err(|e| format!("Expecting value: {e}"))
}

/// The library's title cleaning: `(<em>`, `</em>)`, then the remaining tags.
fn clean_title(s: &str) -> String {
    s.replace("(<em>", "")
        .replace("</em>)", "")
        .replace("<em>", "")
        .replace("</em>", "")
}

/// The library's content cleaning: the title's, then ideographic spaces and `\r\n`.
fn clean_content(s: &str) -> String {
    clean_title(s).replace('\u{3000}', "").replace("\r\n", " ")
}

/// One article as RAGFlow formats it.
fn format_article(a: &Json) -> String {
    let url = match a.get("url").filter(|u| !u.is_null()) {
        Some(u) => text(Some(u)),
        None => format!(
            "http://finance.eastmoney.com/a/{}.html",
            text(a.get("code"))
        ),
    };
    format!(
        "<a href=\"{url}\">{}</a>\n 新闻内容: {} \n发布时间:{} \n文章来源: {}",
        clean_title(&text(a.get("title"))),
        clean_content(&text(a.get("content"))),
        text(a.get("date")),
        text(a.get("mediaName")),
    )
}

impl External for AkShare {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let symbol = match query_arg(cx, &args, "query") {
                Ok(q) => q,
                Err(early) => return Ok(early),
            };
            let base = format!(
                "{}/search/jsonp",
                self.config.base_url(SERVICE, DEFAULT_BASE)
            );
            let top_n = usize::try_from(param_int(cx, "top_n", 10)).unwrap_or(0);
            let outcome = with_retries(cx, true, || async {
                let query = [
                    ("cb", CALLBACK.to_string()),
                    ("param", search_param(&symbol)),
                    ("_", CACHE_BUSTER.to_string()),
                ];
                let req = cx.http().get(with_query(&base, &query)?);
                let (_, body) = send(req, DEFAULT_TIMEOUT, &base).await?;
                let data = unwrap_jsonp(&body)?;
                let articles = data
                    .pointer("/result/cmsArticleWebOld")
                    .ok_or("'cmsArticleWebOld'")?
                    .as_array()
                    .ok_or("DataFrame constructor not properly called!")?;
                let res = articles
                    .iter()
                    .take(top_n)
                    .map(format_article)
                    .collect::<Vec<_>>()
                    .join("\n\n");
                cx.set_output("formalized_content", Json::String(res.clone()));
                Ok(Json::String(res))
            })
            .await;
            Ok(finish(cx, "AkShare", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Looking up the latest stock news for: {q}"))
    }
}
