//! GoogleScholar (tools.md §12, `agent/tools/googlescholar.py`). RAGFlow calls the `scholarly`
//! library's `search_pubs`, which requests `https://scholar.google.com/scholar?hl=en&q=<quoted
//! query>` with `as_ylo`/`as_yhi` (years), `as_vis=0` (citations included), `as_sdt=<0|1>,33`
//! (patents included or not) and `scisbd=1` (sorted by date), reads each result row
//! (`div.gs_or`) as `_scholar_pub` does, and follows the "next" link until it has `top_n`
//! results. canvasc sends the same requests and reads the same elements (`html_tree.rs`).
//!
//! Differences from the library: the publications in `json` carry the fields `_scholar_pub`
//! fills (`bib` with `title`, `author`, `venue`, `pub_year` and `abstract`, `gsrank`,
//! `pub_url`, `author_id`, `num_citations`, `citedby_url`, `url_related_articles`,
//! `eprint_url`, `url_scholarbib`, `url_add_sclib`), with `source` as the enum's name; the
//! library's proxy rotation and its retries on a blocked session are not reproduced (a
//! captcha page is the library's final `Cannot Fetch from Google Scholar.`).

use crate::common::{finish, param_bool, param_int, retrieve_chunks, send_raw, text};
use crate::common::{with_retries, Found, DEFAULT_TIMEOUT};
use crate::config::ToolsConfig;
use crate::html_tree::{Doc, El};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use regex::Regex;
use std::sync::{Arc, LazyLock};

const SERVICE: &str = "googlescholar";
const DEFAULT_BASE: &str = "https://scholar.google.com";
/// The pages `search_pubs` follows at most before giving up on more results.
const MAX_PAGES: usize = 100;
const BLOCKED: &str = "Cannot Fetch from Google Scholar.";

pub struct GoogleScholar {
    config: Arc<ToolsConfig>,
}

impl GoogleScholar {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        GoogleScholar { config }
    }
}

static DIGIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d").expect("valid pattern"));
static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("valid pattern"));
static AUTHOR_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"user=([\w-]*)").expect("valid pattern"));

/// `requests.utils.quote(query)`: everything but unreserved characters and `/` encoded.
fn quote(s: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(s, SET).to_string()
}

/// `_construct_url(_PUBSEARCH.format(quote(query)), …)`: the path and query of the first page.
fn first_page(cx: &ToolCx<'_>, query: &str) -> String {
    let year = |param: &str, key: &str| match cx.param(param) {
        None | Some(Json::Null) => String::new(),
        Some(v) => format!("&{key}={}", py::str_of(v)),
    };
    let patents = if cx.param("patents").is_none() || param_bool(cx, "patents") {
        0
    } else {
        1
    };
    let sort = if text(cx.param("sort_by")) == "date" {
        "&scisbd=1"
    } else {
        ""
    };
    format!(
        "/scholar?hl=en&q={}{}{}&as_vis=0&as_sdt={patents},33{sort}",
        quote(query),
        year("year_low", "as_ylo"),
        year("year_high", "as_yhi"),
    )
}

/// `_get_authorlist`: the names before the first ` - `, without affiliations and venues.
fn author_list(info: &str) -> Vec<Json> {
    let names = info.split(" - ").next().unwrap_or_default();
    names
        .split(',')
        .map(py::strip)
        .filter(|n| !DIGIT.is_match(n))
        .filter(|n| {
            ![
                "Proceedings",
                "Conference",
                "Journal",
                "(",
                ")",
                "[",
                "]",
                "Transactions",
            ]
            .iter()
            .any(|w| n.contains(w))
        })
        .map(|n| Json::from(n.replace('…', "")))
        .collect()
}

