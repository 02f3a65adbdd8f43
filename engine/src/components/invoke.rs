//! Invoke: an HTTP request whose URL, arguments and headers come from the canvas
//! (components.md §13, `agent/component/invoke.py`).
//!
//! Requests go out the way Python's `requests` sends them (query/form encoding, JSON body,
//! default headers, no redirects) to the address the SSRF guard validated. Failures keep
//! RAGFlow's split: validation errors (`ValueError`s) end at once with `URL not valid`, network
//! errors are retried after `delay_after_error` and end with urllib3's error text.

use super::{exp_str, py_get, py_getitem, py_time, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::Template;
use crate::val::Val;
use crate::{http, ssrf, telemetry};
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::py::json_loads;
use canvasc_value::{py, Json, Map};
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;
use std::time::Duration;
use tracing::Instrument;

/// The bindings of the references in the parameters.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// The URL, pre-scanned (after `strip()`).
    pub url: Option<Template>,
    /// Per `variables` entry: its `ref`, and its `value` text pre-scanned.
    pub variables: Vec<(Option<Bound>, Option<Template>)>,
    /// Per header (in the order of the `headers` JSON object): its `{name}` placeholders.
    pub headers: Vec<Vec<Option<Bound>>>,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub bound: Bindings,
    pub url: Json,
    pub method: Json,
    pub headers: Json,
    pub variables: Json,
    pub datatype: Json,
    pub timeout: Json,
    pub clean_html: Json,
    pub proxy: Json,
    pub max_retries: Json,
    pub delay_after_error: Json,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let get = |k: &str, d: Json| p.get(k).cloned().unwrap_or(d);
        Spec {
            bound: Bindings::default(),
            url: get("url", Json::from("")),
            method: get("method", Json::from("get")),
            headers: get("headers", Json::from("")),
            variables: get("variables", Json::Array(Vec::new())),
            datatype: get("datatype", Json::from("json")),
            timeout: get("timeout", Json::from(60)),
            clean_html: get("clean_html", Json::Bool(false)),
            proxy: get("proxy", Json::Null),
            max_retries: get("max_retries", Json::from(0)),
            delay_after_error: get("delay_after_error", Json::from(2.0)),
        }
    }

    fn json_mode(&self) -> bool {
        self.datatype
            .as_str()
            .is_some_and(|d| d.to_lowercase() == "json")
    }
}

const URL_NOT_VALID: &str = "URL not valid";

