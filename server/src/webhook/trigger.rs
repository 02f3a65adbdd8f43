//! One webhook request, from the agent lookup to the answer, in RAGFlow's order: the agent,
//! its Webhook-mode Begin, the method, the security checks, the canvas, the request's parts,
//! the schema, then the run, answered at once (`execution_mode` `Immediately`, the default)
//! or with its final message.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{json, Map, Value};

use super::parts::{self, Parts};
use super::security::{self, Seen};
use super::trace::{now_s, Recorder};
use crate::auth::Tenant;
use crate::client_addr::ClientAddr;
use crate::clock::{new_id, now_ms};
use crate::envelope::{json_response, ApiError};
use crate::shared::AppRef;
use crate::store::AgentSummary;
use crate::turn::{RunningTurn, SessionState, TurnCanvas, TurnEnd, TurnEvent, TurnRequest};

/// `ANY /agents/{agent_id}/webhook`.
pub(crate) async fn production(
    State(app): State<AppRef>,
    Path(agent_id): Path<String>,
    request: Request,
) -> Response {
    trigger(app, agent_id, request, false).await
}

/// `ANY /agents/{agent_id}/webhook/test`: the owner's key, and the run is recorded.
pub(crate) async fn test(
    State(app): State<AppRef>,
    Path(agent_id): Path<String>,
    request: Request,
) -> Response {
    let (mut head, body) = request.into_parts();
    let tenant = match Tenant::from_request_parts(&mut head, &app).await {
        Ok(Tenant(tenant)) => tenant,
        Err(e) => return e.into_response(),
    };
    match app.store.owns_agent(&tenant, &agent_id).await {
        Ok(true) => {}
        Ok(false) => {
            return ApiError::operating(
                "Only the owner of the agent is authorized for this operation.",
            )
            .into_response()
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    trigger(app, agent_id, Request::from_parts(head, body), true).await
}

/// RAGFlow's rejection: HTTP 400 with `{"code": 400, "message"}`.
fn rejected(message: impl Into<String>) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        &json!({"code": 400, "message": message.into()}),
    )
}

/// An exception RAGFlow raises outside its own handling: `server_error_response`'s answer.
fn raised(class: &str, message: &str) -> Response {
    ApiError::exception(format!("{class}({})", canvasc_value::py::repr_str(message)))
        .into_response()
}

async fn trigger(app: AppRef, agent_id: String, request: Request, is_test: bool) -> Response {
    let start_ts = now_s();
    let (mut head, body) = request.into_parts();
    let (agent, text) = match app.store.any_agent_text(&agent_id).await {
        Ok(Some(found)) => found,
        Ok(None) => return rejected("Canvas not found."),
        Err(e) => return ApiError::from(e).into_response(),
    };
    if agent.canvas_category == "dataflow_canvas" {
        return rejected("Dataflow can not be triggered by webhook.");
    }
    // The DSL's facts and its canvas are prepared once per DSL content.
    let prepared = match app.starting_canvases.webhook_canvas(&agent_id, &text).await {
        Ok(prepared) => prepared,
        Err(e) => return e.into_response(),
    };
    if !prepared.facts.is_object {
        return rejected("Invalid DSL format.");
    }
    let config = match &prepared.facts.config {
        Ok(Some(config)) => config,
        Ok(None) => return rejected("Webhook not configured for this agent."),
        Err(repr) => return ApiError::exception(repr.clone()).into_response(),
    };
    let method = head.method.as_str().to_uppercase();
    if !method_allowed(config.get("methods"), &method) {
        return rejected(format!(
            "HTTP method '{method}' not allowed for this webhook."
        ));
    }
    let ClientAddr(client) = match ClientAddr::from_request_parts(&mut head, &app).await {
        Ok(addr) => addr,
        Err(never) => match never {},
    };
    let content_length = head
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let seen = Seen {
        canvas_id: &agent_id,
        headers: &head.headers,
        content_length,
        client,
        now_s: start_ts,
    };
    let security_config = config.get("security");
    if let Err(message) = security::check(security_config, &seen, &app.coord).await {
        return rejected(message);
    }
    let canvas = match prepared.canvas {
        Ok(canvas) => canvas,
        Err(message) => return rejected(message),
    };
    // RAGFlow checks only the declared length against `max_body_size` (a chunked body passes
    // it); every body is still read within RAGFlow's 10 MB cap.
    let raw = match read_body(body, security::MAX_BODY_LIMIT).await {
        Ok(raw) => raw,
        Err(response) => return response,
    };
    let expected_type = config.get("content_types").and_then(Value::as_str);
    let request_parts =
        match request_parts(&head.headers, head.uri.query(), raw, expected_type, client).await {
            Ok(parts) => parts,
            Err(response) => return response,
        };
    let payload = match super::payload(&request_parts, config.get("schema")) {
        Ok(payload) => payload,
        Err(message) => return rejected(message),
    };
    let run = Run {
        app: app.clone(),
        agent,
        canvas: TurnCanvas {
            id: canvas.id.clone(),
            dsl: Arc::clone(&canvas.dsl),
        },
        // A DSL without run state runs from the prepared canvas; one with state (a draft the
        // editor saved after a run) is read whole, as RAGFlow builds the canvas from it.
        state: match prepared.facts.stateless {
            true => SessionState::Canvas,
            false => match parsed_off_the_workers(text).await {
                Ok(stored) => SessionState::Dsl(stored),
                Err(e) => return e.into_response(),
            },
        },
        payload,
        recorder: is_test.then(|| {
            let token_header = config
                .get("security")
                .and_then(|s| s.pointer("/token/token_header"))
                .and_then(Value::as_str);
            Recorder::new(app.clone(), &agent_id, start_ts, token_header)
        }),
    };
    match config.get("execution_mode").and_then(Value::as_str) {
        None | Some("Immediately") => immediately(run, config.get("response")).await,
        Some(_) => until_answered(run).await,
    }
}

