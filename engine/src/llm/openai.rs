//! The OpenAI-compatible chat client (OpenAI, DeepSeek, Ollama, vLLM and most of RAGFlow's
//! factories), behaving as RAGFlow's `rag/llm/chat_model.py` `Base` does where a canvas can
//! observe it: errors read `**ERROR**: <code> - <message>` with RAGFlow's codes, the last
//! failed attempt reports `MAX_RETRIES_EXCEEDED`, `gen_conf` is cleaned the same way.
//!
//! Where RAGFlow's behaviour is an accident of its stack, this client is deliberate instead:
//! it retries 429, 5xx and connection failures (the OpenAI SDK under RAGFlow retries those
//! too) with a jittered exponential backoff (`retry_delay · 2^attempt · uniform(0.5, 1)`, never
//! shorter than the server's `Retry-After`, capped) instead of `base_delay · uniform(10, 150)`;
//! and it never retries a stream that has already yielded
//! something (RAGFlow re-streams the answer from the start), so a stream broken mid-answer is
//! an error, not duplicated text.
//!
//! Reasoning stays apart ([`Delta::Reasoning`]); [`super::think`] renders it as RAGFlow does.
//! Dropping the returned future or stream drops the HTTP request and closes its connection.

use super::config::{ClientOptions, Endpoint, LlmConfig};
use super::error::{self, final_code, BROKEN_STREAM};
use super::wire::{self, Assembler, Chunk};
use super::{ChatProvider, ChatRequest, ChatResponse, Delta, LlmError};
use bytes::Bytes;
use canvasc_value::Json;
use eventsource_stream::Eventsource;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// A chat model behind an OpenAI-compatible HTTP API.
#[derive(Clone)]
pub struct OpenAiProvider {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    config: LlmConfig,
}

/// Why one attempt failed.
struct Failure {
    message: String,
    retryable: bool,
    /// The server's `Retry-After`, in seconds.
    retry_after: Option<Duration>,
}

impl Failure {
    fn connection(e: reqwest::Error) -> Self {
        Self::transient(format!("Connection error: {}", error_chain(e)))
    }

    fn transient(message: String) -> Self {
        Failure {
            message,
            retryable: true,
            retry_after: None,
        }
    }

    fn timeout(limit: Duration) -> Self {
        Failure {
            message: format!("Request timed out after {:.1}s.", limit.as_secs_f64()),
            retryable: false,
            retry_after: None,
        }
    }

    fn fatal(message: String) -> Self {
        Failure {
            message,
            retryable: false,
            retry_after: None,
        }
    }
}