/// Why one attempt failed: a `ValueError` (no retry) or anything else (retried).
enum Failure {
    Invalid,
    Other(String),
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx).await
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Waiting for the server respond..."))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        let template = |text: &str| {
            let mut tpl = Template::exact_case(text);
            tpl.bind(r);
            tpl
        };
        let headers = match &self.headers {
            Json::String(text) => match json_loads::loads(text).map(|p| p.value) {
                Ok(Json::Object(m)) => m
                    .values()
                    .map(|v| match v {
                        Json::String(h) => HEADER_REF
                            .captures_iter(h)
                            .map(|c| c.get(1).and_then(|n| r.resolve(n.as_str())))
                            .collect(),
                        _ => Vec::new(),
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        self.bound = Bindings {
            url: self.url.as_str().map(|u| template(py::strip(u))),
            variables: match &self.variables {
                Json::Array(vars) => vars
                    .iter()
                    .map(|v| {
                        let reference = match v.get("ref") {
                            Some(Json::String(e)) => r.resolve(py::strip(e)),
                            _ => None,
                        };
                        let value = v.get("value").and_then(Json::as_str).map(template);
                        (reference, value)
                    })
                    .collect(),
                _ => Vec::new(),
            },
            headers,
        };
    }
}

async fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let args = build_args(spec, cx).await?;
    let headers = build_headers(spec, cx).await?;
    let guard = cx.shared.services.guard();
    let proxy = normalize_proxy(&spec.proxy)?;
    let proxy_target = match &proxy {
        Some(url) => match ssrf::assert_url_is_safe(url, &guard).await {
            Ok(t) => Some(t),
            Err(_) => {
                cx.set_output("_ERROR", Json::from(URL_NOT_VALID));
                return Ok(());
            }
        },
        None => None,
    };
    let attempts = attempts(&spec.max_retries)?;
    let mut last_error: Option<String> = None;
    for _ in 0..attempts {
        if cx.check_canceled() {
            return Ok(());
        }
        let outcome = attempt(
            spec,
            cx,
            &args,
            &headers,
            proxy.as_deref(),
            proxy_target.as_ref(),
        );
        // A cancel aborts a request in flight that has not answered within `CALL_GRACE`
        // (an endpoint that never answers); RAGFlow's answers first and shows the result.
        let Some(outcome) = cx.shared.cancel.or_cancel_after_grace(outcome).await else {
            cx.check_canceled();
            return Ok(());
        };
        match outcome {
            Ok(result) => {
                cx.set_output("result", Json::String(result));
                return Ok(());
            }
            Err(Failure::Invalid) => {
                cx.set_output("_ERROR", Json::from(URL_NOT_VALID));
                return Ok(());
            }
            Err(Failure::Other(e)) => {
                if cx.check_canceled() {
                    return Ok(());
                }
                last_error = Some(e);
                let pause = tokio::time::sleep(delay(&spec.delay_after_error)?);
                if cx.shared.cancel.or_cancel(pause).await.is_none() {
                    cx.check_canceled();
                    return Ok(());
                }
            }
        }
    }
    if let Some(e) = last_error {
        cx.set_output("_ERROR", Json::String(e));
    }
    Ok(())
}

/// `range(max_retries + 1)`, failing as Python's `+` and `range()` do for other types. Python's
/// ints do not overflow: a count past `u64::MAX` attempts is as endless as RAGFlow's loop, so the
/// sum saturates instead of wrapping to zero attempts.
fn attempts(max_retries: &Json) -> Result<u64, RunError> {
    match max_retries {
        Json::Bool(b) => Ok(u64::from(*b) + 1),
        Json::Number(n) if !n.is_f64() => Ok(match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.saturating_add(1),
            (None, Some(i)) => u64::try_from(i.saturating_add(1)).unwrap_or(0),
            (None, None) => 0,
        }),
        Json::Number(_) => Err(RunError::type_error(
            "'float' object cannot be interpreted as an integer",
        )),
        Json::String(_) | Json::Array(_) => {
            let t = py::type_name(max_retries);
            Err(RunError::type_error(format!(
                "can only concatenate {t} (not \"int\") to {t}"
            )))
        }
        other => Err(RunError::type_error(format!(
            "unsupported operand type(s) for +: '{}' and 'int'",
            py::type_name(other)
        ))),
    }
}

/// `time.sleep(delay_after_error)`: converted first (an `OverflowError` past CPython's time
/// range), then refused when negative.
fn delay(v: &Json) -> Result<Duration, RunError> {
    let secs = py_time::seconds(v)?;
    if secs < 0.0 {
        return Err(RunError::value_error("sleep length must be non-negative"));
    }
    Ok(py_time::duration(secs))
}

/// `_resolve_variable_value`: a keyword argument wins over the canvas value (which is read
/// anyway); a stream is consumed and recorded; `None` reads `""`.
async fn resolve_variable(
    cx: &NodeCx<'_>,
    name: &str,
    bound: Option<&Bound>,
) -> Result<Json, RunError> {
    let canvas = cx.read(bound, name)?;
    let value = match cx.kwargs.get(name) {
        Some(v) => Val::Json(v.clone()),
        None => canvas,
    };
    let value = match value {
        Val::Stream(s) => {
            let text = s.collect().await?;
            cx.set_input_value(name, Json::String(text.clone()));
            Json::String(text)
        }
        Val::Json(j) => j,
    };
    Ok(if value.is_null() {
        Json::from("")
    } else {
        value
    })
}

fn str_of(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => py::str_of(other),
    }
}

