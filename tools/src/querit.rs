//! QueritSearch and QueritContents (tools.md §16–17, `agent/tools/querit.py`): `POST
//! https://api.querit.ai/v1/{search,contents}` with a bearer key (the node's `api_key`, else
//! `QUERIT_API_KEY` / `[tools.querit] api_key`). Unlike the other tools they validate the
//! model's arguments again at run time, try at most three times (429 and 5xx answers and
//! network errors), and never show the key in an error: it is replaced by `[REDACTED]`.

use crate::common::{raise_for_status, retrieve_chunks, send_raw, text, Found, DEFAULT_TIMEOUT};
use crate::config::{Secret, ToolsConfig};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "querit";
const DEFAULT_BASE: &str = "https://api.querit.ai/v1";
const MAX_ATTEMPTS: usize = 3;
const RETRYABLE: [u16; 5] = [429, 500, 502, 503, 504];
const NO_KEY: &str = "Querit API key is required. Configure api_key or set QUERIT_API_KEY.";

/// Why a Querit call ended without a response.
enum Stop {
    /// The run was canceled while waiting to retry (`_QueritCanceled`): the tool returns `None`.
    Canceled,
    /// A failure RAGFlow catches; the text before redaction.
    Failed(String),
}

/// `kwargs[name] if name in kwargs else getattr(self._param, name)`.
fn value(cx: &ToolCx<'_>, args: &Map<String, Json>, name: &str) -> Json {
    args.get(name)
        .or_else(|| cx.param(name))
        .cloned()
        .unwrap_or(Json::Null)
}

/// Python's `type(v) is int`.
fn as_int(v: &Json) -> Option<i64> {
    match v {
        Json::Number(n) if n.is_i64() || n.is_u64() => n.as_i64().or(Some(i64::MAX)),
        _ => None,
    }
}

/// The node's key, else the configured one (`QUERIT_API_KEY`), stripped.
fn api_key(cx: &ToolCx<'_>, config: &ToolsConfig) -> Secret {
    let node = text(cx.param("api_key"));
    let key = config.api_key(SERVICE, py::strip(&node));
    Secret::new(py::strip(key.expose()))
}

/// `_safe_error_message`: the key replaced by `[REDACTED]`.
fn redact(message: &str, key: &Secret) -> String {
    if key.is_empty() {
        message.to_string()
    } else {
        message.replace(key.expose(), "[REDACTED]")
    }
}

/// `_post_querit`: up to three attempts; a retryable status or a network error waits
/// `delay_after_error` (after a cancellation check) and tries again while attempts remain.
async fn post(
    cx: &ToolCx<'_>,
    url: &str,
    payload: &Json,
    key: &Secret,
    timeout: Duration,
) -> Result<Json, Stop> {
    let body = py::json_dumps_ascii(payload);
    for attempt in 0..MAX_ATTEMPTS {
        if cx.check_canceled() {
            return Err(Stop::Canceled);
        }
        let last = attempt + 1 >= MAX_ATTEMPTS;
        let req = cx
            .http()
            .post(url)
            .header("Accept", "application/json")
            .header("Authorization", format!("Bearer {}", key.expose()))
            .header("Content-Type", "application/json")
            .body(body.clone());
        match send_raw(req, timeout, url).await {
            Ok((status, text)) => {
                if RETRYABLE.contains(&status.as_u16()) && !last {
                    wait_before_retry(cx).await?;
                    continue;
                }
                raise_for_status(status, url).map_err(Stop::Failed)?;
                return serde_json::from_str(&text)
                    .map_err(|e| Stop::Failed(format!("Expecting value: {e}")));
            }
            Err(e) if last => return Err(Stop::Failed(e)),
            Err(_) => wait_before_retry(cx).await?,
        }
    }
    Err(Stop::Failed(
        "Querit request failed after three attempts.".into(),
    ))
}

async fn wait_before_retry(cx: &ToolCx<'_>) -> Result<(), Stop> {
    if cx.check_canceled() {
        return Err(Stop::Canceled);
    }
    let delay = cx
        .param("delay_after_error")
        .and_then(Json::as_f64)
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(0.0);
    if delay > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(delay.min(3600.0))).await;
    }
    Ok(())
}

/// `_validate_search_inputs`.
fn validate_search(v: &Map<String, Json>) -> Result<(), String> {
    if as_int(&v["count"]).is_none_or(|c| c < 1) {
        return Err("Querit count must be an integer greater than or equal to 1.".into());
    }
    let chunks = &v["chunks_per_doc"];
    if !chunks.is_null() && as_int(chunks).is_none_or(|c| !(1..=3).contains(&c)) {
        return Err("Querit chunks_per_doc must be an integer from 1 to 3.".into());
    }
    let Json::String(range) = &v["time_range"] else {
        return Err("Querit time_range must be a string.".into());
    };
    if !range.is_empty() && !time_range_matches(range) {
        return Err("Querit time_range must use dN, wN, mN, yN, or YYYY-MM-DDtoYYYY-MM-DD.".into());
    }
    for name in [
        "site_include",
        "site_exclude",
        "country_include",
        "language_include",
    ] {
        let ok = matches!(&v[name], Json::Array(items) if items.iter().all(Json::is_string));
        if !ok {
            return Err(format!("Querit {name} must be an array of strings."));
        }
    }
    Ok(())
}

