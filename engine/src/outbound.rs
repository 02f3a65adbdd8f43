//! The one outbound HTTP layer for URLs a canvas or its user controls (Crawler, SearXNG, and
//! the next tools that fetch a page): every hop of a request, the first and each redirect,
//! passes the SSRF guard (`ssrf.rs`) and connects to the address the guard vetted, with no
//! second lookup (`http::pinned_client`); the whole exchange has a time limit, the body a size
//! limit, and no error text carries the URL's query or a header (where keys travel).

use super::http;
use super::ssrf::{self, Guard};
use super::telemetry;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, COOKIE, LOCATION};
use reqwest::Method;
use std::time::{Duration, Instant};
use tracing::Instrument;

/// One request to a canvas-controlled URL.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    /// For the whole exchange, redirects included.
    pub timeout: Duration,
    /// The largest body read; a larger one is an error.
    pub max_bytes: usize,
    /// Redirects followed (`requests` follows 30).
    pub max_redirects: usize,
}

impl Request {
    /// A GET with RAGFlow's usual limits: 10 redirects, 10 MiB, `timeout`.
    pub fn get(url: impl Into<String>, timeout: Duration) -> Request {
        Request {
            method: Method::GET,
            url: url.into(),
            headers: Vec::new(),
            body: None,
            timeout,
            max_bytes: 10 * 1024 * 1024,
            max_redirects: 10,
        }
    }
}

/// What came back.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    /// The URL of the last hop.
    pub url: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Why a request did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The guard refused a hop's URL (RAGFlow's `ValueError` text).
    Refused(String),
    /// Connecting, sending or reading failed (no URL in the text).
    Transport(String),
    TimedOut,
    TooLarge(usize),
    TooManyRedirects(usize),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Refused(e) => f.write_str(e),
            Error::Transport(e) => f.write_str(e),
            Error::TimedOut => f.write_str("Read timed out."),
            Error::TooLarge(n) => write!(f, "the response is larger than {n} bytes"),
            Error::TooManyRedirects(n) => write!(f, "Exceeded {n} redirects."),
        }
    }
}

/// Send `req` through `guard`, following redirects, each hop checked and pinned; in one span
/// (the URL redacted, the final status), carrying the trace context to every hop.
pub async fn fetch(guard: &Guard, req: Request) -> Result<Response, Error> {
    let span = telemetry::outbound_span("fetch", req.method.as_str(), &req.url);
    let answer = fetch_hops(guard, req).instrument(span.clone()).await;
    if !span.is_disabled() {
        match &answer {
            Ok(r) => telemetry::record_status(&span, r.status),
            Err(Error::TimedOut) => telemetry::record_failure(&span, "timeout"),
            Err(Error::Refused(_)) => telemetry::record_failure(&span, "refused"),
            Err(_) => telemetry::record_failure(&span, "transport"),
        }
    }
    answer
}

async fn fetch_hops(guard: &Guard, req: Request) -> Result<Response, Error> {
    let deadline = Instant::now() + req.timeout;
    let mut method = req.method.clone();
    let mut body = req.body.clone();
    let mut headers = HeaderMap::new();
    for (k, v) in &req.headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| Error::Transport(format!("invalid header name {k:?}")))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| Error::Transport(format!("invalid value for header {k:?}")))?;
        headers.insert(name, value);
    }
    telemetry::inject_trace_context(&mut headers);
    let mut url = req.url.clone();
    for hop in 0..=req.max_redirects {
        let target = ssrf::assert_url_is_safe(&url, guard)
            .await
            .map_err(Error::Refused)?;
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::TimedOut);
        }
        let client = http::pinned_client(&target, left)
            .map_err(|e| Error::Transport(e.without_url().to_string()))?;
        let parsed = url::Url::parse(&url).map_err(|e| Error::Refused(e.to_string()))?;
        let mut builder = client
            .request(method.clone(), parsed.clone())
            .headers(headers.clone());
        if let Some(b) = &body {
            builder = builder.body(b.clone());
        }
        let mut resp = match tokio::time::timeout(left, builder.send()).await {
            Err(_) => return Err(Error::TimedOut),
            Ok(Err(e)) if e.is_timeout() => return Err(Error::TimedOut),
            Ok(Err(e)) => return Err(Error::Transport(transport_text(&e))),
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if status.is_redirection() {
            if let Some(location) = resp.headers().get(LOCATION).and_then(|l| l.to_str().ok()) {
                if hop == req.max_redirects {
                    return Err(Error::TooManyRedirects(req.max_redirects));
                }
                let next = parsed
                    .join(location)
                    .map_err(|e| Error::Refused(format!("invalid redirect location: {e}")))?;
                // `requests`: a 303, or a 301/302 answering a POST, continues as a GET.
                if status.as_u16() == 303
                    || (matches!(status.as_u16(), 301 | 302) && method == Method::POST)
                {
                    method = Method::GET;
                    body = None;
                }
                // Credentials never follow a redirect to another host.
                if next.host_str() != parsed.host_str() {
                    headers.remove(AUTHORIZATION);
                    headers.remove(COOKIE);
                }
                url = next.to_string();
                continue;
            }
        }
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = match tokio::time::timeout(left, resp.chunk()).await {
                Err(_) => return Err(Error::TimedOut),
                Ok(Err(e)) => return Err(Error::Transport(transport_text(&e))),
                Ok(Ok(c)) => c,
            };
            let Some(chunk) = chunk else { break };
            if out.len() + chunk.len() > req.max_bytes {
                return Err(Error::TooLarge(req.max_bytes));
            }
            out.extend_from_slice(&chunk);
        }
        return Ok(Response {
            status: status.as_u16(),
            url,
            headers: resp.headers().clone(),
            body: out,
        });
    }
    Err(Error::TooManyRedirects(req.max_redirects))
}

/// A transport error's text without the URL (whose query may carry a key).
fn transport_text(e: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = s.to_string();
        source = s.source();
    }
    if text.is_empty() {
        if e.is_connect() {
            "connection failed".into()
        } else {
            "request failed".into()
        }
    } else {
        text
    }
}