/// `_resolve_template_text`: every reference (case-sensitive pattern) replaced by `str()` of its
/// value. `scanned` is the same text scanned when the program was built.
async fn render_template(
    cx: &NodeCx<'_>,
    text: &str,
    scanned: Option<&Template>,
) -> Result<String, RunError> {
    let fresh;
    let tpl = match scanned {
        Some(t) => t,
        None => {
            fresh = Template::exact_case(text);
            &fresh
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (span, i) in tpl.matches() {
        out.push_str(&text[last..span.start]);
        let value = resolve_variable(cx, &tpl.exprs()[*i], tpl.binding(*i)).await?;
        out.push_str(&str_of(&value));
        last = span.end;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

static HEADER_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{([a-zA-Z_][a-zA-Z0-9_.@-]*)\}").expect("valid pattern"));

/// `_resolve_header_text`: plain `{name}` placeholders, each a canvas reference (`bound`: their
/// bindings in order).
async fn render_header(
    cx: &NodeCx<'_>,
    text: &str,
    bound: &[Option<Bound>],
) -> Result<String, RunError> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, c) in HEADER_REF.captures_iter(text).enumerate() {
        let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else {
            continue;
        };
        out.push_str(&text[last..whole.start()]);
        let b = bound.get(i).and_then(Option::as_ref);
        out.push_str(&str_of(&resolve_variable(cx, name.as_str(), b).await?));
        last = whole.end();
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// `_resolve_arg_value`, with the bindings of the entry's `ref` and `value`.
async fn resolve_arg(
    cx: &NodeCx<'_>,
    para: &Json,
    bound: Option<&(Option<Bound>, Option<Template>)>,
) -> Result<Json, RunError> {
    let (ref_bound, value_tpl) = match bound {
        Some((r, v)) => (r.as_ref(), v.as_ref()),
        None => (None, None),
    };
    let reference = match py_get(para, "ref")? {
        Some(v) if py::truthy(v) => py::strip(exp_str(v)?).to_string(),
        _ => String::new(),
    };
    if !reference.is_empty()
        && (cx.kwargs.contains_key(&reference) || !cx.read(ref_bound, &reference)?.is_null())
    {
        return resolve_variable(cx, &reference, ref_bound).await;
    }
    match py_get(para, "value")? {
        Some(Json::String(s)) => return Ok(Json::String(render_template(cx, s, value_tpl).await?)),
        Some(v) if !v.is_null() => return Ok(v.clone()),
        _ => {}
    }
    if !reference.is_empty() {
        return resolve_variable(cx, &reference, ref_bound).await;
    }
    Ok(Json::from(""))
}

/// `_build_request_args`: ordered like a dict (a repeated key keeps its first position).
async fn build_args(spec: &Spec, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
    let mut args = Map::new();
    for (i, para) in super::py_iter(&spec.variables)?.into_iter().enumerate() {
        let key = str_of(py_getitem(&para, "key")?);
        let mut value = resolve_arg(cx, &para, spec.bound.variables.get(i)).await?;
        if spec.json_mode() {
            // Stringified JSON passes through as the structure it encodes.
            if let Json::String(s) = &value {
                // Only a `JSONDecodeError` leaves the text as it is; a `RecursionError` raises.
                let parsed = match json_loads::loads(s) {
                    Ok(parsed) => Some(parsed),
                    Err(e) if e.class == "JSONDecodeError" => None,
                    Err(e) => return Err(RunError::raised(e.class, e.message)),
                };
                if let Some(parsed) = parsed {
                    if parsed.non_finite {
                        return Err(RunError::value_error(format!(
                            "Invoke JSON argument '{key}' is not JSON-serializable."
                        )));
                    }
                    value = parsed.value;
                }
            }
        }
        args.insert(key, value.clone());
        if let Some(r) = py_get(&para, "ref")?.filter(|r| py::truthy(r)) {
            cx.set_input_value(&str_of(r), value);
        }
    }
    Ok(args)
}

/// `_build_headers`: the `headers` parameter is JSON text of an object.
async fn build_headers(spec: &Spec, cx: &NodeCx<'_>) -> Result<Vec<(String, Json)>, RunError> {
    if !py::truthy(&spec.headers) {
        return Ok(Vec::new());
    }
    let Json::String(text) = &spec.headers else {
        return Err(RunError::type_error(format!(
            "the JSON object must be str, bytes or bytearray, not {}",
            py::type_name(&spec.headers)
        )));
    };
    let parsed = json_loads::loads(text).map_err(|e| RunError::raised(e.class, e.message))?;
    let Json::Object(m) = parsed.value else {
        return Err(RunError::value_error(
            "Invoke headers must be a JSON object.",
        ));
    };
    let mut out = Vec::with_capacity(m.len());
    for (i, (k, v)) in m.into_iter().enumerate() {
        let bound = spec.bound.headers.get(i).map_or(&[][..], Vec::as_slice);
        let v = match v {
            Json::String(s) => Json::String(render_header(cx, &s, bound).await?),
            other => other,
        };
        out.push((k, v));
    }
    Ok(out)
}

static SCHEME_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"https?:?/?/?").expect("valid pattern"));

/// `_normalize_proxy_url`: nothing but a scheme means no proxy; a bare host gets `http://`.
fn normalize_proxy(proxy: &Json) -> Result<Option<String>, RunError> {
    let raw = if py::truthy(proxy) {
        py::strip(exp_str(proxy)?).to_string()
    } else {
        String::new()
    };
    if SCHEME_PREFIX.replace_all(&raw, "").is_empty() {
        return Ok(None);
    }
    Ok(Some(
        if raw.starts_with("http://") || raw.starts_with("https://") {
            raw
        } else {
            format!("http://{raw}")
        },
    ))
}

/// One try: build the URL, validate and pin it, send, format the response.
async fn attempt(
    spec: &Spec,
    cx: &NodeCx<'_>,
    args: &Map<String, Json>,
    headers: &[(String, Json)],
    proxy: Option<&str>,
    proxy_target: Option<&ssrf::Target>,
) -> Result<String, Failure> {
    let raw_url = match &spec.url {
        Json::String(s) => py::strip(s).to_string(),
        other => str_of(other),
    };
    let mut url = render_template(cx, &raw_url, spec.bound.url.as_ref())
        .await
        .map_err(|e| Failure::Other(e.to_string()))?;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        url = format!("http://{url}");
    }
    let target = ssrf::assert_url_is_safe(&url, &cx.shared.services.guard())
        .await
        .map_err(|_| Failure::Invalid)?;
    let method = match &spec.method {
        Json::String(s) => s.to_lowercase(),
        other => str_of(other),
    };
    if !matches!(method.as_str(), "get" | "post" | "put") {
        return Err(Failure::Other(format!(
            "module 'requests' has no attribute '{method}'"
        )));
    }
    // `timeout=None` waits forever; anything but a number is urllib3's `ValueError`.
    let timeout = match &spec.timeout {
        Json::Null => None,
        Json::Number(_) | Json::Bool(_) => Some(py::to_float(&spec.timeout).unwrap_or(60.0)),
        _ => return Err(Failure::Invalid),
    };
    if timeout.is_some_and(|t| t <= 0.0) {
        return Err(Failure::Invalid);
    }
    // urllib3 accepts any positive number; the socket's `settimeout` then overflows as CPython
    // does, an ordinary (retried) request error.
    let timeout_duration = match timeout {
        None => None,
        Some(_) => {
            Some(py_time::seconds(&spec.timeout).map_err(|e| Failure::Other(e.to_string()))?)
        }
    }
    .map(py_time::duration);
    let proxy = match (proxy, proxy_target) {
        (Some(p), Some(t)) => Some((reqwest::Proxy::all(p).map_err(|_| Failure::Invalid)?, t)),
        _ => None,
    };
    let client = http::invoke_client(&target, timeout_duration, proxy)
        .map_err(|e| Failure::Other(e.to_string()))?;
    let mut header_map = reqwest::header::HeaderMap::new();
    let defaults = [("user-agent", "python-requests/2.32.5"), ("accept", "*/*")];
    for (k, v) in defaults {
        header_map.insert(k, reqwest::header::HeaderValue::from_static(v));
    }
    for (k, v) in headers {
        let (name, value) = header(k, v)?;
        if let (Some(name), Some(value)) = (name, value) {
            header_map.insert(name, value);
        }
    }
    let has_content_type = header_map.contains_key(reqwest::header::CONTENT_TYPE);
    let request = if method == "get" {
        let full = with_query(&url, &urlencode(args));
        let parsed = reqwest::Url::parse(&full).map_err(|_| Failure::Invalid)?;
        client.get(parsed)
    } else {
        let parsed = reqwest::Url::parse(&url).map_err(|_| Failure::Invalid)?;
        let rb = if method == "post" {
            client.post(parsed)
        } else {
            client.put(parsed)
        };
        let (body, content_type) = if spec.json_mode() {
            (
                py::json_dumps_ascii(&Json::Object(args.clone())),
                Some("application/json"),
            )
        } else if args.is_empty() {
            (String::new(), None)
        } else {
            (urlencode(args), Some("application/x-www-form-urlencoded"))
        };
        if let (Some(ct), false) = (content_type, has_content_type) {
            header_map.insert(
                reqwest::header::CONTENT_TYPE,
                reqwest::header::HeaderValue::from_static(ct),
            );
        }
        rb.body(body)
    };
    let span = telemetry::outbound_span("invoke", &method.to_uppercase(), &url);
    telemetry::inject_trace_context_in(&span, &mut header_map);
    let sent = request
        .headers(header_map)
        .send()
        .instrument(span.clone())
        .await;
    match &sent {
        Ok(r) => telemetry::record_status(&span, r.status().as_u16()),
        Err(_) => telemetry::record_failure(&span, "transport"),
    }
    let response = sent
        .map_err(|e| Failure::Other(transport_error(&e, &url, &target, timeout.unwrap_or(0.0))))?;
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let bytes = response
        .bytes()
        .await
        .map_err(|e| Failure::Other(transport_error(&e, &url, &target, timeout.unwrap_or(0.0))))?;
    if py::truthy(&spec.clean_html) {
        // A page too deep for RAGFlow's recursive walk raises inside the retried `try`.
        return super::html_text::clean_html(&bytes).map_err(|e| Failure::Other(e.to_string()));
    }
    Ok(decode_text(&bytes, content_type.as_deref()))
}

/// One header as `requests` validates it (every failure is a `ValueError`); `None` values are
/// dropped.
#[allow(clippy::type_complexity)]
fn header(
    name: &str,
    value: &Json,
) -> Result<
    (
        Option<reqwest::header::HeaderName>,
        Option<reqwest::header::HeaderValue>,
    ),
    Failure,
> {
    let Json::String(v) = value else {
        return if value.is_null() {
            Ok((None, None))
        } else {
            Err(Failure::Invalid)
        };
    };
    let name_ok = name
        .chars()
        .next()
        .is_some_and(|c| c != ':' && !py::is_space(c))
        && !name.chars().skip(1).any(|c| matches!(c, ':' | '\r' | '\n'))
        && name.is_ascii();
    let value_ok = (v.is_empty()
        || (v.chars().next().is_some_and(|c| !py::is_space(c))
            && !v.chars().any(|c| matches!(c, '\r' | '\n'))))
        && v.chars().all(|c| (c as u32) < 0x100);
    if !name_ok || !value_ok {
        return Err(Failure::Invalid);
    }
    let latin1: Vec<u8> = v.chars().map(|c| c as u32 as u8).collect();
    let name =
        reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| Failure::Invalid)?;
    let value = reqwest::header::HeaderValue::from_bytes(&latin1).map_err(|_| Failure::Invalid)?;
    Ok((Some(name), Some(value)))
}

