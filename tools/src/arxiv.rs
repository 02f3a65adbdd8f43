//! ArXiv (tools.md §2, `agent/tools/arxiv.py`). RAGFlow calls the `arxiv` 2.1 library, whose
//! `Client().results(Search(query, max_results=top_n, sort_by=…))` reads
//! `GET https://export.arxiv.org/api/query?search_query=…&id_list=&sortBy=…&sortOrder=descending&start=0&max_results=100`
//! (its page size) and keeps the first `top_n` Atom entries. canvasc sends that request and
//! reads the feed with an XML parser: title (whitespace runs folded, as the library does), the
//! `pdf` link, the summary.
//!
//! Differences from the library: no second page (`top_n` above 100 is cut at 100), and an empty
//! page is not retried.

use crate::common::{
    finish, param_int, param_text, retrieve_chunks, send, with_query, with_retries, Found,
    DEFAULT_TIMEOUT,
};
use crate::common::{keyword_thoughts, query_arg};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "arxiv";
const DEFAULT_BASE: &str = "https://export.arxiv.org";
const ATOM: &str = "http://www.w3.org/2005/Atom";

pub struct ArXiv {
    config: Arc<ToolsConfig>,
}

impl ArXiv {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        ArXiv { config }
    }
}

/// The entries of an Atom feed: `(title, pdf url, summary)`.
pub fn parse_feed(xml: &str) -> Result<Vec<(String, Json, String)>, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let child_text = |n: roxmltree::Node<'_, '_>, name: &str| {
        n.children()
            .find(|c| c.has_tag_name((ATOM, name)))
            .map(|c| c.text().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    Ok(doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name((ATOM, "entry")))
        .map(|entry| {
            let title = child_text(entry, "title")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let pdf = entry
                .children()
                .filter(|c| c.has_tag_name((ATOM, "link")))
                .find(|l| l.attribute("title") == Some("pdf"))
                .and_then(|l| l.attribute("href"))
                .map_or(Json::Null, |h| Json::String(h.to_string()));
            (title, pdf, child_text(entry, "summary"))
        })
        .collect())
}

impl External for ArXiv {
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
            let url = format!("{}/api/query", self.config.base_url(SERVICE, DEFAULT_BASE));
            let top_n = usize::try_from(param_int(cx, "top_n", 12)).unwrap_or(0);
            let sort_by = param_text(cx, "sort_by");
            let outcome = with_retries(cx, true, || async {
                if !matches!(
                    sort_by.as_str(),
                    "relevance" | "lastUpdatedDate" | "submittedDate"
                ) {
                    return Err(py::repr_str(&sort_by)); // `sort_choices[...]`'s KeyError
                }
                let params = [
                    ("search_query", query.as_str()),
                    ("id_list", ""),
                    ("sortBy", sort_by.as_str()),
                    ("sortOrder", "descending"),
                    ("start", "0"),
                    ("max_results", "100"),
                ];
                let req = cx.http().get(with_query(&url, &params)?);
                let (_, feed) = send(req, DEFAULT_TIMEOUT, &url).await?;
                let found = parse_feed(&feed)?
                    .into_iter()
                    .take(top_n)
                    .map(|(title, pdf, summary)| Found {
                        title: Json::String(title),
                        url: pdf,
                        content: summary,
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                Ok(Json::String(retrieve_chunks(cx, found)))
            })
            .await;
            Ok(finish(cx, "ArXiv", outcome))
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
