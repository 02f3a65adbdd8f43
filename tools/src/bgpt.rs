//! BGPT (tools.md §3, `agent/tools/bgpt.py`): one `POST https://bgpt.pro/api/mcp-search` with
//! the query, `num_results` and the optional `api_key` and `days_back`, sent as `requests`'
//! `json=` sends it (`json.dumps` with its default separators). Unlike the other search tools,
//! a 4xx answer other than 429 ends the retry loop at once.

use crate::common::{param_int, raise_for_status, retrieve_chunks, send_raw, text, Found};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "bgpt";
const DEFAULT_BASE: &str = "https://bgpt.pro";
/// `requests.post(…, timeout=25)`.
const TIMEOUT: Duration = Duration::from_secs(25);

pub struct Bgpt {
    config: Arc<ToolsConfig>,
}

impl Bgpt {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        Bgpt { config }
    }
}

/// How one attempt failed, as RAGFlow's `except` clauses tell them apart.
enum Failure {
    /// A 4xx other than 429: `HTTP error: <e>`, no further attempt.
    Fatal(String),
    /// Any other failure: the remembered text; the loop sleeps and tries again.
    Retry(String),
}

/// `_format_bgpt_paper`: the first of `names` whose value is set and not blank (`str()` of a
/// dict or list), else `-`.
fn field(paper: &Json, names: &[&str]) -> String {
    for name in names {
        match paper.get(*name) {
            None | Some(Json::Null) => continue,
            Some(v) => {
                let shown = py::strip(&py::str_of(v)).to_string();
                if !shown.is_empty() {
                    return shown;
                }
            }
        }
    }
    "-".into()
}

/// `_format_bgpt_paper(paper)`.
pub fn format_paper(paper: &Json) -> String {
    [
        format!("Title: {}", field(paper, &["title"])),
        format!("Authors: {}", field(paper, &["authors"])),
        format!("Journal: {}", field(paper, &["journal"])),
        format!("Year: {}", field(paper, &["year"])),
        format!("DOI: {}", field(paper, &["doi"])),
        format!("Abstract: {}", field(paper, &["abstract"])),
        format!(
            "Methods: {}",
            field(paper, &["methods_and_experimental_techniques", "methods"])
        ),
        format!(
            "Sample size / population: {}",
            field(
                paper,
                &[
                    "sample_size_and_population_characteristics",
                    "sample_size_and_population"
                ]
            )
        ),
        format!(
            "Results: {}",
            field(paper, &["results_and_conclusions", "results"])
        ),
        format!(
            "Limitations: {}",
            field(paper, &["paper_limitations_and_biases", "limitations"])
        ),
        format!(
            "Conflicts of interest: {}",
            field(
                paper,
                &["conflict_of_interest_statements", "conflict_of_interest"]
            )
        ),
        format!(
            "Data availability: {}",
            field(
                paper,
                &["data_availability_statements", "data_availability"]
            )
        ),
        format!("Blind spots: {}", field(paper, &["study_blindspots"])),
        format!("How to falsify: {}", field(paper, &["how_to_falsify"])),
    ]
    .join("\n")
}

/// `paper.get(key) or default` (Python truthiness).
fn or_default(paper: &Json, keys: &[&str], default: &str) -> Json {
    keys.iter()
        .filter_map(|k| paper.get(*k))
        .find(|v| py::truthy(v))
        .cloned()
        .unwrap_or_else(|| Json::from(default))
}

/// The request body: `{"query", "num_results", "api_key"?, "days_back"?}`.
fn payload(cx: &ToolCx<'_>, config: &ToolsConfig, query: &str) -> Map<String, Json> {
    let mut body = Map::new();
    body.insert("query".into(), Json::from(py::strip(query)));
    body.insert("num_results".into(), Json::from(param_int(cx, "top_n", 10)));
    let key = config.api_key(SERVICE, &text(cx.param("api_key")));
    if !key.is_empty() {
        body.insert("api_key".into(), Json::from(key.expose()));
    }
    // `check()` made `days_back` an int when it was set; `if days_back:` skips 0.
    let days = match cx.param("days_back") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) if s.is_empty() => None,
        Some(v) => py::to_int(v).ok(),
    };
    if let Some(days) = days.filter(|d| *d != 0) {
        body.insert("days_back".into(), Json::from(days));
    }
    body
}

