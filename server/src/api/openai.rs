//! The OpenAI-compatible mode of chat completions (`http-api.md` §7.6): the question from
//! `messages`, a bare `chat.completion` object or `chat.completion.chunk` frames (`data: ` with
//! a space), only `message` and `message_end` events used, a final `stop` chunk with usage, and
//! Go's `waiting_for_user` for a paused run. A failed or aborted run and a turn that could not
//! be saved answer `**ERROR**: <why>` (§7.6), as `completion_openai` answers any exception.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::turn_start::{begin, with_program, Mode};
use crate::auth::Tenant;
use crate::clock::now_ms;
use crate::envelope::{json_response, ApiError};
use crate::run::{Ended, Frame};
use crate::shared::AppRef;
use crate::sse::{self, Framing};
use crate::turn::TurnEnd;

/// Answers one OpenAI-mode request for `agent_id`.
pub(crate) async fn answer(
    app: AppRef,
    tenant: String,
    agent_id: String,
    body: Map<String, Value>,
) -> Response {
    let question = match question(&body) {
        Ok(q) => q,
        Err(e) => return e.into_response(),
    };
    let session_id = ["session_id", "id"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_str))
        .or_else(|| {
            body.get("metadata")
                .and_then(|m| m.get("id"))
                .and_then(Value::as_str)
        })
        .filter(|id| !id.is_empty())
        .map(String::from);
    let stream = crate::request::truthy(body.get("stream"));
    let prompt_tokens = app.runner.count_tokens(&question);
    let (launched, session_id) = match begin(
        &app,
        &tenant,
        &agent_id,
        session_id,
        question,
        &body,
        Mode::OpenAi,
    )
    .await
    {
        Ok(started) => started,
        Err(e) => return e.into_response(),
    };
    let framing = OpenAiFraming {
        id: session_id,
        model: agent_id,
        created: now_ms() / 1000,
        prompt_tokens,
        completion_tokens: 0,
        app: app.clone(),
    };
    if stream {
        return sse::response(launched, app.keep_alive, framing);
    }
    let program = launched.program;
    let mut frames = launched.frames;
    let Some(ended) = sse::finish(&mut frames).await else {
        return ApiError::exception("the run stopped unexpectedly").into_response();
    };
    with_program(framing.whole(&ended), program)
}

/// `GET /api/v1/agents_openai/{agent_id}/models`: the one model an agent's OpenAI-compatible
/// base URL serves, the agent itself, so chat UIs that list models before chatting connect.
pub(crate) async fn models(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
) -> Response {
    match app.store.agent_text(&tenant, &agent_id).await {
        Ok(Some((agent, _))) => json_response(
            StatusCode::OK,
            &json!({"object": "list", "data": [{"id": agent.id, "object": "model",
                "created": agent.create_time / 1000, "owned_by": agent.nickname}]}),
        ),
        Ok(None) => json_response(
            StatusCode::NOT_FOUND,
            &json!({"error": {"message": format!("The model `{agent_id}` does not exist or you do not have access to it."),
                "type": "invalid_request_error", "param": null, "code": "model_not_found"}}),
        ),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The question: the content of the last `user` message (text parts joined).
fn question(body: &Map<String, Value>) -> Result<String, ApiError> {
    let none = || ApiError::data("You must provide at least one message.");
    let messages = match body.get("messages") {
        Some(Value::Array(m)) if !m.is_empty() => m,
        _ => return Err(none()),
    };
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let Some(message) = last_user else {
        return Ok(String::new());
    };
    Ok(match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(other) => {
            return Err(ApiError::argument(format!(
                "A message's `content` must be text or a list of parts, not {}.",
                crate::request::type_name(other)
            )))
        }
        None => String::new(),
    })
}

struct OpenAiFraming {
    id: String,
    model: String,
    created: i64,
    prompt_tokens: usize,
    completion_tokens: usize,
    app: AppRef,
}

impl OpenAiFraming {
    fn chunk(&self, delta: Value, finish_reason: Value, usage: Value) -> String {
        let chunk = json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created,
            "model": self.model, "system_fingerprint": "", "usage": usage,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason,
                         "logprobs": null}],
        });
        format!("data: {chunk}\n\n")
    }

    fn usage(&self) -> Value {
        json!({"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
               "total_tokens": self.prompt_tokens + self.completion_tokens})
    }

    /// The non-streaming answer: a bare `chat.completion` object.
    fn whole(mut self, ended: &Ended) -> Response {
        let (content, finish) = match (&ended.end, &ended.unsaved) {
            (TurnEnd::Aborted(e) | TurnEnd::Failed(e), _) | (_, Some(e)) => {
                (format!("**ERROR**: {e}"), "stop")
            }
            (TurnEnd::Paused, None) => {
                let body = json!({"error": {"message": "Agent is waiting for user input. Continue the session with its inputs.",
                    "type": "invalid_request_error"}, "id": self.id});
                return json_response(StatusCode::CONFLICT, &body);
            }
            _ => (ended.summary.deltas.clone(), "stop"),
        };
        self.completion_tokens = self.app.runner.count_tokens(&content);
        let mut message = json!({"role": "assistant", "content": content});
        if ended.summary.has_reference() {
            message["reference"] = Value::Object(ended.summary.reference.clone());
        }
        let mut usage = self.usage();
        usage["completion_tokens_details"] = json!({"reasoning_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0});
        let body = json!({
            "id": self.id, "object": "chat.completion", "created": self.created,
            "model": self.model, "param": null, "usage": usage,
            "choices": [{"index": 0, "logprobs": null, "finish_reason": finish,
                         "message": message}],
        });
        json_response(StatusCode::OK, &body)
    }
}

impl Framing for OpenAiFraming {
    fn event(&mut self, frame: &Frame) -> String {
        let frame = &*frame.value;
        let event = frame
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let content = match event {
            "message" => frame
                .pointer("/data/content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            "message_end" => String::new(),
            _ => return String::new(),
        };
        self.completion_tokens += self.app.runner.count_tokens(&content);
        let mut delta = json!({"role": "assistant", "content": content,
            "function_call": null, "tool_calls": null});
        if let Some(reference) = frame.pointer("/data/reference").filter(|r| !r.is_null()) {
            delta["reference"] = reference.clone();
        }
        self.chunk(delta, Value::Null, Value::Null)
    }

    fn end(&mut self, ended: &Ended) -> String {
        let mut out = match (&ended.end, &ended.unsaved) {
            (TurnEnd::Aborted(e) | TurnEnd::Failed(e), _) | (_, Some(e)) => {
                let text = format!("**ERROR**: {e}");
                self.completion_tokens += self.app.runner.count_tokens(&text);
                let delta = json!({"role": "assistant", "content": text,
                    "function_call": null, "tool_calls": null});
                self.chunk(delta, json!("stop"), self.usage())
            }
            (TurnEnd::Paused, None) => {
                let delta = json!({"role": "assistant", "content": null, "waiting_for_user": true});
                self.chunk(delta, json!("waiting_for_user"), self.usage())
            }
            _ => {
                let delta = json!({"role": "assistant", "content": null});
                self.chunk(delta, json!("stop"), self.usage())
            }
        };
        out.push_str("data: [DONE]\n\n");
        out
    }
}
