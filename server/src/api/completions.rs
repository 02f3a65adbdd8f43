//! `POST /api/v1/agents/chat/completions` (`http-api.md` §7): validation and routing (§7.2),
//! the session a run continues or creates, the turn's request to the engine, and the native
//! answers, SSE (§7.3) and JSON (§7.4). OpenAI-compatible framing is `openai.rs`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::openai;
use super::turn_start::{begin, with_program, Mode};
use crate::auth::Tenant;
use crate::background::{RunIds, Webhook};
use crate::envelope::{json_response, ApiError};
use crate::request::{string, truthy, Body};
use crate::run::{closing_frames, Ended, Frame};
use crate::shared::AppRef;
use crate::sse::{self, Framing};
use crate::turn::TurnEnd;

/// `POST /api/v1/agents/chat/completions`.
pub(crate) async fn completions(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    body: Body,
) -> Response {
    let body = body.0;
    let agent_id = match string(&body, "agent_id") {
        Ok(Some(id)) if !id.is_empty() => id,
        Ok(_) => return ApiError::argument("`agent_id` is required.").into_response(),
        Err(e) => return e.into_response(),
    };
    either_mode(app, tenant, agent_id, body).await
}

/// `POST /api/v1/agents/{agent_id}/completions`: the deprecated path; the agent is the path's
/// (a body's `agent_id` is ignored, as RAGFlow ignores it).
pub(crate) async fn by_path(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Response {
    either_mode(app, tenant, agent_id, body.0).await
}

async fn either_mode(
    app: AppRef,
    tenant: String,
    agent_id: String,
    body: Map<String, Value>,
) -> Response {
    let openai = truthy(body.get("openai-compatible"));
    if truthy(body.get("background")) {
        if openai {
            return ApiError::argument(
                "A background run answers in RAGFlow's native mode: drop `openai-compatible`.",
            )
            .into_response();
        }
        return background(app, tenant, agent_id, body).await;
    }
    if body.get("webhook_url").is_some_and(|u| !u.is_null()) {
        return ApiError::argument(
            "`webhook_url` is for background runs: add `\"background\": true`.",
        )
        .into_response();
    }
    if openai {
        openai::answer(app, tenant, agent_id, body).await
    } else {
        native(app, tenant, agent_id, body).await
    }
}

/// `"background": true`: HTTP 202 with the run's `message_id` and session at once; the run
/// goes on with nobody reading it (`background.rs`).
async fn background(
    app: AppRef,
    tenant: String,
    agent_id: String,
    body: Map<String, Value>,
) -> Response {
    let webhook = match Webhook::from_request(&body) {
        Ok(webhook) => webhook,
        Err(e) => return e.into_response(),
    };
    if let Some(webhook) = &webhook {
        if let Err(why) = app.runner.check_url(webhook.url()).await {
            return ApiError::argument(format!("`webhook_url` is not allowed: {why}"))
                .into_response();
        }
    }
    let (query, session_id) = match query_and_session(&body) {
        Ok(both) => both,
        Err(e) => return e.into_response(),
    };
    let mode = Mode::Native {
        return_trace: false,
    };
    let (launched, session_id) =
        match begin(&app, &tenant, &agent_id, session_id, query, &body, mode).await {
            Ok(launched) => launched,
            Err(e) => return e.into_response(),
        };
    let message_id = launched.message_id.clone();
    let program = launched.program;
    let ids = RunIds {
        agent_id,
        session_id: session_id.clone(),
        message_id: message_id.clone(),
    };
    crate::background::detach(app, launched, ids, webhook, |ended, session_id| {
        native_json(ended, session_id, false)
            .map(|answer| answer["data"].clone())
            .unwrap_or_else(|e| json!({"error": e.message()}))
    });
    let answer = json!({"code": 0, "message": "success", "data": {
        "message_id": message_id, "session_id": session_id, "status": "running"}});
    with_program(json_response(StatusCode::ACCEPTED, &answer), program)
}

/// The question (`query`, else `question`) and the session a request continues.
pub(crate) fn query_and_session(
    body: &Map<String, Value>,
) -> Result<(String, Option<String>), ApiError> {
    let query = match (string(body, "query")?, string(body, "question")?) {
        (Some(q), _) | (None, Some(q)) => q,
        (None, None) => String::new(),
    };
    let session_id = string(body, "session_id")?.filter(|id| !id.is_empty());
    Ok((query, session_id))
}

/// `POST /api/v1/agents_openai/{agent_id}/chat/completions`: the deprecated OpenAI path.
pub(crate) async fn openai_alias(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Response {
    openai::answer(app, tenant, agent_id, body.0).await
}

async fn native(
    app: AppRef,
    tenant: String,
    agent_id: String,
    body: Map<String, Value>,
) -> Response {
    let (query, session_id) = match query_and_session(&body) {
        Ok(both) => both,
        Err(e) => return e.into_response(),
    };
    let stream = truthy(body.get("stream"));
    let return_trace = truthy(body.get("return_trace"));
    let launched = match begin(
        &app,
        &tenant,
        &agent_id,
        session_id,
        query,
        &body,
        Mode::Native { return_trace },
    )
    .await
    {
        Ok(launched) => launched,
        Err(e) => return e.into_response(),
    };
    let (launched, session_id) = launched;
    if stream {
        return sse::response(
            launched,
            app.keep_alive,
            NativeFraming {
                session_id,
                sent: 0,
            },
        );
    }
    let program = launched.program;
    let mut frames = launched.frames;
    let response = match sse::finish(&mut frames).await {
        Some(ended) => match native_json(&ended, &session_id, return_trace) {
            Ok(answer) => json_response(axum::http::StatusCode::OK, &answer),
            Err(e) => e.into_response(),
        },
        None => {
            let answer = json!({"code": 0, "data": "**ERROR**: the run stopped unexpectedly"});
            json_response(axum::http::StatusCode::OK, &answer)
        }
    };
    with_program(response, program)
}

/// §7.4's answer for a finished turn. A turn that could not be saved is RAGFlow's answer to
/// an exception the save raised (`server_error_response`), not the run's answer.
fn native_json(ended: &Ended, session_id: &str, return_trace: bool) -> Result<Value, ApiError> {
    if let Some(unsaved) = &ended.unsaved {
        return Err(ApiError::exception(unsaved.clone()));
    }
    Ok(match &ended.end {
        TurnEnd::Aborted(e) => json!({"code": 0, "data": format!("**ERROR**: {e}")}),
        _ if ended.summary.events == 0 => json!({"code": 0, "data": {"session_id": session_id}}),
        _ => json!({"code": 0, "data": ended.summary.final_event(session_id, return_trace)}),
    })
}

/// RAGFlow's native SSE: `data:` with no space, then the closing frames the run's kept stream
/// ends with too ([`closing_frames`]).
struct NativeFraming {
    session_id: String,
    sent: usize,
}

impl Framing for NativeFraming {
    fn event(&mut self, frame: &Frame) -> String {
        self.sent += 1;
        format!("data:{}\n\n", frame.text)
    }

    fn end(&mut self, ended: &Ended) -> String {
        closing_frames(ended, &self.session_id, self.sent)
            .iter()
            .map(|data| format!("data:{data}\n\n"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::summary::Summary;

    fn ended(end: TurnEnd) -> Ended {
        Ended {
            end,
            summary: Summary::default(),
            unsaved: None,
        }
    }

    #[test]
    fn an_aborted_run_ends_with_ragflows_error_frame_and_the_terminator() {
        let mut framing = NativeFraming {
            session_id: "s1".into(),
            sent: 3,
        };
        assert_eq!(
            framing.end(&ended(TurnEnd::Aborted("boom".into()))),
            "data:{\"code\":500,\"message\":\"boom\",\"data\":false,\"session_id\":\"s1\"}\n\ndata:[DONE]\n\n"
        );
        assert_eq!(
            native_json(&ended(TurnEnd::Aborted("boom".into())), "s1", false).ok(),
            Some(json!({"code": 0, "data": "**ERROR**: boom"}))
        );
    }

    #[test]
    fn a_run_without_events_sends_the_session_alone() {
        let mut framing = NativeFraming {
            session_id: "s1".into(),
            sent: 0,
        };
        assert_eq!(
            framing.end(&ended(TurnEnd::Finished)),
            "data:{\"session_id\":\"s1\",\"data\":{}}\n\ndata:[DONE]\n\n"
        );
        assert_eq!(
            native_json(&ended(TurnEnd::Finished), "s1", false).ok(),
            Some(json!({"code": 0, "data": {"session_id": "s1"}}))
        );
    }
}