/// A reqwest error with its causes (`error sending request …: tcp connect error: refused`).
fn error_chain(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The OpenAI SDK's text for an HTTP error, which RAGFlow prints and classifies:
/// `Error code: 429 - {'error': {...}}` (the body as Python prints it when it is JSON).
fn status_message(status: reqwest::StatusCode, body: &str) -> String {
    let body = body.trim();
    let shown = match serde_json::from_str::<Json>(body) {
        Ok(v) => canvasc_value::py::str_of(&v),
        Err(_) => body.to_string(),
    };
    format!("Error code: {} - {shown}", status.as_u16())
}

fn error_body_message(error: &Json) -> String {
    let text = error
        .get("message")
        .and_then(Json::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| canvasc_value::py::str_of(error));
    format!("Error: {text}")
}

impl OpenAiProvider {
    /// A provider resolving every request's `llm_id` through `config`, sending over `http`
    /// (normally the process-wide client the engine's `Services` hold).
    pub fn new(http: reqwest::Client, config: LlmConfig) -> Self {
        OpenAiProvider {
            inner: Arc::new(Inner { http, config }),
        }
    }

    pub fn config(&self) -> &LlmConfig {
        &self.inner.config
    }
}

impl Inner {
    fn options(&self) -> &ClientOptions {
        &self.config.client
    }

    fn endpoint(&self, llm_id: &str) -> Result<Endpoint, LlmError> {
        self.config
            .resolve(llm_id)
            .map_err(|e| LlmError::new(error::ERROR_MODEL, e.to_string()))
    }

    fn max_retries(&self, request: &ChatRequest) -> u32 {
        request.max_retries.unwrap_or(self.options().max_retries)
    }

    /// The wait before retry number `attempt + 1`: jittered so clients that failed together
    /// do not retry together, and at least what the server asked for.
    fn delay(&self, request: &ChatRequest, attempt: u32, failure: &Failure) -> Duration {
        let base = request
            .retry_delay
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(self.options().retry_delay);
        let backoff = base
            .saturating_mul(1u32 << attempt.min(20))
            .mul_f64(rand::Rng::gen_range(&mut rand::thread_rng(), 0.5..=1.0));
        backoff
            .max(failure.retry_after.unwrap_or_default())
            .min(self.options().max_retry_delay)
    }

    fn post(
        &self,
        endpoint: &Endpoint,
        body: &Json,
        headers: &[(String, String)],
    ) -> reqwest::RequestBuilder {
        let mut rb = self.http.post(endpoint.chat_url()).json(body);
        if let Some(key) = endpoint.api_key.as_deref().filter(|k| !k.is_empty()) {
            rb = rb.bearer_auth(key);
        }
        for (k, v) in headers {
            rb = rb.header(k.as_str(), v.as_str());
        }
        // Built inside the call's model span: the provider continues the run's trace.
        let mut context = reqwest::header::HeaderMap::new();
        crate::telemetry::inject_trace_context(&mut context);
        rb.headers(context)
    }

    /// Send and check the status; a failed status reads the body for the message.
    async fn send(&self, rb: reqwest::RequestBuilder) -> Result<reqwest::Response, Failure> {
        let resp = rb.send().await.map_err(Failure::connection)?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        // Seconds only: the HTTP-date form is rare from model servers.
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .and_then(|s| Duration::try_from_secs_f64(s).ok());
        let body = resp.text().await.unwrap_or_default();
        Err(Failure {
            message: status_message(status, &body),
            retryable: status.as_u16() == 429 || status.is_server_error(),
            retry_after,
        })
    }

    async fn complete_once(
        &self,
        endpoint: &Endpoint,
        body: &Json,
        headers: &[(String, String)],
    ) -> Result<ChatResponse, Failure> {
        let resp = self.send(self.post(endpoint, body, headers)).await?;
        let bytes = resp.bytes().await.map_err(Failure::connection)?;
        let chunk: Chunk = serde_json::from_slice(&bytes).map_err(|e| {
            Failure::fatal(format!(
                "the model's answer is not a chat completion ({e}): {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            ))
        })?;
        if let (Some(err), true) = (&chunk.error, chunk.choices.is_empty()) {
            return Err(Failure::fatal(error_body_message(err)));
        }
        Ok(wire::response_of(chunk))
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let endpoint = self.endpoint(&request.llm_id)?;
        let (body, headers) = wire::request_body(&endpoint, &request, false, false);
        let max_retries = self.max_retries(&request);
        let timeout = self.options().timeout;
        let mut attempt = 0;
        loop {
            let result =
                tokio::time::timeout(timeout, self.complete_once(&endpoint, &body, &headers))
                    .await
                    .unwrap_or_else(|_| Err(Failure::timeout(timeout)));
            let failure = match result {
                Ok(r) => return Ok(r),
                Err(f) => f,
            };
            if attempt >= max_retries || !failure.retryable {
                return Err(LlmError::new(
                    final_code(&failure.message, attempt, max_retries),
                    failure.message,
                ));
            }
            tokio::time::sleep(self.delay(&request, attempt, &failure)).await;
            attempt += 1;
        }
    }
}

/// What reading one streamed attempt came to.
enum StreamEnd {
    /// The answer is complete.
    Done,
    /// Failed before yielding anything: may be retried.
    Failed(Failure),
    /// Failed after yielding: final.
    Broken(LlmError),
}

impl ChatProvider for OpenAiProvider {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(self.inner.chat(request))
    }

    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async_stream::stream! {
            let endpoint = match inner.endpoint(&request.llm_id) {
                Ok(e) => e,
                Err(e) => {
                    yield Err(e);
                    return;
                }
            };
            let opts = inner.options().clone();
            let (body, headers) =
                wire::request_body(&endpoint, &request, true, opts.stream_usage);
            let max_retries = inner.max_retries(&request);
            let mut attempt = 0;
            loop {
                let deadline = Instant::now() + opts.timeout;
                let head_limit = opts.connect_timeout.min(opts.timeout);
                let send = inner.send(inner.post(&endpoint, &body, &headers));
                let opened = tokio::time::timeout(head_limit, send)
                    .await
                    .unwrap_or_else(|_| Err(Failure::timeout(head_limit)));
                let end = match opened {
                    Err(f) => StreamEnd::Failed(f),
                    Ok(resp) if !is_event_stream(&resp) => {
                        // A server that ignored `stream: true` answers with one completion.
                        match tokio::time::timeout_at(deadline, resp.bytes()).await {
                            Err(_) => StreamEnd::Failed(Failure::timeout(opts.timeout)),
                            Ok(Err(e)) => StreamEnd::Failed(Failure::connection(e)),
                            Ok(Ok(bytes)) => match serde_json::from_slice::<Chunk>(&bytes) {
                                Err(e) => StreamEnd::Failed(Failure::fatal(format!(
                                    "the model's answer is neither an event stream nor a chat \
                                     completion: {e}"
                                ))),
                                Ok(chunk) => match (&chunk.error, chunk.choices.is_empty()) {
                                    (Some(err), true) => {
                                        StreamEnd::Failed(Failure::fatal(error_body_message(err)))
                                    }
                                    _ => {
                                        for d in wire::deltas_of(wire::response_of(chunk)) {
                                            yield Ok(d);
                                        }
                                        StreamEnd::Done
                                    }
                                },
                            },
                        }
                    }
                    Ok(resp) => {
                        let mut events = by_lines(resp.bytes_stream()).eventsource();
                        let mut asm = Assembler::default();
                        let mut out = Vec::new();
                        let mut yielded = false;
                        loop {
                            let next = tokio::time::timeout_at(deadline, events.next()).await;
                            let next = match next {
                                Err(_) => Err(Failure::timeout(opts.timeout)),
                                Ok(None) if asm.finished => Ok(None),
                                Ok(None) => Err(Failure::transient(BROKEN_STREAM.into())),
                                Ok(Some(Err(e))) => Err(Failure::transient(match e {
                                    eventsource_stream::EventStreamError::Transport(e) => {
                                        format!("{BROKEN_STREAM}: {}", error_chain(e))
                                    }
                                    other => format!("{BROKEN_STREAM}: {other}"),
                                })),
                                Ok(Some(Ok(event))) if event.data.trim() == "[DONE]" => Ok(None),
                                Ok(Some(Ok(event))) => Ok(Some(event)),
                            };
                            let failure = match next {
                                Ok(Some(event)) => {
                                    // Keep-alives and other non-JSON lines are skipped.
                                    let Ok(chunk) = serde_json::from_str::<Chunk>(&event.data)
                                    else {
                                        continue;
                                    };
                                    let failed = chunk.choices.is_empty();
                                    if let (Some(err), true) = (&chunk.error, failed) {
                                        Failure::fatal(error_body_message(err))
                                    } else {
                                        asm.push(chunk, &mut out);
                                        for d in out.drain(..) {
                                            yielded = true;
                                            yield Ok(d);
                                        }
                                        continue;
                                    }
                                }
                                Ok(None) => {
                                    asm.finish(&mut out);
                                    for d in out.drain(..) {
                                        yield Ok(d);
                                    }
                                    break StreamEnd::Done;
                                }
                                Err(f) => f,
                            };
                            if !yielded {
                                break StreamEnd::Failed(failure);
                            }
                            // No retry once part of the answer is out; a cut connection reads
                            // the same whatever the transport said.
                            let message = if failure.message.starts_with(BROKEN_STREAM) {
                                BROKEN_STREAM.to_string()
                            } else {
                                failure.message
                            };
                            break StreamEnd::Broken(LlmError::classified(message));
                        }
                    }
                };
                match end {
                    StreamEnd::Done => return,
                    StreamEnd::Broken(e) => {
                        yield Err(e);
                        return;
                    }
                    StreamEnd::Failed(f) => {
                        if attempt >= max_retries || !f.retryable {
                            let code = final_code(&f.message, attempt, max_retries);
                            yield Err(LlmError::new(code, f.message));
                            return;
                        }
                        tokio::time::sleep(inner.delay(&request, attempt, &f)).await;
                        attempt += 1;
                    }
                }
            }
        })
    }

    fn context_length(&self, llm_id: &str) -> Result<u64, LlmError> {
        self.inner.endpoint(llm_id).map(|e| e.max_tokens)
    }

    fn is_vision(&self, llm_id: &str) -> bool {
        self.inner.endpoint(llm_id).is_ok_and(|e| e.vision)
    }
}

