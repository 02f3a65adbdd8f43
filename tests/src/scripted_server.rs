//! A scripted OpenAI-compatible chat server on 127.0.0.1 (`scripted-llm.md`), so tests and
//! benchmarks exercise the real HTTP client path. It answers `POST /v1/chat/completions` from
//! the same [`Script`] the in-process provider uses — matching and entry bookkeeping are
//! `Script::answer`'s, not repeated here — and adds what only HTTP has: statuses with
//! OpenAI-style error bodies, SSE streaming with tool-call fragments, cut connections.
//!
//! The server runs on its own thread with its own single-threaded tokio runtime, so it works
//! from any test (async or not) and, in benchmarks, does not share the client's threads.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use canvasc_engine::llm::script::{Answer, Script};
use canvasc_engine::llm::{ChatMessage, ChatRequest, TokenUsage, ToolCall};
use futures::StreamExt;
use serde_json::{json, Map, Value as Json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The JSON body as sent (`Json::Null` when it was not JSON).
    pub body: Json,
    pub authorization: Option<String>,
    /// The W3C `traceparent` the client sent (telemetry tests).
    pub traceparent: Option<String>,
    /// The script entry that answered (`None`: the default answer).
    pub entry: Option<usize>,
    /// The HTTP status answered.
    pub status: u16,
}

struct Shared {
    /// The script and the number of calls so far (tool call ids are `call_<n>_<i>`).
    script: Mutex<(Script, usize)>,
    requests: Mutex<Vec<Recorded>>,
    /// Whether requests are recorded (benchmarks turn it off).
    recording: AtomicBool,
    /// Streams the client dropped before their end.
    disconnects: AtomicUsize,
}

