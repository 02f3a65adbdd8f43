//! Starting a turn for the chat-completions endpoints, native and OpenAI-compatible alike:
//! the §7.2 checks, the session, the uploaded files, and the response header naming the program.

use crate::clock::{new_id, now_ms};
use crate::envelope::ApiError;
use crate::request::{string, truthy, type_name};
use crate::run::{self, Launched, TurnContext};
use crate::shared::Shared;
use crate::sse::PROGRAM_HEADER;
use crate::store::NewSession;
use crate::telemetry::metrics::{self, CancelStamp};
use crate::turn::TurnRequest;
use axum::http::HeaderValue;
use axum::response::Response;
use base64::Engine as _;
use serde_json::{json, Map, Value};

/// RAGFlow's refusal of a second run on a busy session.
const ALREADY_RUNNING: &str = "This agent session is already running.";

/// Longest session name taken from a query.
const NAME_CHARS: usize = 250;

pub(crate) fn with_program(mut response: Response, program: crate::turn::ProgramKind) -> Response {
    response
        .headers_mut()
        .insert(PROGRAM_HEADER, HeaderValue::from_static(program.as_str()));
    response
}

/// Which route starts the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// RAGFlow's native completions, with or without component traces.
    Native { return_trace: bool },
    /// The OpenAI-compatible completions.
    OpenAi,
}