/// The stored DSL parsed on the blocking pool: parsing a large canvas is CPU work on client
/// data, which the async workers must not wait on.
async fn parsed_off_the_workers(text: String) -> Result<Value, ApiError> {
    tokio::task::spawn_blocking(move || crate::store::parsed(&text))
        .await
        .map_err(|e| ApiError::exception(format!("reading the agent's DSL failed: {e}")))
}

/// `request_method not in allowed_methods` (an empty list allows every method).
fn method_allowed(methods: Option<&Value>, method: &str) -> bool {
    match methods {
        None | Some(Value::Null) => true,
        Some(Value::Array(list)) => list.is_empty() || list.iter().any(|m| m == method),
        Some(Value::String(s)) => s.is_empty() || s.contains(method),
        Some(other) => !canvasc_value::py::truthy(other),
    }
}

/// How long a webhook's body may take to arrive.
const BODY_TIME: std::time::Duration = std::time::Duration::from_secs(30);

/// The body, up to the webhook's limit: a chunked body declares no length, so the limit is
/// also kept while reading.
async fn read_body(body: axum::body::Body, limit: i64) -> Result<bytes::Bytes, Response> {
    let limit = usize::try_from(limit).unwrap_or(0);
    let mut stream = body.into_data_stream();
    let mut raw = bytes::BytesMut::new();
    // A body trickled in holds its connection and its bytes: it must arrive in time.
    let deadline = tokio::time::Instant::now() + BODY_TIME;
    loop {
        let next = tokio::time::timeout_at(deadline, stream.next()).await;
        let Ok(next) = next else {
            return Err(rejected(format!(
                "The request body did not arrive within {} s.",
                BODY_TIME.as_secs()
            )));
        };
        let Some(chunk) = next else {
            break;
        };
        let chunk =
            chunk.map_err(|e| rejected(format!("The request body could not be read: {e}")))?;
        raw.extend_from_slice(&chunk);
        if raw.len() > limit {
            return Err(rejected(format!(
                "Request body too large: {} > {limit}",
                raw.len()
            )));
        }
    }
    Ok(raw.freeze())
}