/// `urllib.parse.quote_plus`.
fn quote_plus(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// `requests`' `_encode_params` for a dict: a list repeats its key per item (a dict per key),
/// `None` is dropped, everything else is `str()`.
fn urlencode(args: &Map<String, Json>) -> String {
    fn push(out: &mut Vec<String>, k: &str, v: &Json, top: bool) {
        match v {
            Json::Null if top => {}
            Json::Array(items) => items.iter().for_each(|i| {
                if top && i.is_null() {
                    return;
                }
                push(out, k, i, false)
            }),
            Json::Object(m) => m
                .keys()
                .for_each(|key| push(out, k, &Json::from(key.as_str()), false)),
            other => out.push(format!("{}={}", quote_plus(k), quote_plus(&str_of(other)))),
        }
    }
    let mut out = Vec::new();
    for (k, v) in args {
        push(&mut out, k, v, true);
    }
    out.join("&")
}

/// Append encoded parameters to a URL's query, before any fragment.
fn with_query(url: &str, query: &str) -> String {
    if query.is_empty() {
        return url.to_string();
    }
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let joined = match base.split_once('?') {
        Some((_, existing)) if !existing.is_empty() => format!("{base}&{query}"),
        Some((path, _)) => format!("{path}?{query}"),
        None => format!("{base}?{query}"),
    };
    match fragment {
        Some(f) => format!("{joined}#{f}"),
        None => joined,
    }
}

/// `response.text`: the charset from `Content-Type`; ISO-8859-1 for other `text` types, UTF-8
/// for JSON; otherwise a guess (UTF-8 here).
fn decode_text(bytes: &[u8], content_type: Option<&str>) -> String {
    let encoding = content_type.and_then(|ct| {
        let mut parts = ct.split(';');
        let mime = parts.next().unwrap_or("").trim().to_string();
        for p in parts {
            let p = p.trim();
            if let Some((k, v)) = p.split_once('=') {
                let strip = |s: &str| s.trim_matches([' ', '"', '\'']).to_string();
                if strip(k).to_lowercase() == "charset" {
                    return Some(strip(v).trim_matches(['\'', '"']).to_lowercase());
                }
            }
        }
        if mime.contains("text") {
            Some("iso-8859-1".to_string())
        } else if mime.contains("application/json") {
            Some("utf-8".to_string())
        } else {
            None
        }
    });
    match encoding.as_deref() {
        Some("iso-8859-1" | "latin-1" | "latin1" | "l1" | "iso8859-1" | "iso_8859_1") => {
            bytes.iter().map(|b| char::from(*b)).collect()
        }
        Some("ascii" | "us-ascii") => bytes
            .iter()
            .map(|b| {
                if b.is_ascii() {
                    char::from(*b)
                } else {
                    '\u{fffd}'
                }
            })
            .collect(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// The text `str(exception)` gives for a `requests` transport error (urllib3 2.x wording).
fn transport_error(e: &reqwest::Error, url: &str, target: &ssrf::Target, timeout: f64) -> String {
    let parsed = reqwest::Url::parse(url).ok();
    let https = url.starts_with("https://");
    let port = parsed
        .as_ref()
        .and_then(reqwest::Url::port_or_known_default)
        .unwrap_or(if https { 443 } else { 80 });
    let pool = if https {
        "HTTPSConnectionPool"
    } else {
        "HTTPConnectionPool"
    };
    let conn = if https {
        "HTTPSConnection"
    } else {
        "HTTPConnection"
    };
    let host = &target.hostname;
    let path = e
        .url()
        .map(|u| match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        })
        .unwrap_or_else(|| "/".to_string());
    let t = py::float_repr(timeout);
    let t = t.strip_suffix(".0").unwrap_or(&t).to_string();
    if e.is_timeout() && !e.is_connect() {
        return format!("{pool}(host='{host}', port={port}): Read timed out. (read timeout={t})");
    }
    let cause = if e.is_timeout() {
        format!("ConnectTimeoutError({conn}(host='{host}', port={port}), 'Connection to {host} timed out. (connect timeout={t})')")
    } else if e.is_connect() {
        let reason = std::error::Error::source(e)
            .map(|s| format!("{s:?}"))
            .unwrap_or_default();
        let errno = if reason.contains("ConnectionRefused") || reason.contains("Connection refused")
        {
            "[Errno 111] Connection refused"
        } else if reason.contains("NetworkUnreachable") {
            "[Errno 101] Network is unreachable"
        } else if reason.contains("HostUnreachable") {
            "[Errno 113] No route to host"
        } else {
            "[Errno 111] Connection refused"
        };
        format!("NewConnectionError(\"{conn}(host='{host}', port={port}): Failed to establish a new connection: {errno}\")")
    } else {
        return "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))".to_string();
    };
    format!("{pool}(host='{host}', port={port}): Max retries exceeded with url: {path} (Caused by {cause})")
}