fn is_event_stream(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|ct| !ct.contains("json"))
}

/// The body cut at line ends before it reaches the SSE parser. eventsource-stream copies the
/// rest of its buffer after every line it parses, which is quadratic in the size of one network
/// read (a fast server, a slow reader: hundreds of events in one read); fed line by line its
/// buffer stays one line long. Cutting at `\n` never splits a UTF-8 sequence.
fn by_lines<E>(
    body: impl futures::Stream<Item = Result<Bytes, E>>,
) -> impl futures::Stream<Item = Result<Bytes, E>> {
    body.flat_map(|item| {
        let pieces: Vec<Result<Bytes, E>> = match item {
            Ok(bytes) => {
                let mut out = Vec::new();
                let mut start = 0;
                for (i, b) in bytes.iter().enumerate() {
                    if *b == b'\n' {
                        out.push(Ok(bytes.slice(start..i + 1)));
                        start = i + 1;
                    }
                }
                if start < bytes.len() {
                    out.push(Ok(bytes.slice(start..)));
                }
                out
            }
            Err(e) => vec![Err(e)],
        };
        futures::stream::iter(pieces)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_jittered_doubled_capped_and_honours_retry_after() {
        let mut config = LlmConfig::single("http://127.0.0.1:9", None);
        config.client.max_retry_delay = Duration::from_secs(5);
        let p = OpenAiProvider::new(crate::http::shared_client(), config);
        let request = ChatRequest {
            retry_delay: Some(1.0),
            ..ChatRequest::default()
        };
        let plain = Failure::transient("x".into());
        for attempt in 0..2 {
            let d = p.inner.delay(&request, attempt, &plain).as_secs_f64();
            let full = f64::from(1u32 << attempt);
            assert!((full / 2.0..=full).contains(&d), "{attempt}: {d}");
        }
        assert_eq!(p.inner.delay(&request, 10, &plain), Duration::from_secs(5));
        let asked = Failure {
            retry_after: Some(Duration::from_secs(3)),
            ..Failure::transient("429".into())
        };
        assert!(p.inner.delay(&request, 0, &asked) >= Duration::from_secs(3));
    }
}