/// `^([dwmy][1-9][0-9]*|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$` (Python's `\d` is any Unicode
/// decimal digit).
fn time_range_matches(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let relative = chars.len() >= 2
        && matches!(chars[0], 'd' | 'w' | 'm' | 'y')
        && ('1'..='9').contains(&chars[1])
        && chars[2..].iter().all(char::is_ascii_digit);
    if relative {
        return true;
    }
    const SHAPE: &str = "DDDD-DD-DDtoDDDD-DD-DD";
    chars.len() == SHAPE.chars().count()
        && SHAPE.chars().zip(&chars).all(|(want, got)| match want {
            'D' => py::is_decimal(*got),
            _ => want == *got,
        })
}

/// `_build_payload`: only the filters that are set.
fn search_payload(query: &str, v: &Map<String, Json>) -> Json {
    let mut payload = Map::new();
    payload.insert("query".into(), Json::from(query));
    payload.insert("count".into(), v["count"].clone());
    if !v["chunks_per_doc"].is_null() {
        payload.insert("chunksPerDoc".into(), v["chunks_per_doc"].clone());
    }
    let mut filters = Map::new();
    let (inc, exc) = (&v["site_include"], &v["site_exclude"]);
    if py::truthy(inc) || py::truthy(exc) {
        let mut sites = Map::new();
        if py::truthy(inc) {
            sites.insert("include".into(), inc.clone());
        }
        if py::truthy(exc) {
            sites.insert("exclude".into(), exc.clone());
        }
        filters.insert("sites".into(), Json::Object(sites));
    }
    if py::truthy(&v["time_range"]) {
        filters.insert(
            "timeRange".into(),
            serde_json::json!({"date": v["time_range"]}),
        );
    }
    if py::truthy(&v["country_include"]) {
        filters.insert(
            "geo".into(),
            serde_json::json!({"countries": {"include": v["country_include"]}}),
        );
    }
    if py::truthy(&v["language_include"]) {
        filters.insert(
            "languages".into(),
            serde_json::json!({"include": v["language_include"]}),
        );
    }
    if !filters.is_empty() {
        payload.insert("filters".into(), Json::Object(filters));
    }
    Json::Object(payload)
}

pub struct QueritSearch {
    config: Arc<ToolsConfig>,
}

impl QueritSearch {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        QueritSearch { config }
    }

    fn fail(cx: &ToolCx<'_>, message: String) -> Json {
        cx.set_output("_ERROR", Json::String(message.clone()));
        Json::String(format!("Querit error: {message}"))
    }

    async fn search(
        &self,
        cx: &ToolCx<'_>,
        query: &str,
        values: &Map<String, Json>,
        key: &Secret,
    ) -> Result<Json, Stop> {
        validate_search(values).map_err(Stop::Failed)?;
        let url = format!("{}/search", self.config.base_url(SERVICE, DEFAULT_BASE));
        let data = post(
            cx,
            &url,
            &search_payload(query, values),
            key,
            DEFAULT_TIMEOUT,
        )
        .await?;
        let Some(object) = data.as_object() else {
            return Err(Stop::Failed(
                "Querit API response must be a JSON object.".into(),
            ));
        };
        let results = match object.get("results") {
            None => None,
            Some(Json::Object(container)) => container.get("result"),
            Some(_) => {
                return Err(Stop::Failed(
                    "Querit API response field results must be an object.".into(),
                ))
            }
        };
        let items: Vec<&Json> = match results {
            None => Vec::new(),
            Some(Json::Array(items)) => items.iter().filter(|i| i.is_object()).collect(),
            Some(_) => {
                return Err(Stop::Failed(
                    "Querit API response field results.result must be an array.".into(),
                ))
            }
        };
        if items.is_empty() {
            cx.set_output("formalized_content", Json::from(""));
        } else {
            let found = items.into_iter().map(|item| Found {
                title: Json::String(text(item.get("title"))),
                url: Json::String(text(item.get("url"))),
                content: text(item.get("snippet")),
                score: Json::from(1),
            });
            retrieve_chunks(cx, found);
        }
        cx.set_output("json", data.clone());
        Ok(cx.output("formalized_content"))
    }
}