/// `venue` and `pub_year` from the `authors - venue, year - host` line.
fn venue_year(info: &str) -> (String, String) {
    let parts: Vec<&str> = info.split(" - ").collect();
    if parts.len() <= 2 {
        return ("NA".into(), "NA".into());
    }
    let pieces: Vec<&str> = parts[1].split(',').collect();
    let year = py::strip(pieces.last().copied().unwrap_or_default());
    if year.chars().count() == 4 && year.chars().all(|c| c.is_numeric()) {
        let venue = if pieces.len() >= 2 {
            pieces[..pieces.len() - 1].join(",")
        } else {
            "NA".into()
        };
        (venue, year.to_string())
    } else {
        (pieces.join(","), "NA".into())
    }
}

/// `PublicationParser._scholar_pub` for one result row.
fn publication(row: El<'_>) -> Result<Json, String> {
    let none_find = "'NoneType' object has no attribute 'find'";
    let databox = row.find("div", "gs_ri").ok_or(none_find)?;
    let title = databox.find("h3", "gs_rt").ok_or(none_find)?;
    let cid = row.attr("data-cid").unwrap_or_default();
    let pos = row.attr("data-rp").unwrap_or_default();
    let rank = py::parse_int(pos)?;
    // A `[CITATION]`/`[PDF]` marker: the title's first `span` is dropped from it.
    let marked = title.find("span", "gs_ctu").is_some() || title.find("span", "gs_ctc").is_some();
    let title_text = match title.find("span", "").filter(|_| marked) {
        Some(span) => title.text().replacen(&span.text(), "", 1),
        None => title.text(),
    };
    let mut bib = Map::new();
    bib.insert("title".into(), Json::from(py::strip(&title_text)));
    let pub_url = title.find("a", "").and_then(|a| a.attr("href"));
    let author_div = databox.find("div", "gs_a").ok_or(none_find)?;
    let info = author_div
        .text()
        .replace('\u{a0}', " ")
        .replace("&amp;", "&");
    bib.insert("author".into(), Json::Array(author_list(&info)));
    let author_ids: Vec<Json> = author_div
        .find_all("a", "")
        .into_iter()
        .filter_map(|a| a.attr("href"))
        .filter_map(|h| AUTHOR_ID.captures(h).map(|c| Json::from(&c[1])))
        .collect();
    let (venue, year) = venue_year(&info);
    bib.insert("venue".into(), Json::from(venue));
    bib.insert("pub_year".into(), Json::from(year));
    if let Some(snippet) = databox.find("div", "gs_rs") {
        let a = snippet.text().replace('\u{2026}', "").replace('\n', " ");
        let mut a = py::strip(&a).to_string();
        if a.chars().take(8).collect::<String>().to_lowercase() == "abstract" {
            a = py::strip(&a.chars().skip(9).collect::<String>()).to_string();
        }
        bib.insert("abstract".into(), Json::from(a));
    }
    let mut p = Map::new();
    p.insert("container_type".into(), Json::from("Publication"));
    p.insert("source".into(), Json::from("PUBLICATION_SEARCH_SNIPPET"));
    p.insert("bib".into(), Json::Object(bib));
    p.insert("filled".into(), Json::from(false));
    p.insert("gsrank".into(), Json::from(rank.saturating_add(1)));
    if let Some(url) = pub_url {
        p.insert("pub_url".into(), Json::from(url));
    }
    p.insert("author_id".into(), Json::Array(author_ids));
    p.insert(
        "url_scholarbib".into(),
        Json::from(format!(
            "/scholar?hl=en&q=info:{cid}:scholar.google.com/&output=cite&scirp={pos}&hl=en"
        )),
    );
    p.insert(
        "url_add_sclib".into(),
        Json::from(format!(
            "/citations?hl=en&xsrf=&continue=/scholar%3Fq%3D&citilm=1&update_op=library_add&info={cid}&ei=&json="
        )),
    );
    p.insert("num_citations".into(), Json::from(0));
    let lower = databox.find("div", "gs_fl").ok_or(none_find)?;
    for link in lower.find_all("a", "") {
        let t = link.text();
        let href = link.attr("href").unwrap_or_default();
        if t.contains("Cited by") {
            let n = DIGITS
                .find(&t)
                .ok_or("list index out of range")?
                .as_str()
                .parse::<i64>()
                .unwrap_or(i64::MAX);
            p.insert("num_citations".into(), Json::from(n));
            p.insert("citedby_url".into(), Json::from(href));
        }
        if t.contains("Related articles") {
            p.insert("url_related_articles".into(), Json::from(href));
        }
    }
    let eprint = row
        .find_all("div", "")
        .into_iter()
        .find(|d| d.class_is("gs_ggs gs_fl"));
    if let Some(div) = eprint {
        let href = div.find("a", "").and_then(|a| a.attr("href"));
        p.insert("eprint_url".into(), Json::from(href.unwrap_or_default()));
    }
    Ok(Json::Object(p))
}