/// Validates the request against the session or the agent (§7.2), creates the session when
/// none is named, appends the user message and starts the turn. Returns the turn and its
/// session id.
pub(crate) async fn begin(
    app: &Shared,
    tenant: &str,
    agent_id: &str,
    session_id: Option<String>,
    query: String,
    body: &Map<String, Value>,
    mode: Mode,
) -> Result<(Launched, String), ApiError> {
    let return_trace = matches!(mode, Mode::Native { return_trace: true });
    let inputs = match body.get("inputs") {
        None => None,
        Some(Value::Object(inputs)) => Some(Value::Object(inputs.clone())),
        Some(other) => {
            return Err(ApiError::argument(format!(
                "`inputs` must be an object of Begin fields, not {}.",
                type_name(other)
            )))
        }
    };
    let custom_header = match body.get("custom_header") {
        None => Map::new(),
        Some(Value::Object(h)) => h.clone(),
        Some(Value::String(s)) if s.is_empty() => Map::new(),
        Some(other) => {
            return Err(ApiError::argument(format!(
                "`custom_header` must be an object of header names and values, not {}.",
                type_name(other)
            )))
        }
    };
    let chat_template_kwargs = match body.get("chat_template_kwargs") {
        None => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(other) => {
            return Err(ApiError::argument(format!(
                "`chat_template_kwargs` must be an object, not {}.",
                type_name(other)
            )))
        }
    };
    let descriptors = file_descriptors(body.get("files"))?;
    let user_given = string(body, "user_id")?;
    let resume_from = string(body, "resume_from")?.filter(|r| !r.is_empty());
    if resume_from.is_some() && session_id.is_none() {
        return Err(ApiError::argument(
            "`resume_from` names a run of a session: give that run's `session_id` too.",
        ));
    }
    let continues = session_id.is_some();
    let (session_id, new_session) = match session_id {
        Some(id) => {
            let (owner_agent, owner_tenant) = app
                .store
                .session_owner(&id)
                .await?
                .ok_or_else(|| ApiError::data("Session not found!"))?;
            if owner_agent != agent_id {
                return Err(ApiError::operating(
                    "Session does not belong to the requested agent.",
                ));
            }
            let accessible =
                owner_tenant == tenant && app.store.agent(tenant, agent_id).await?.is_some();
            if !accessible {
                return Err(ApiError::operating(
                    "Only authorized users can access this agent session.",
                ));
            }
            (id, None)
        }
        None => {
            let agent = app
                .store
                .agent(tenant, agent_id)
                .await?
                .ok_or_else(ApiError::no_access)?;
            if agent.summary.canvas_type == "dataflow_canvas" {
                return Err(ApiError::data(
                    "This agent is an ingestion pipeline (dataflow canvas); canvasc serve runs agent canvases only.",
                ));
            }
            let release = truthy(body.get("release"));
            let (mut dsl, version_title) = if release {
                let version = app
                    .store
                    .newest_release(agent_id)
                    .await?
                    .ok_or_else(|| ApiError::data("No available published version"))?;
                (version.dsl, Some(version.summary.title))
            } else {
                let newest = app.store.versions(agent_id).await?.into_iter().next();
                (agent.dsl, newest.map(|v| v.title))
            };
            // RAGFlow builds the canvas before it stores the session; the OpenAI-compatible
            // route builds it inside the answer, which then says `**ERROR**: <why>` (as the
            // run's abort does here).
            if matches!(mode, Mode::Native { .. }) {
                super::buildable::refuse_unbuildable(&dsl).await?;
            }
            canvasc_frontend::reset::reset(&mut dsl);
            let user = user_given.clone().unwrap_or_else(|| tenant.to_string());
            let name = match string(body, "name")? {
                Some(name) => name,
                None => query.chars().take(NAME_CHARS).collect(),
            };
            let state = new_session_state(dsl, release);
            let session = NewSession {
                id: new_id(),
                agent_id: agent_id.to_string(),
                tenant_id: tenant.to_string(),
                user_id: user,
                name,
                source: "workflow".into(),
                version_title,
                state,
                create_time: now_ms(),
            };
            (session.id.clone(), Some(session))
        }
    };
    // The session's lease, on whichever replica: refused here when any replica runs it. A new
    // session is stored only once its lease is held, so a coordinator that cannot answer
    // leaves no session behind. A session that continues is read only under its lease: read
    // before, its state could be a turn older than the one a run saving meanwhile stores, and
    // this turn would then save over that one.
    let Some(lease) = app.coord.claim(&session_id).await? else {
        return Err(ApiError::operating(ALREADY_RUNNING));
    };
    let (state, user_id) = match new_session {
        Some(session) => {
            if let Err(e) = app.store.insert_session(&session).await {
                app.coord.give_back(&lease).await;
                return Err(e.into());
            }
            (session.state, session.user_id)
        }
        None => match app.store.session(agent_id, &session_id).await {
            Ok(Some(record)) => (record.state, user_given.unwrap_or(record.user_id)),
            Ok(None) => {
                app.coord.give_back(&lease).await;
                return Err(ApiError::data("Session not found!"));
            }
            Err(e) => {
                app.coord.give_back(&lease).await;
                return Err(e.into());
            }
        },
    };
    // A run of this session whose replica died, or the run `resume_from` names, goes on from
    // its checkpoint instead of a new turn starting.
    let resume = if continues {
        match run::resume::find(app, &session_id, &state, resume_from.as_deref()).await {
            Ok(resume) => resume,
            Err(e) => {
                app.coord.give_back(&lease).await;
                return Err(e);
            }
        }
    } else {
        None
    };
    let files = match file_contents(app, tenant, &descriptors).await {
        Ok(files) => files,
        Err(e) => {
            app.coord.give_back(&lease).await;
            return Err(e);
        }
    };
    let now = now_ms();
    let (message_id, user) = match &resume {
        Some(resume) => (resume.run_id.clone(), resume.user_message.clone()),
        None => {
            let message_id = new_id();
            let user = json!({"role": "user", "content": query, "id": message_id,
                "files": descriptors, "created_at": now as f64 / 1000.0});
            (message_id, user)
        }
    };
    let mut state = state;
    let unsaved = !run::resume::saved(&state, &message_id) && !user.is_null();
    if let (Some(object), true) = (state.as_object_mut(), unsaved) {
        match object.get_mut("message") {
            Some(Value::Array(list)) => list.push(user.clone()),
            _ => {
                object.insert("message".into(), Value::from(vec![user.clone()]));
            }
        }
    }
    // The run owns the DSL; the state the turn is saved into gets the run's DSL back at its
    // end (or the stored one, when the run aborts), so a long run holds one copy, not two.
    let dsl = state
        .get_mut("dsl")
        .map(std::mem::take)
        .unwrap_or(Value::Null);
    let (checkpoints, checkpoints_written) =
        run::resume::writer(app, &message_id, &session_id, &user);
    let round = state.get("round").and_then(Value::as_i64).unwrap_or(0);
    let turn = TurnRequest {
        tenant_id: tenant.to_string(),
        agent_id: agent_id.to_string(),
        session_id: session_id.clone(),
        dsl,
        released: state
            .get("released")
            .is_some_and(|r| r == &Value::Bool(true)),
        fresh: round == 0,
        query,
        inputs,
        files,
        user_id,
        custom_header,
        chat_template_kwargs,
        checkpoints: Some(checkpoints),
        resume: resume.map(|r| r.checkpoint),
    };
    let mut running = match app.runner.start(turn) {
        Ok(running) => running,
        Err(e) => {
            app.coord.give_back(&lease).await;
            return Err(ApiError::data(format!("The agent cannot run: {e}")));
        }
    };
    let cancel_stamp = CancelStamp::default();
    running.cancel = metrics::stamped(running.cancel, &cancel_stamp);
    let ctx = TurnContext {
        tenant: tenant.to_string(),
        agent_id: agent_id.to_string(),
        session_id: session_id.clone(),
        message_id,
        created_at: now / 1000,
        state,
        return_trace,
        cancel_stamp,
        lease,
        checkpoints_written,
    };
    Ok((run::launch(app.clone(), ctx, running), session_id))
}