/// A running server; dropping it stops the server and closes its connections.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl ScriptedServer {
    /// Start on a free port of 127.0.0.1. Panics when no port can be bound (test helper).
    pub fn start(script: Script) -> ScriptedServer {
        Self::try_start(script).expect("bind 127.0.0.1 for the scripted LLM server")
    }

    /// Start from a script in JSON (`scripted-llm.md`).
    pub fn from_json(script: &Json) -> Result<ScriptedServer, String> {
        Ok(Self::start(Script::parse(script)?))
    }

    pub fn try_start(script: Script) -> std::io::Result<ScriptedServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script: Mutex::new((script, 0)),
            requests: Mutex::new(Vec::new()),
            recording: AtomicBool::new(true),
            disconnects: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(Arc::clone(&shared));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name(format!("scripted-llm-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(ScriptedServer {
            addr,
            shared,
            stop: Some(stop),
        })
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.requests).clone()
    }

    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// Forget the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Turn recording of requests on or off (on by default; long benchmarks turn it off).
    pub fn set_recording(&self, on: bool) {
        self.shared.recording.store(on, Ordering::SeqCst);
    }

    /// How many streamed answers the client dropped before their end.
    pub fn disconnects(&self) -> usize {
        self.shared.disconnects.load(Ordering::SeqCst)
    }

    /// Wait until at least `n` streams were dropped by the client; false on timeout.
    pub async fn wait_for_disconnects(&self, n: usize, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while self.disconnects() < n {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The request as the scripted provider sees it.
fn chat_request(body: &Json) -> ChatRequest {
    let text = |v: Option<&Json>| match v {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(Json::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Json::as_str)))
                .collect(),
        ),
        Some(other) => Some(other.to_string()),
    };
    let messages = body
        .get("messages")
        .and_then(Json::as_array)
        .map(|list| {
            list.iter()
                .map(|m| ChatMessage {
                    role: m
                        .get("role")
                        .and_then(Json::as_str)
                        .unwrap_or("user")
                        .to_string(),
                    content: text(m.get("content")),
                    tool_calls: m
                        .get("tool_calls")
                        .and_then(Json::as_array)
                        .map(|calls| {
                            calls
                                .iter()
                                .map(|c| ToolCall {
                                    id: str_at(c, "/id"),
                                    name: str_at(c, "/function/name"),
                                    arguments: str_at(c, "/function/arguments"),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    tool_call_id: m
                        .get("tool_call_id")
                        .and_then(Json::as_str)
                        .map(str::to_string),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut gen_conf = Map::new();
    if let Some(o) = body.as_object() {
        for (k, v) in o {
            if !matches!(k.as_str(), "model" | "messages" | "tools") {
                gen_conf.insert(k.clone(), v.clone());
            }
        }
    }
    ChatRequest {
        llm_id: str_at(body, "/model"),
        messages,
        tools: body
            .get("tools")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default(),
        gen_conf,
        ..ChatRequest::default()
    }
}

fn str_at(v: &Json, pointer: &str) -> String {
    v.pointer(pointer)
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_string()
}

async fn completions(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Response {
    let body: Json = serde_json::from_slice(&bytes).unwrap_or(Json::Null);
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let traceparent = headers
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let record = |entry: Option<usize>, status: u16| {
        if !shared.recording.load(Ordering::Relaxed) {
            return;
        }
        lock(&shared.requests).push(Recorded {
            body: body.clone(),
            authorization: authorization.clone(),
            traceparent: traceparent.clone(),
            entry,
            status,
        });
    };
    if !body.is_object() {
        record(None, 400);
        return error_response(
            400,
            "invalid_request_error",
            "the body is not a JSON object",
        );
    }
    let request = chat_request(&body);
    let (answer, call) = {
        let mut guard = lock(&shared.script);
        let (script, calls) = &mut *guard;
        let n = *calls;
        *calls += 1;
        (script.answer(&request, n), n)
    };
    let broken = answer.error.as_deref() == Some("broken-stream");
    if let Some(status) = answer.status {
        record(answer.entry, status);
        let (kind, default) = if status == 429 {
            ("rate_limit_exceeded", "Rate limit reached for requests")
        } else {
            (
                "server_error",
                "The scripted server had an error while processing your request.",
            )
        };
        let message = answer
            .error
            .as_deref()
            .filter(|_| !broken)
            .unwrap_or(default);
        return error_response(status, kind, message);
    }
    if let Some(e) = answer.error.as_deref().filter(|_| !broken) {
        record(answer.entry, 400);
        return error_response(400, "invalid_request_error", e);
    }
    record(answer.entry, 200);
    let model = str_at(&body, "/model");
    let streaming = body.get("stream").and_then(Json::as_bool) == Some(true);
    if !streaming {
        if answer.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(answer.delay_ms)).await;
        }
        let text = completion(&answer, &model, call).to_string();
        if broken {
            // Half the body, then the connection closes.
            let half = text[..text.len() / 2].to_string();
            let parts: Vec<Result<String, std::io::Error>> =
                vec![Ok(half), Err(std::io::Error::other("broken-stream"))];
            return Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CONTENT_LENGTH, text.len())
                .body(Body::from_stream(futures::stream::iter(parts)))
                .unwrap_or_default();
        }
        return json_response(200, text);
    }
    let include_usage = body.pointer("/stream_options/include_usage") == Some(&Json::Bool(true));
    let mut events = sse_events(&answer, &model, call, include_usage);
    if answer.delay_ms == 0 && !broken {
        // Nothing to pace: one body write, so the client's parsing, not the server's
        // per-event writes, is what a benchmark sees.
        events = vec![events.concat()];
    }
    let delay = Duration::from_millis(answer.delay_ms);
    let n_events = events.len();
    let stream =
        futures::stream::iter(events.into_iter().enumerate()).then(move |(i, event)| async move {
            // `delay_ms` before each delta (not before the closing `[DONE]`).
            if !delay.is_zero() && i + 1 < n_events {
                tokio::time::sleep(delay).await;
            }
            if broken && i == 1 {
                // Let the first delta reach the client, then cut the connection (a body
                // error makes hyper close it without the final chunk).
                tokio::time::sleep(Duration::from_millis(20)).await;
                return Err(std::io::Error::other("broken-stream"));
            }
            Ok::<_, std::io::Error>(event)
        });
    // Disarm once the last event is out; a drop before that is the client going away.
    let done_guard = DisconnectGuard {
        shared,
        armed: true,
    };
    let stream = WithGuard {
        inner: Box::pin(stream),
        guard: done_guard,
        broken,
    };
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

fn json_response(status: u16, text: String) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(text))
        .unwrap_or_default()
}

fn error_response(status: u16, kind: &str, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": null}});
    json_response(status, body.to_string())
}

fn usage_json(u: &TokenUsage) -> Json {
    json!({"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
        "total_tokens": u.total_tokens})
}

fn finish_reason(answer: &Answer) -> &'static str {
    if answer.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

fn completion(answer: &Answer, model: &str, call: usize) -> Json {
    let mut message = json!({"role": "assistant", "content": answer.content});
    if let Some(r) = &answer.reasoning {
        message["reasoning_content"] = json!(r);
    }
    if !answer.tool_calls.is_empty() {
        message["tool_calls"] = answer
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
    }
    let mut out = json!({
        "id": format!("chatcmpl-scripted-{call}"), "object": "chat.completion", "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(answer)}],
    });
    if let Some(u) = &answer.usage {
        out["usage"] = usage_json(u);
    }
    out
}

/// Cuts a tool call's arguments into three fragments on character boundaries.
fn fragments(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let size = chars.len().div_ceil(3).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// The SSE events of a streamed answer: the reasoning, tool-call fragments, the content
/// chunks (the reference oracle's order), the finish reason, usage when asked for, `[DONE]`.
fn sse_events(answer: &Answer, model: &str, call: usize, include_usage: bool) -> Vec<String> {
    let id = format!("chatcmpl-scripted-{call}");
    let chunk = |delta: Json, finish: Option<&str>| {
        let c = json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let mut deltas: Vec<Json> = Vec::new();
    if let Some(r) = &answer.reasoning {
        deltas.push(json!({"content": null, "reasoning_content": r}));
    }
    for (i, c) in answer.tool_calls.iter().enumerate() {
        deltas.push(
            json!({"tool_calls": [{"index": i, "id": c.id, "type": "function",
            "function": {"name": c.name, "arguments": ""}}]}),
        );
        for f in fragments(&c.arguments) {
            deltas.push(json!({"tool_calls": [{"index": i, "function": {"arguments": f}}]}));
        }
    }
    for c in &answer.chunks {
        deltas.push(json!({"content": c}));
    }
    if let Some(first) = deltas.first_mut() {
        first["role"] = json!("assistant");
    }
    let mut events: Vec<String> = deltas.into_iter().map(|d| chunk(d, None)).collect();
    events.push(chunk(json!({}), Some(finish_reason(answer))));
    if let (Some(u), true) = (&answer.usage, include_usage) {
        let c = json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [], "usage": usage_json(u)});
        events.push(format!("data: {c}\n\n"));
    }
    events.push("data: [DONE]\n\n".to_string());
    events
}

/// Counts a streamed answer the client dropped before its end.
struct DisconnectGuard {
    shared: Arc<Shared>,
    armed: bool,
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        if self.armed {
            self.shared.disconnects.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The event stream with its disconnect guard, disarmed when the stream ends or breaks on
/// purpose.
struct WithGuard<S> {
    inner: std::pin::Pin<Box<S>>,
    guard: DisconnectGuard,
    broken: bool,
}

impl<S> futures::Stream for WithGuard<S>
where
    S: futures::Stream<Item = Result<String, std::io::Error>>,
{
    type Item = Result<String, std::io::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        match &polled {
            std::task::Poll::Ready(None) => self.guard.armed = false,
            std::task::Poll::Ready(Some(Err(_))) if self.broken => self.guard.armed = false,
            _ => {}
        }
        polled
    }
}