/// One result page: its publications and the next page's path, if any.
fn parse_page(html: &str) -> Result<(Vec<Json>, Option<String>), String> {
    let doc = Doc::parse(html);
    let root = doc.root();
    let captcha = root
        .descendants()
        .into_iter()
        .any(|e| matches!(e.attr("id"), Some("gs_captcha_f" | "captcha-form")));
    if captcha {
        return Err(BLOCKED.into());
    }
    let rows = root
        .find_all("div", "gs_or")
        .into_iter()
        .map(publication)
        .collect::<Result<Vec<_>, _>>()?;
    let next = root
        .find("", "gs_ico_nav_next")
        .and_then(|icon| icon.parent())
        .and_then(|a| a.attr("href"))
        .map(str::to_string);
    Ok((rows, next))
}

impl GoogleScholar {
    async fn search(
        &self,
        cx: &ToolCx<'_>,
        query: &str,
        top_n: usize,
    ) -> Result<Vec<Json>, String> {
        let base = self.config.base_url(SERVICE, DEFAULT_BASE);
        let mut path = Some(first_page(cx, query));
        let mut results = Vec::new();
        let mut pages = 0;
        while let Some(p) = path.take() {
            if results.len() >= top_n || pages >= MAX_PAGES || cx.is_canceled() {
                break;
            }
            pages += 1;
            let url = format!("{base}{}", html_unescape_amp(&p));
            let shown = format!("{base}/scholar");
            let req = cx.http().get(&url);
            let (status, body) = send_raw(req, DEFAULT_TIMEOUT, &shown).await?;
            if status.as_u16() != 200 {
                // The library retries with new sessions, then gives up with this text.
                return Err(BLOCKED.into());
            }
            let (rows, next) = parse_page(&body)?;
            results.extend(rows);
            path = next;
        }
        results.truncate(top_n);
        Ok(results)
    }
}

/// A `href` as the parser hands it is already unescaped; a path from elsewhere may still carry
/// `&amp;`.
fn html_unescape_amp(s: &str) -> String {
    s.replace("&amp;", "&")
}

impl External for GoogleScholar {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let Some(query) = args.get("query").filter(|q| py::truthy(q)) else {
                cx.set_output("formalized_content", Json::from(""));
                cx.set_output("json", Json::Array(Vec::new()));
                return Ok(Json::from(""));
            };
            let query = text(Some(query));
            let top_n = usize::try_from(param_int(cx, "top_n", 12)).unwrap_or(0);
            let outcome = with_retries(cx, true, || async {
                let results = self.search(cx, &query, top_n).await?;
                if cx.check_canceled() {
                    return Ok(Json::Null);
                }
                let mut found = Vec::new();
                for r in &results {
                    let bib = &r["bib"];
                    let authors = bib["author"]
                        .as_array()
                        .map(|a| a.iter().map(|n| text(Some(n))).collect::<Vec<_>>())
                        .unwrap_or_default()
                        .join(",");
                    let abstract_ = bib
                        .get("abstract")
                        .map(|a| text(Some(a)))
                        .unwrap_or_else(|| "no abstract".into());
                    // `r["pub_url"]` raises when a result has no link.
                    let url = r.get("pub_url").cloned().ok_or("'pub_url'")?;
                    found.push(Found {
                        title: bib["title"].clone(),
                        url,
                        content: format!("\n author: {authors}\n Abstract: {abstract_}"),
                        score: Json::from(1),
                    });
                }
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", Json::Array(results));
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "GoogleScholar", outcome))
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