impl External for QueritSearch {
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
                Some(Json::String(q)) => q.clone(),
                _ => return Ok(Self::fail(cx, "Querit query must be a string.".into())),
            };
            if query.is_empty() {
                cx.set_output("formalized_content", Json::from(""));
                cx.set_output("json", Json::Object(Map::new()));
                return Ok(Json::from(""));
            }
            let key = api_key(cx, &self.config);
            if key.is_empty() {
                return Ok(Self::fail(cx, NO_KEY.into()));
            }
            let values: Map<String, Json> = [
                "count",
                "chunks_per_doc",
                "site_include",
                "site_exclude",
                "time_range",
                "country_include",
                "language_include",
            ]
            .into_iter()
            .map(|name| (name.to_string(), value(cx, &args, name)))
            .collect();
            match self.search(cx, &query, &values, &key).await {
                Ok(v) => Ok(v),
                Err(Stop::Canceled) => Ok(Json::Null),
                Err(Stop::Failed(e)) => Ok(Self::fail(cx, redact(&e, &key))),
            }
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Searching Querit for `{q}`."))
    }
}

/// `_normalize_contents_urls`: a string is split on commas and trimmed.
fn normalize_urls(urls: Json) -> Json {
    match urls {
        Json::String(s) => Json::Array(
            s.split(',')
                .map(py::strip)
                .filter(|u| !u.is_empty())
                .map(Json::from)
                .collect(),
        ),
        other => other,
    }
}

/// `_validate_contents_inputs`.
fn validate_contents(v: &Map<String, Json>) -> Result<(), String> {
    const URLS: &str = "Querit urls must contain between 1 and 10 non-empty strings.";
    let Json::Array(urls) = &v["urls"] else {
        return Err(URLS.into());
    };
    if !(1..=10).contains(&urls.len())
        || urls
            .iter()
            .any(|u| u.as_str().is_none_or(|s| py::strip(s).is_empty()))
    {
        return Err(URLS.into());
    }
    for url in urls.iter().filter_map(Json::as_str) {
        let parsed = py::urlparse(url)?;
        if !(parsed.scheme == "http" || parsed.scheme == "https") || parsed.netloc.is_empty() {
            return Err("Querit urls must be absolute HTTP or HTTPS URLs.".into());
        }
    }
    match &v["format"] {
        Json::Array(_) => return Err("unhashable type: 'list'".into()),
        Json::Object(_) => return Err("unhashable type: 'dict'".into()),
        Json::String(s) if matches!(s.as_str(), "text" | "markdown" | "html") => {}
        _ => return Err("Querit format must be text, markdown, or html.".into()),
    }
    if as_int(&v["crawl_timeout"]).is_none_or(|t| !(1..=60).contains(&t)) {
        return Err("Querit crawl_timeout must be an integer from 1 to 60.".into());
    }
    if !v["extras_meta"].is_boolean() {
        return Err("Querit extras_meta must be a boolean.".into());
    }
    Ok(())
}

/// `_validate_contents_response`.
fn validate_contents_response(data: &Json) -> Result<(), String> {
    let Some(object) = data.as_object() else {
        return Err("Querit API response must be a JSON object.".into());
    };
    for field in ["results", "statuses"] {
        if object.get(field).is_some_and(|v| !v.is_array()) {
            return Err(format!(
                "Querit API response field {field} must be an array."
            ));
        }
    }
    Ok(())
}

pub struct QueritContents {
    config: Arc<ToolsConfig>,
}

impl QueritContents {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        QueritContents { config }
    }

    fn fail(cx: &ToolCx<'_>, message: String) -> Json {
        cx.set_output("_ERROR", Json::String(message.clone()));
        Json::String(format!("Querit contents error: {message}"))
    }

    async fn contents(
        &self,
        cx: &ToolCx<'_>,
        values: &Map<String, Json>,
        key: &Secret,
    ) -> Result<Json, Stop> {
        validate_contents(values).map_err(Stop::Failed)?;
        let crawl = as_int(&values["crawl_timeout"]).unwrap_or(10);
        let payload = serde_json::json!({
            "urls": values["urls"], "format": values["format"],
            "crawlTimeout": crawl, "extrasMeta": values["extras_meta"],
        });
        // `max(DEFAULT_TIMEOUT, crawlTimeout + 5)`.
        let timeout = DEFAULT_TIMEOUT.max(Duration::from_secs(crawl.unsigned_abs() + 5));
        let url = format!("{}/contents", self.config.base_url(SERVICE, DEFAULT_BASE));
        let data = post(cx, &url, &payload, key, timeout).await?;
        validate_contents_response(&data).map_err(Stop::Failed)?;
        cx.set_output("json", data.clone());
        Ok(data)
    }
}

impl External for QueritContents {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let mut values: Map<String, Json> = ["urls", "format", "crawl_timeout", "extras_meta"]
                .into_iter()
                .map(|name| (name.to_string(), value(cx, &args, name)))
                .collect();
            if let Some(urls) = values.remove("urls") {
                values.insert("urls".into(), normalize_urls(urls));
            }
            let key = api_key(cx, &self.config);
            if key.is_empty() {
                return Ok(Self::fail(cx, NO_KEY.into()));
            }
            match self.contents(cx, &values, &key).await {
                Ok(v) => Ok(v),
                Err(Stop::Canceled) => Ok(Json::Null),
                Err(Stop::Failed(e)) => Ok(Self::fail(cx, redact(&e, &key))),
            }
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        Some("Reading web page contents with Querit.".into())
    }
}
