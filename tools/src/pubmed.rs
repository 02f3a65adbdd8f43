//! PubMed (tools.md §15, `agent/tools/pubmed.py`). RAGFlow calls Biopython's Entrez:
//! `esearch.fcgi` (`db=pubmed`, `term`, `retmax=top_n`, `tool=biopython`, `email`) for the ids,
//! then `efetch.fcgi` (`db=pubmed`, `id=<ids joined by ,>`, `retmode=xml`) for the articles,
//! with `<b>`/`<i>` tags removed before parsing. canvasc sends the same two requests and reads
//! the XML with an XML parser, formatting each article as `_format_pubmed_content` does.

use crate::common::query_arg;
use crate::common::{
    finish, param_int, param_text, retrieve_chunks, send, with_query, with_retries, Found,
    DEFAULT_TIMEOUT,
};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use regex::Regex;
use std::sync::{Arc, LazyLock};

const SERVICE: &str = "pubmed";
const DEFAULT_BASE: &str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils";

pub struct PubMed {
    config: Arc<ToolsConfig>,
}

impl PubMed {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        PubMed { config }
    }
}

type Node<'a, 'i> = roxmltree::Node<'a, 'i>;

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

/// ElementTree's `find("a/b/c")` then `.text` (`None` for a missing or empty text).
fn find_text(n: Node<'_, '_>, path: &str) -> Option<String> {
    let mut node = n;
    for p in path.split('/') {
        node = child(node, p)?;
    }
    node.text().filter(|t| !t.is_empty()).map(str::to_string)
}

/// `_format_pubmed_content(child)`.
fn format_article(a: Node<'_, '_>) -> String {
    let title =
        find_text(a, "MedlineCitation/Article/ArticleTitle").unwrap_or_else(|| "No title".into());
    let abstract_ = find_text(a, "MedlineCitation/Article/Abstract/AbstractText")
        .unwrap_or_else(|| "No abstract available".into());
    let journal = find_text(a, "MedlineCitation/Article/Journal/Title")
        .unwrap_or_else(|| "Unknown Journal".into());
    let volume = find_text(a, "MedlineCitation/Article/Journal/JournalIssue/Volume")
        .unwrap_or_else(|| "-".into());
    let issue = find_text(a, "MedlineCitation/Article/Journal/JournalIssue/Issue")
        .unwrap_or_else(|| "-".into());
    let pages =
        find_text(a, "MedlineCitation/Article/Pagination/MedlinePgn").unwrap_or_else(|| "-".into());
    let authors: Vec<String> = a
        .descendants()
        .filter(|n| n.has_tag_name("AuthorList"))
        .flat_map(|l| l.children().filter(|c| c.has_tag_name("Author")))
        .filter_map(|au| {
            let last = find_text(au, "LastName").unwrap_or_default();
            let fore = find_text(au, "ForeName").unwrap_or_default();
            let full = format!("{fore} {last}").trim().to_string();
            (!full.is_empty()).then_some(full)
        })
        .collect();
    let authors = if authors.is_empty() {
        "Unknown Authors".to_string()
    } else {
        authors.join(", ")
    };
    let doi = a
        .descendants()
        .filter(|n| n.has_tag_name("ArticleId"))
        .find(|n| n.attribute("IdType") == Some("doi"))
        .and_then(|n| n.text())
        .filter(|t| !t.is_empty())
        .unwrap_or("-")
        .to_string();
    format!(
        "Title: {title}\nAuthors: {authors}\nJournal: {journal}\nVolume: {volume}\nIssue: {issue}\nPages: {pages}\nDOI: {doi}\nAbstract: {}",
        py::strip(&abstract_)
    )
}

static INLINE_TAGS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<(/?)b>|<(/?)i>").expect("valid pattern"));

/// The articles of an `efetch` answer: `(title, url, content)`.
pub fn parse_articles(xml: &str) -> Result<Vec<(Json, String, String)>, String> {
    let cleaned = INLINE_TAGS.replace_all(xml, "");
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&cleaned, opts).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for a in doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("PubmedArticle"))
    {
        // RAGFlow's getters raise on a missing element: the whole attempt fails.
        let title = child(a, "MedlineCitation")
            .and_then(|m| child(m, "Article"))
            .and_then(|m| child(m, "ArticleTitle"))
            .ok_or("'NoneType' object has no attribute 'find'")?
            .text()
            .map_or(Json::Null, |t| Json::String(t.to_string()));
        let pmid = child(a, "MedlineCitation")
            .and_then(|m| child(m, "PMID"))
            .and_then(|p| p.text())
            .ok_or("'NoneType' object has no attribute 'text'")?;
        out.push((
            title,
            format!("https://pubmed.ncbi.nlm.nih.gov/{pmid}"),
            format_article(a),
        ));
    }
    Ok(out)
}

/// The `IdList` of an `esearch` answer.
fn parse_ids(xml: &str) -> Result<Vec<String>, String> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(xml, opts).map_err(|e| e.to_string())?;
    let list = doc
        .descendants()
        .find(|n| n.has_tag_name("IdList"))
        .ok_or("'IdList'")?;
    Ok(list
        .children()
        .filter(|n| n.has_tag_name("Id"))
        .filter_map(|n| n.text().map(str::to_string))
        .collect())
}

impl External for PubMed {
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
            let base = self.config.base_url(SERVICE, DEFAULT_BASE);
            let email = param_text(cx, "email");
            let top_n = param_int(cx, "top_n", 12).to_string();
            let outcome = with_retries(cx, true, || async {
                let url = format!("{base}/esearch.fcgi");
                let params = [
                    ("db", "pubmed"),
                    ("term", query.as_str()),
                    ("retmax", top_n.as_str()),
                    ("tool", "biopython"),
                    ("email", email.as_str()),
                ];
                let req = cx.http().get(with_query(&url, &params)?);
                let (_, xml) = send(req, DEFAULT_TIMEOUT, &url).await?;
                let ids = parse_ids(&xml)?.join(",");
                if cx.is_canceled() {
                    return Ok(Json::Null);
                }
                let url = format!("{base}/efetch.fcgi");
                let params = [
                    ("db", "pubmed"),
                    ("id", ids.as_str()),
                    ("retmode", "xml"),
                    ("tool", "biopython"),
                    ("email", email.as_str()),
                ];
                let req = cx.http().get(with_query(&url, &params)?);
                let (_, xml) = send(req, DEFAULT_TIMEOUT, &url).await?;
                let found = parse_articles(&xml)?
                    .into_iter()
                    .map(|(title, url, content)| Found {
                        title,
                        url: Json::String(url),
                        content,
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                Ok(Json::String(retrieve_chunks(cx, found)))
            })
            .await;
            Ok(finish(cx, "PubMed", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!(
            "Looking for scholarly papers on `{q}`,” prioritising reputable sources."
        ))
    }
}
