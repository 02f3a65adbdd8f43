//! Embedded agents (`http-api.md` #37, RAGFlow's `bot_api.py`): a page that embeds an agent
//! talks to it with a beta token. `POST /agentbots/{id}/completions` runs it (streamed unless
//! `"stream": false`), `GET /agentbots/{id}/inputs` tells the page what to ask (Begin's form,
//! prologue and mode), `GET /agentbots/{id}/logs/{message_id}` gives a run's trace.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::turn_start::{begin, with_program, Mode};
use crate::auth::BetaTenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::{truthy, Body};
use crate::run::{Ended, Frame};
use crate::shared::AppRef;
use crate::sse::{self, Framing};
use crate::turn::TurnEnd;

/// RAGFlow's answer for an agent the token's tenant cannot reach (code 102).
fn not_found(agent_id: &str) -> ApiError {
    ApiError::data(format!("Can't find agent by ID: {agent_id}"))
}

async fn accessible(app: &AppRef, tenant: &str, agent_id: &str) -> Result<(), ApiError> {
    match app.store.owns_agent(tenant, agent_id).await? {
        true => Ok(()),
        false => Err(not_found(agent_id)),
    }
}

/// `POST /agentbots/{agent_id}/completions`.
pub(crate) async fn completions(
    State(app): State<AppRef>,
    BetaTenant(tenant): BetaTenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Response {
    let body = body.0;
    if let Err(e) = accessible(&app, &tenant, &agent_id).await {
        return e.into_response();
    }
    let (query, session_id) = match super::completions::query_and_session(&body) {
        Ok(both) => both,
        Err(e) => return e.into_response(),
    };
    // RAGFlow streams unless told not to (`req.get("stream", True)`).
    let stream = body.get("stream").is_none_or(|s| truthy(Some(s)));
    let (launched, session_id) = match begin(
        &app,
        &tenant,
        &agent_id,
        session_id,
        query,
        &body,
        Mode::Bot,
    )
    .await
    {
        Ok(launched) => launched,
        Err(e) => return e.into_response(),
    };
    if stream {
        return sse::response(launched, app.keep_alive, BotFraming);
    }
    let program = launched.program;
    let mut frames = launched.frames;
    let response = match sse::finish(&mut frames).await {
        Some(ended) => match whole(&ended, &session_id) {
            Ok(answer) => Reply::raw(answer).into_response(),
            Err(e) => e.into_response(),
        },
        None => ApiError::data("the run stopped unexpectedly").into_response(),
    };
    with_program(response, program)
}

/// The non-streamed answer: the run's last event with the whole answer text, the merged
/// references and the structured outputs (`{"code": 0, "data": …}`, no message), or the
/// error the run raised (code 102).
fn whole(ended: &Ended, session_id: &str) -> Result<Value, ApiError> {
    if let (TurnEnd::Aborted(e), _) | (_, Some(e)) = (&ended.end, &ended.unsaved) {
        return Err(ApiError::data(e.clone()));
    }
    let summary = &ended.summary;
    let Some(last) = &summary.last_event else {
        return Ok(json!({"code": 0, "data": {}}));
    };
    let mut last = Value::clone(last);
    if !last.get("data").is_some_and(Value::is_object) {
        last["data"] = Value::Object(Map::new());
    }
    last["data"]["content"] = Value::String(summary.deltas.clone());
    last["data"]["reference"] = Value::Object(summary.reference.clone());
    if !summary.structured.is_empty() {
        last["data"]["structured"] = Value::Object(summary.structured.clone());
    }
    if last.get("session_id").is_none() {
        last["session_id"] = Value::String(session_id.to_string());
    }
    Ok(json!({"code": 0, "data": last}))
}

/// RAGFlow's bot stream: the run's frames, and for a run that raised one `message` frame
/// with the error (`Error 102: …`); no `[DONE]`.
struct BotFraming;

impl Framing for BotFraming {
    fn event(&mut self, frame: &Frame) -> String {
        format!("data:{}\n\n", frame.text)
    }

    fn end(&mut self, ended: &Ended) -> String {
        match (&ended.end, &ended.unsaved) {
            (TurnEnd::Aborted(e), _) | (_, Some(e)) => {
                let frame = json!({"event": "message",
                    "data": {"content": format!("Error 102: {e}\n\n")},
                    "code": 102, "message": e});
                format!("data:{frame}\n\n")
            }
            _ => String::new(),
        }
    }
}

/// `GET /agentbots/{agent_id}/inputs`: what an embedding page shows before the first
/// question: the title, avatar, Begin's form, prologue and mode.
pub(crate) async fn inputs(
    State(app): State<AppRef>,
    BetaTenant(tenant): BetaTenant,
    Path(agent_id): Path<String>,
) -> Answer {
    accessible(&app, &tenant, &agent_id).await?;
    let (agent, text) = app
        .store
        .agent_text(&tenant, &agent_id)
        .await?
        .ok_or_else(|| not_found(&agent_id))?;
    // RAGFlow builds the canvas to read its Begin: one it cannot build fails as it fails.
    app.starting_canvases
        .starting_canvas(&agent_id, &text, true)
        .await?;
    // Loading the DSL is CPU work on client data: off the async workers.
    let begin = tokio::task::spawn_blocking(move || begin_params(&crate::store::parsed(&text)))
        .await
        .map_err(|e| ApiError::exception(format!("reading the agent's DSL failed: {e}")))?;
    Ok(Reply::raw(json!({"code": 0, "data": {
        "title": agent.title, "avatar": agent.avatar,
        "inputs": begin.get("inputs").cloned().unwrap_or_else(|| json!({})),
        "prologue": begin.get("prologue").cloned().unwrap_or(Value::Null),
        "mode": begin.get("mode").cloned().unwrap_or(Value::Null),
    }})))
}

/// The `begin` component's params with RAGFlow's defaults under them (any DSL form).
fn begin_params(dsl: &Value) -> Map<String, Value> {
    let Ok(loaded) = canvasc_frontend::load_value(dsl.clone()) else {
        return Map::new();
    };
    loaded
        .document
        .components
        .iter()
        .find(|c| c.id == "begin")
        .map(|c| {
            canvasc_frontend::catalog::defaults::merged_params(
                canvasc_frontend::catalog::Kind::Begin,
                &c.params,
            )
        })
        .unwrap_or_default()
}

/// `GET /agentbots/{agent_id}/logs/{message_id}`: the run's component trace, as
/// `/agents/{id}/logs/{message_id}` gives it, for the embedding page.
pub(crate) async fn logs(
    State(app): State<AppRef>,
    BetaTenant(tenant): BetaTenant,
    Path((agent_id, message_id)): Path<(String, String)>,
) -> Response {
    if let Err(e) = accessible(&app, &tenant, &agent_id).await {
        return e.into_response();
    }
    match super::run_logs::trace(&app, &tenant, &agent_id, &message_id).await {
        Ok(Some((_, trace))) => Reply::success(trace).into_response(),
        Ok(None) => Reply::success(json!({})).into_response(),
        Err(e) => e.into_response(),
    }
}
