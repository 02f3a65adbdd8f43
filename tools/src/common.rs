//! What RAGFlow's tools share (tools.md §0): reading arguments and parameters the way Python
//! does, the retry loop, `_retrieve_chunks` with `kb_prompt`'s text, and one way to send a
//! request with a time limit, a size limit and no secret in any error text.

use canvasc_engine::external::ToolCx;
use canvasc_engine::llm::kb_prompt::hash_str2int;
use canvasc_engine::telemetry;
use canvasc_value::{py, Json, Map};
use regex::Regex;
use std::future::Future;
use std::sync::LazyLock;
use std::time::Duration;
use tracing::Instrument;

/// An argument of the call (`kwargs[key]`), else the parameter of the same name (the
/// attribute `ToolParamBase` sets from the meta's default or the DSL).
pub fn arg_or_param<'a>(
    cx: &'a ToolCx<'_>,
    args: &'a Map<String, Json>,
    key: &str,
) -> Option<&'a Json> {
    args.get(key).or_else(|| cx.param(key))
}

/// A parameter as text (`str()` of a non-string; `""` when unset or `None`).
pub fn param_text(cx: &ToolCx<'_>, key: &str) -> String {
    match cx.param(key) {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// A parameter as a whole number (a numeric string or float is accepted), else `default`.
pub fn param_int(cx: &ToolCx<'_>, key: &str, default: i64) -> i64 {
    match cx.param(key) {
        Some(Json::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .unwrap_or(default),
        Some(Json::String(s)) => s.trim().parse().unwrap_or(default),
        Some(Json::Bool(b)) => i64::from(*b),
        _ => default,
    }
}

/// A parameter's truthiness (`False` when unset).
pub fn param_bool(cx: &ToolCx<'_>, key: &str) -> bool {
    cx.param(key).is_some_and(py::truthy)
}

/// How a retry loop ended.
pub enum Attempts<T> {
    Done(T),
    /// The run was canceled: the tool returns `None` silently.
    Canceled,
    /// Every attempt failed; the last error's text.
    Failed(String),
}

/// The retry loop most tools run: `max_retries + 1` attempts; after a failure (and a
/// cancellation check) remember the error and, when `sleep` is set, wait `delay_after_error`
/// seconds.
pub async fn with_retries<T, F, Fut>(cx: &ToolCx<'_>, sleep: bool, mut attempt: F) -> Attempts<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let retries = param_int(cx, "max_retries", 0).max(0);
    let delay = cx
        .param("delay_after_error")
        .and_then(Json::as_f64)
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(0.0);
    let mut last = None;
    for _ in 0..=retries {
        if cx.check_canceled() {
            return Attempts::Canceled;
        }
        match attempt().await {
            Ok(v) => {
                if cx.check_canceled() {
                    return Attempts::Canceled;
                }
                return Attempts::Done(v);
            }
            Err(e) => {
                if cx.check_canceled() {
                    return Attempts::Canceled;
                }
                last = Some(e);
                if sleep && delay > 0.0 {
                    tokio::time::sleep(Duration::from_secs_f64(delay.min(3600.0))).await;
                }
            }
        }
    }
    Attempts::Failed(last.unwrap_or_default())
}

/// The end of a tool body after its retry loop: the value, `None` when canceled, or `_ERROR`
/// set and `"<prefix> error: <e>"` returned.
pub fn finish(cx: &ToolCx<'_>, prefix: &str, outcome: Attempts<Json>) -> Json {
    match outcome {
        Attempts::Done(v) => v,
        Attempts::Canceled => Json::Null,
        Attempts::Failed(e) => {
            cx.set_output("_ERROR", Json::String(e.clone()));
            Json::String(format!("{prefix} error: {e}"))
        }
    }
}

/// One search result, as `_retrieve_chunks` reads it through its getters.
pub struct Found {
    pub title: Json,
    pub url: Json,
    pub content: String,
    /// `similarity` (`1` when the tool has no score).
    pub score: Json,
}

/// Inline base64 PNG images, which `_retrieve_chunks` removes from content.
static INLINE_PNG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"!?\[[a-z]+\]\(data:image/png;base64,[ 0-9A-Za-z/_=+-]+\)").expect("valid pattern")
});

/// `ToolBase._retrieve_chunks`: chunks and document aggregates join the turn's references and
/// `formalized_content` is `kb_prompt`'s text for them (hashed ids). Returns that text.
pub fn retrieve_chunks(cx: &ToolCx<'_>, found: impl IntoIterator<Item = Found>) -> String {
    let mut chunks = Vec::new();
    let mut aggs = Vec::new();
    for r in found {
        if r.content.is_empty() {
            continue;
        }
        let content = INLINE_PNG.replace_all(&r.content, "");
        let content: String = content.chars().take(10_000).collect();
        if content.is_empty() {
            continue;
        }
        let id = hash_str2int(&content, 100_000_000).to_string();
        chunks.push(serde_json::json!({
            "chunk_id": id, "content": content, "doc_id": id, "docnm_kwd": r.title,
            "similarity": r.score, "url": r.url,
        }));
        aggs.push(serde_json::json!({"doc_name": r.title, "doc_id": id, "count": 1, "url": r.url}));
    }
    cx.add_reference(&chunks, &aggs);
    let text = kb_prompt(&chunks, 200_000).join("\n");
    cx.set_output("formalized_content", Json::String(text.clone()));
    text
}

pub use canvasc_engine::llm::kb_prompt::kb_prompt;