async fn request_parts(
    headers: &HeaderMap,
    query: Option<&str>,
    raw: bytes::Bytes,
    expected_type: Option<&str>,
    client: std::net::IpAddr,
) -> Result<Parts, Response> {
    let content_type_header = headers.get(header::CONTENT_TYPE).map(|v| {
        v.as_bytes()
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
    });
    let ctype = parts::content_type(content_type_header.as_deref());
    if let Some(message) = parts::content_type_mismatch(expected_type, &ctype) {
        return Err(raised("ValueError", &message));
    }
    let body = if ctype == "multipart/form-data" {
        match parts::multipart(content_type_header.as_deref().unwrap_or(""), raw).await {
            // RAGFlow's "Too many uploaded files" is swallowed with every other error here.
            Some((_, files)) if files.len() > parts::MAX_FILES => Value::Object(Map::new()),
            Some((_, files)) if !files.is_empty() => {
                return Err(rejected(format!(
                    "File uploads to webhooks are not supported by this server yet (field `{}`); send the file's content as a form field or JSON.",
                    files[0].field
                )))
            }
            Some((fields, _)) => Value::Object(fields),
            None => Value::Object(Map::new()),
        }
    } else {
        parts::body(&ctype, &raw)
    };
    Ok(Parts {
        query: parts::query(query),
        headers: parts::headers(
            client.to_string().as_bytes(),
            headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_bytes())),
        ),
        body,
        content_type: ctype,
    })
}

/// A webhook's run about to start.
struct Run {
    app: AppRef,
    agent: AgentSummary,
    canvas: TurnCanvas,
    /// The run state the run starts from: the agent's DSL as stored (RAGFlow builds the
    /// canvas from it and does not reset it).
    state: SessionState,
    payload: Map<String, Value>,
    recorder: Option<Recorder>,
}

/// Cancels the run when the request that waits for it goes away.
struct CancelOnDrop(Option<crate::turn::CancelHandle>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel();
        }
    }
}

/// How a run went, as the webhook answers it.
struct Outcome {
    /// The messages' text (`<think>` markers for thinking), joined.
    content: String,
    /// The last `message_end`'s `status`, as an HTTP status, if any.
    status: Option<i64>,
    /// The exception that ended the run (RAGFlow's `str(e)` and class).
    error: Option<(String, String)>,
}

impl Run {
    async fn start(&self) -> Result<RunningTurn, ApiError> {
        let tenant = &self.agent.user_id;
        let ticket = self
            .app
            .quotas
            .admit(&self.app.store, &self.app.coord, tenant)
            .await?;
        let default_llm = crate::api::turn_start::default_chat_model(&self.app, tenant).await?;
        let request = TurnRequest {
            tenant_id: tenant.clone(),
            agent_id: self.agent.id.clone(),
            // RAGFlow's task id for a webhook run is the agent's id.
            session_id: self.agent.id.clone(),
            canvas: self.canvas.clone(),
            state: self.state.clone(),
            released: false,
            fresh: false,
            query: String::new(),
            inputs: None,
            files: Vec::new(),
            user_id: tenant.clone(),
            custom_header: Map::new(),
            chat_template_kwargs: None,
            checkpoints: None,
            resume: None,
            default_llm,
            webhook_payload: Some(self.payload.clone()),
        };
        let mut running = self
            .app
            .runner
            .start(request)
            .map_err(|e| ApiError::bare(400, e))?;
        if let Some(ticket) = ticket {
            running.events = crate::quota::metered(running.events, ticket);
        }
        Ok(running)
    }