impl Bgpt {
    async fn attempt(
        &self,
        cx: &ToolCx<'_>,
        url: &str,
        body: &str,
    ) -> Result<Option<Json>, Failure> {
        let req = cx
            .http()
            .post(url)
            .header("Content-Type", "application/json")
            .body(body.to_string());
        let (status, text) = send_raw(req, TIMEOUT, url)
            .await
            .map_err(|e| Failure::Retry(format!("Network error: {e}")))?;
        if let Err(e) = raise_for_status(status, url) {
            let code = status.as_u16();
            return Err(if (400..500).contains(&code) && code != 429 {
                Failure::Fatal(format!("HTTP error: {e}"))
            } else {
                Failure::Retry(format!("Network error: {e}"))
            });
        }
        // `response.json()` raises `requests.JSONDecodeError`, a `RequestException`.
        let data: Json = serde_json::from_str(&text)
            .map_err(|e| Failure::Retry(format!("Network error: Expecting value: {e}")))?;
        let Some(data) = data.as_object().filter(|d| !d.is_empty()) else {
            return Err(Failure::Retry("Invalid response from BGPT".into()));
        };
        let results = match data.get("results") {
            None => Vec::new(),
            Some(Json::Array(items)) => items.clone(),
            Some(_) => return Err(Failure::Retry("Invalid results format from BGPT".into())),
        };
        if cx.check_canceled() {
            return Ok(None);
        }
        let mut found = Vec::new();
        for paper in &results {
            if !paper.is_object() {
                // `paper.get` on a non-dict raises inside `_retrieve_chunks`.
                return Err(Failure::Retry(format!(
                    "'{}' object has no attribute 'get'",
                    py::type_name(paper)
                )));
            }
            found.push(Found {
                title: or_default(paper, &["title"], "Untitled"),
                url: or_default(paper, &["url", "doi"], ""),
                content: format_paper(paper),
                score: Json::from(1),
            });
        }
        let content = retrieve_chunks(cx, found);
        cx.set_output("json", Json::Array(results));
        Ok(Some(Json::String(content)))
    }
}

impl External for Bgpt {
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
                    cx.set_output("formalized_content", Json::from(""));
                    return Ok(Json::from(""));
                }
            };
            let url = format!(
                "{}/api/mcp-search",
                self.config.base_url(SERVICE, DEFAULT_BASE)
            );
            let body = py::json_dumps_ascii(&Json::Object(payload(cx, &self.config, &query)));
            let retries = param_int(cx, "max_retries", 0).max(0);
            let delay = cx
                .param("delay_after_error")
                .and_then(Json::as_f64)
                .filter(|d| d.is_finite() && *d > 0.0)
                .unwrap_or(0.0);
            let mut last = String::new();
            for _ in 0..=retries {
                if cx.check_canceled() {
                    return Ok(Json::Null);
                }
                match self.attempt(cx, &url, &body).await {
                    Ok(Some(done)) => return Ok(done),
                    Ok(None) => return Ok(Json::Null),
                    Err(Failure::Fatal(e)) => {
                        last = e;
                        break;
                    }
                    Err(Failure::Retry(e)) => {
                        if cx.check_canceled() {
                            return Ok(Json::Null);
                        }
                        last = e;
                        if delay > 0.0 {
                            tokio::time::sleep(Duration::from_secs_f64(delay.min(3600.0))).await;
                        }
                    }
                }
            }
            cx.set_output("_ERROR", Json::String(last.clone()));
            Ok(Json::String(format!("BGPT error: {last}")))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!(
            "Searching BGPT for structured scientific evidence on `{q}`."
        ))
    }
}