/// A failed request, worded without the URL (which may carry a key) or any header.
pub fn request_error(e: &reqwest::Error) -> String {
    RedactedError(e).to_string()
}

struct RedactedError<'a>(&'a reqwest::Error);

impl std::fmt::Display for RedactedError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = self.0;
        if e.is_timeout() {
            return f.write_str("Read timed out.");
        }
        if e.is_connect() {
            return f.write_str("Connection refused or unreachable.");
        }
        if let Some(status) = e.status() {
            return write!(f, "HTTP status {status}");
        }
        // The error chain without the URL reqwest puts into its own message.
        let mut msg = String::from("request failed");
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            msg = s.to_string();
            source = s.source();
        }
        f.write_str(&msg)
    }
}

/// The largest response body a tool reads (bytes); a larger one is an error, not a truncation.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Send `req` with the time limit `timeout` and read the body (at most [`MAX_BODY`] bytes),
/// whatever the status.
pub async fn send_raw(
    req: reqwest::RequestBuilder,
    timeout: Duration,
    shown_url: &str,
) -> Result<(reqwest::StatusCode, String), String> {
    let (client, request) = req.timeout(timeout).build_split();
    let mut request = request.map_err(|e| request_error(&e))?;
    let span = telemetry::outbound_span("tool", request.method().as_str(), request.url().as_str());
    telemetry::inject_trace_context_in(&span, request.headers_mut());
    let sent = client.execute(request).instrument(span.clone()).await;
    match &sent {
        Ok(r) => telemetry::record_status(&span, r.status().as_u16()),
        Err(_) => telemetry::record_failure(&span, "transport"),
    }
    let mut resp = sent.map_err(|e| request_error(&e))?;
    let status = resp.status();
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| request_error(&e))? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!(
                "the response of {shown_url} is larger than {MAX_BODY} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// `requests`' `raise_for_status()` text for a status of 400 and above, naming `shown_url`
/// (the URL without its query, so no key leaks).
pub fn raise_for_status(status: reqwest::StatusCode, shown_url: &str) -> Result<(), String> {
    if status.as_u16() < 400 {
        return Ok(());
    }
    let kind = if status.as_u16() < 500 {
        "Client Error"
    } else {
        "Server Error"
    };
    Err(format!(
        "{} {kind}: {} for url: {shown_url}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    ))
}

/// [`send_raw`], failing as [`raise_for_status`] does.
pub async fn send(
    req: reqwest::RequestBuilder,
    timeout: Duration,
    shown_url: &str,
) -> Result<(reqwest::StatusCode, String), String> {
    let (status, body) = send_raw(req, timeout, shown_url).await?;
    raise_for_status(status, shown_url)?;
    Ok((status, body))
}

/// [`send`], then the body parsed as JSON.
pub async fn send_json(
    req: reqwest::RequestBuilder,
    timeout: Duration,
    shown_url: &str,
) -> Result<Json, String> {
    let (_, body) = send(req, timeout, shown_url).await?;
    serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))
}

/// The default HTTP timeout (`HTTP_CLIENT_TIMEOUT`, 15 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

/// `v` as text the way Python's f-strings and `str()` show it (`""` for `None`).
pub fn text(v: Option<&Json>) -> String {
    match v {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// `GET base?query` with `headers`, the body parsed as JSON (errors as [`send`] words them).
pub async fn get_json(
    cx: &ToolCx<'_>,
    base: &str,
    query: &[(&str, String)],
    headers: &[(&str, &str)],
    timeout: Duration,
) -> Result<Json, String> {
    let mut req = cx.http().get(with_query(base, query)?);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    send_json(req, timeout, base).await
}

/// `base` with `pairs` appended as its query (form-encoded, as `requests` encodes `params`).
pub fn with_query<K: AsRef<str>, V: AsRef<str>>(
    base: &str,
    pairs: &[(K, V)],
) -> Result<String, String> {
    let mut url = url::Url::parse(base).map_err(|e| format!("Invalid URL {base:?}: {e}"))?;
    if !pairs.is_empty() {
        let mut q = url.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k.as_ref(), v.as_ref());
        }
    }
    Ok(url.to_string())
}

/// `pairs` as an `application/x-www-form-urlencoded` body.
pub fn form_body(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// The opening every query-taking tool shares (`if self.check_if_canceled(): return` and
/// `if not kwargs.get("query"): self.set_output("formalized_content", ""); return ""`): the
/// argument as text, or the value the tool returns at once (`Null` when the run was canceled).
pub fn query_arg(cx: &ToolCx<'_>, args: &Map<String, Json>, key: &str) -> Result<String, Json> {
    if cx.check_canceled() {
        return Err(Json::Null);
    }
    match args.get(key).filter(|q| py::truthy(q)) {
        Some(query) => Ok(text(Some(query))),
        None => {
            cx.set_output("formalized_content", Json::String(String::new()));
            Err(Json::String(String::new()))
        }
    }
}

/// The search tools' `thoughts()`: the keywords, then what the tool does, then the trailing
/// indentation of RAGFlow's triple-quoted f-string (it reaches the stream, so it is kept).
pub fn keyword_thoughts(input: &Map<String, Json>, doing: &str, indent: usize) -> String {
    let q = input
        .get("query")
        .map(py::str_of)
        .unwrap_or_else(|| "-_-!".into());
    format!("\nKeywords: {q}\n{doing}\n{:indent$}", "")
}