    /// Runs to the end, recording each event of a test run. `answering`: the run's messages
    /// are the answer, so each `message_end`'s status is read as it comes (RAGFlow's `int()`:
    /// one that is not a number ends the run there, an error).
    async fn drive(&mut self, running: RunningTurn, answering: bool) -> Outcome {
        let cancel = running.cancel.clone();
        let mut guard = CancelOnDrop(Some(running.cancel.clone()));
        let mut events = running.events;
        let message_id = new_id();
        let created_at = now_ms() / 1000;
        let mut outcome = Outcome {
            content: String::new(),
            status: None,
            error: None,
        };
        while let Some(next) = events.next().await {
            match next {
                // After the status error nothing more is the answer's or the trace's.
                TurnEvent::Event { .. } if outcome.error.is_some() => {}
                TurnEvent::Event { event, data } => {
                    if event == "message" {
                        let content = if data.get("start_to_think").is_some_and(truthy) {
                            "<think>".to_string()
                        } else if data.get("end_to_think").is_some_and(truthy) {
                            "</think>".to_string()
                        } else {
                            data.get("content").map(text).unwrap_or_default()
                        };
                        outcome.content.push_str(&content);
                    }
                    if let (true, "message_end", Some(status)) =
                        (answering, event.as_str(), data.get("status"))
                    {
                        match canvasc_value::py::to_int(status) {
                            Ok(code) => outcome.status = Some(code),
                            Err(e) => {
                                outcome.error = Some((e, "ValueError".to_string()));
                                cancel();
                                continue;
                            }
                        }
                    }
                    if let Some(recorder) = &mut self.recorder {
                        let frame = json!({"event": event, "message_id": message_id,
                            "created_at": created_at, "task_id": self.agent.id, "data": data});
                        recorder.record(&frame).await;
                    }
                }
                TurnEvent::Ended { end, .. } => {
                    if let (TurnEnd::Aborted(e), None) = (end, &outcome.error) {
                        outcome.error = Some((e, "Exception".to_string()));
                    }
                }
            }
        }
        // The run ended: nothing left to cancel.
        guard.0 = None;
        if let Some(recorder) = &mut self.recorder {
            let error = outcome
                .error
                .as_ref()
                .map(|(m, c)| (m.as_str(), c.as_str()));
            recorder.finish(error).await;
        }
        outcome
    }
}

fn truthy(v: &Value) -> bool {
    canvasc_value::py::truthy(v)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => canvasc_value::py::str_of(other),
    }
}

/// `execution_mode: Immediately`: the configured answer now, the run in the background.
async fn immediately(mut run: Run, response: Option<&Value>) -> Response {
    let empty = Map::new();
    let response = response.and_then(Value::as_object).unwrap_or(&empty);
    let status = response.get("status").cloned().unwrap_or(json!(200));
    let code = match canvasc_value::py::to_int(&status) {
        Ok(code) => code,
        Err(_) => {
            return rejected(format!(
                "Invalid response status code: {}",
                canvasc_value::py::str_of(&status)
            ))
        }
    };
    if !(200..=399).contains(&code) {
        return rejected(format!(
            "Invalid response status code: {}, must be between 200 and 399",
            canvasc_value::py::str_of(&status)
        ));
    }
    let template = response.get("body_template").map(text).unwrap_or_default();
    let (body, content_type) = if template.is_empty() {
        ("null".to_string(), "application/json")
    } else {
        match serde_json::from_str::<Value>(&template) {
            Ok(parsed) => (canvasc_value::py::json_dumps(&parsed), "application/json"),
            Err(_) => (template, "text/plain"),
        }
    };
    let running = match run.start().await {
        Ok(running) => running,
        Err(e) => return e.into_response(),
    };
    tokio::spawn(async move {
        // RAGFlow means to store the canvas the run leaves as the agent's DSL, but its
        // `update_by_id(cvs.user_id, …)` names the owner, not the agent, so nothing is
        // stored: every request starts from the stored DSL, here too.
        let outcome = run.drive(running, false).await;
        if let Some((e, _)) = outcome.error {
            tracing::warn!(agent = %run.agent.id, "a webhook's background run failed: {e}");
        }
    });
    let status = StatusCode::from_u16(code as u16).unwrap_or(StatusCode::OK);
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// Any other `execution_mode`: the run's messages once it ends, with the HTTP status its last
/// Message asks for.
async fn until_answered(mut run: Run) -> Response {
    let running = match run.start().await {
        Ok(running) => running,
        Err(e) => return e.into_response(),
    };
    let outcome = run.drive(running, true).await;
    let result = match &outcome.error {
        Some((message, _)) => json!({"code": 400, "message": message, "success": false}),
        None => json!({"message": outcome.content, "success": true,
            "code": outcome.status.unwrap_or(200)}),
    };
    let code = result["code"].as_i64().unwrap_or(200);
    let status = u16::try_from(code)
        .ok()
        .and_then(|c| StatusCode::from_u16(c).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        canvasc_value::py::json_dumps_ascii(&result),
    )
        .into_response()
}