/// A new session's state (`canvas_service`'s fresh `UserCanvas` DSL), keys in RAGFlow's order.
fn new_session_state(dsl: Value, released: bool) -> Value {
    let mut state = Map::new();
    state.insert("message".into(), Value::Array(Vec::new()));
    state.insert("reference".into(), Value::Array(Vec::new()));
    state.insert("dsl".into(), dsl);
    state.insert("released".into(), Value::Bool(released));
    state.insert("round".into(), 0.into());
    state.insert("tokens".into(), 0.into());
    state.insert("duration".into(), 0.0.into());
    state.insert("thumb_up".into(), 0.into());
    state.insert("errors".into(), Value::Null);
    Value::Object(state)
}

/// `files`: upload descriptors, or one list of them wrapped in another (Go's form).
fn file_descriptors(files: Option<&Value>) -> Result<Vec<Value>, ApiError> {
    let list = match files {
        None => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(ApiError::argument(format!(
                "`files` must be a list of upload descriptors, not {}.",
                type_name(other)
            )))
        }
    };
    let flat: Vec<Value> = match list.as_slice() {
        [Value::Array(inner)] => inner.clone(),
        _ => list.clone(),
    };
    for descriptor in &flat {
        if !descriptor.get("id").is_some_and(Value::is_string) {
            return Err(ApiError::argument(
                "Each of `files` must be an upload descriptor with a string `id`.",
            ));
        }
    }
    Ok(flat)
}

/// The uploads as the run reads them (`sys.files`): images as data URLs, text as text.
/// Other documents need a parser this server does not carry; they are refused by name.
async fn file_contents(
    app: &Shared,
    tenant: &str,
    descriptors: &[Value],
) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::with_capacity(descriptors.len());
    for descriptor in descriptors {
        let id = descriptor
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let file = app
            .store
            .file(tenant, id)
            .await?
            .ok_or_else(|| ApiError::data(format!("File {id} not found.")))?;
        let mime = file.file.mime_type.as_str();
        if mime.starts_with("image/") {
            let data = base64::engine::general_purpose::STANDARD.encode(&file.content);
            out.push(Value::String(format!("data:{mime};base64,{data}")));
        } else if let Ok(text) = String::from_utf8(file.content) {
            out.push(Value::String(text));
        } else {
            return Err(ApiError::argument(format!(
                "File {} ({mime}) is neither text nor an image; canvasc serve cannot read it into `sys.files`.",
                file.file.name
            )));
        }
    }
    Ok(out)
}
