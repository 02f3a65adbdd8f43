//! Starting a turn for the chat-completions endpoints, native and OpenAI-compatible alike:
//! the §7.2 checks, the session, the uploaded files, and the response header naming the program.

use crate::clock::{new_id, now_ms};
use crate::coord::{Lease, RunRecord, RunStatus};
use crate::envelope::ApiError;
use crate::request::{string, truthy, type_name};
use crate::run::multitask::{self, Strategy, ALREADY_RUNNING};
use crate::run::resume::{Found, Orphan};
use crate::run::{self, Launched, Out, TurnContext};
use crate::shared::AppRef;
use crate::sse::PROGRAM_HEADER;
use crate::store::session_state;
use crate::store::NewSession;
use crate::telemetry::metrics::{self, CancelStamp};
use crate::turn::{SessionState, TurnCanvas, TurnRequest};
use axum::http::HeaderValue;
use axum::response::Response;
use base64::Engine as _;
use serde_json::{json, Map, Value};

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
    /// An embedded agent (`/agentbots/{id}/completions`, RAGFlow's `canvas_service.completion`:
    /// its sessions are the `agent` source's).
    Bot,
}

/// Validates the request against the session or the agent (§7.2), creates the session when
/// none is named, appends the user message and starts the turn. Returns the turn and its
/// session id.
pub(crate) async fn begin(
    app: &AppRef,
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
    let cancel_on_disconnect = on_disconnect(body)?;
    let strategy = Strategy::of(body)?;
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
                owner_tenant == tenant && app.store.owns_agent(tenant, agent_id).await?;
            if !accessible {
                return Err(ApiError::operating(
                    "Only authorized users can access this agent session.",
                ));
            }
            (id, None)
        }
        None => {
            let (agent, draft) = app
                .store
                .agent_text(tenant, agent_id)
                .await?
                .ok_or_else(ApiError::no_access)?;
            if agent.canvas_type == "dataflow_canvas" {
                return Err(ApiError::data(
                    "This agent is an ingestion pipeline (dataflow canvas); canvasc serve runs agent canvases only.",
                ));
            }
            // `version_id` pins a released version; `release` runs the newest one.
            let pinned = string(body, "version_id")?.filter(|v| !v.is_empty());
            let release = pinned.is_some() || truthy(body.get("release"));
            let (dsl, version_title) = if let Some(version_id) = pinned {
                let (version, dsl) = app
                    .store
                    .version_text(agent_id, Some(&version_id))
                    .await?
                    .ok_or_else(|| ApiError::data("Version not found."))?;
                if !version.released {
                    return Err(ApiError::data(format!(
                        "Version {version_id} is not released; only a released version can be run by its id."
                    )));
                }
                (dsl, Some(version.title))
            } else if release {
                let (version, dsl) = app
                    .store
                    .version_text(agent_id, None)
                    .await?
                    .ok_or_else(|| ApiError::data("No available published version"))?;
                (dsl, Some(version.title))
            } else {
                let newest = app.store.newest_version_title(agent_id).await?;
                (draft, newest)
            };
            // RAGFlow builds the canvas before it stores the session; the OpenAI-compatible
            // route builds it inside the answer, which then says `**ERROR**: <why>` (as the
            // run's abort does here).
            let refuse = matches!(mode, Mode::Native { .. });
            let canvas = app
                .starting_canvases
                .starting_canvas(agent_id, &dsl, refuse)
                .await?;
            let user = user_given.clone().unwrap_or_else(|| tenant.to_string());
            let name = match string(body, "name")? {
                Some(name) => name,
                None => query.chars().take(NAME_CHARS).collect(),
            };
            let session = NewSession {
                id: new_id(),
                agent_id: agent_id.to_string(),
                tenant_id: tenant.to_string(),
                user_id: user,
                name,
                source: match mode {
                    Mode::Bot => "agent",
                    _ => "workflow",
                }
                .into(),
                version_title,
                state: new_session_state(release),
                canvas,
                create_time: now_ms(),
            };
            (session.id.clone(), Some(session))
        }
    };
    // A request that may wait for its busy session (`multitask_strategy`) waits first, so no
    // quota slot of its tenant is held (or lapses) meanwhile.
    let mut waited = match strategy {
        Strategy::Reject => None,
        _ if !continues => None,
        _ => Some(multitask::take(app, &session_id, strategy).await?),
    };
    // The tenant's quotas admit the run before anything of it is stored.
    let ticket = match app.quotas.admit(&app.store, &app.coord, tenant).await {
        Ok(ticket) => ticket,
        Err(e) => {
            if let Some(lease) = &waited {
                app.coord.give_back(lease).await;
            }
            return Err(e);
        }
    };
    // The session's lease, on whichever replica: refused here when any replica runs it. A new
    // session is stored only once its lease is held, so a coordinator that cannot answer
    // leaves no session behind. A session that continues is read only under its lease: read
    // before, its state could be a turn older than the one a run saving meanwhile stores, and
    // this turn would then save over that one.
    let mut new_session = new_session;
    let mut orphans = 0;
    let (lease, state, user_id, resume) = loop {
        let lease = match waited.take() {
            Some(lease) => lease,
            None => multitask::take(app, &session_id, strategy).await?,
        };
        let held = held_session(
            app,
            agent_id,
            &session_id,
            &lease,
            new_session.take(),
            user_given.clone(),
        )
        .await;
        let (state, user_id) = match held {
            Ok(held) => held,
            Err(e) => {
                app.coord.give_back(&lease).await;
                return Err(e);
            }
        };
        // A run of this session whose replica died goes on first; the run `resume_from`
        // names is this turn.
        let found = match continues {
            true => run::resume::find(app, &session_id, &state, resume_from.as_deref()).await,
            false => Ok(Found::Nothing),
        };
        match found {
            Err(e) => {
                app.coord.give_back(&lease).await;
                return Err(e);
            }
            Ok(Found::Orphan(orphan)) if orphans < ORPHANS_PER_REQUEST => {
                orphans += 1;
                finish_orphan(app, tenant, agent_id, (state, user_id), orphan, lease).await?;
            }
            // Runs keep dying on this session: this request's question goes first.
            Ok(Found::Orphan(_) | Found::Nothing) => break (lease, state, user_id, None),
            Ok(Found::Asked(resume)) => break (lease, state, user_id, Some(resume)),
        }
    };
    let files = match file_contents(app, tenant, &session_id, &descriptors).await {
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
    let turn = Turn {
        message_id,
        user,
        state,
        query,
        inputs,
        files,
        user_id,
        custom_header,
        chat_template_kwargs,
        resume: resume.map(|r| r.checkpoint),
        return_trace,
        ticket,
        cancel_on_disconnect,
    };
    let launched = start_turn(app, tenant, agent_id, &session_id, lease, turn).await?;
    Ok((launched, session_id))
}

/// How many orphaned runs one request finishes before its own question (each finished or
/// recorded one is no longer the session's latest, so one is the usual case).
const ORPHANS_PER_REQUEST: usize = 2;

/// The session's state and user under `lease`: the new session stored, or the existing one
/// read once the lease's token fences its writes.
async fn held_session(
    app: &AppRef,
    agent_id: &str,
    session_id: &str,
    lease: &Lease,
    new_session: Option<NewSession>,
    user_given: Option<String>,
) -> Result<(Value, String), ApiError> {
    // The lease token fences the session's writes: a run still going on under an older
    // lease (its replica lost it) can no longer save over this one's turn.
    if let Some(session) = new_session {
        app.store.insert_session(&session, &lease.token).await?;
        return Ok((session.working_state(), session.user_id));
    }
    match fenced_session(app, agent_id, session_id, &lease.token).await? {
        Some(record) => Ok((record.state, user_given.unwrap_or(record.user_id))),
        None => Err(ApiError::data("Session not found!")),
    }
}

/// A turn about to run.
struct Turn {
    message_id: String,
    /// The user message (`null` when a resumed run's is unknown).
    user: Value,
    /// The session's stored state.
    state: Value,
    query: String,
    inputs: Option<Value>,
    files: Vec<Value>,
    user_id: String,
    custom_header: Map<String, Value>,
    chat_template_kwargs: Option<Value>,
    resume: Option<Value>,
    return_trace: bool,
    /// The run's hold on its tenant's quotas (`None`: none applies).
    ticket: Option<crate::quota::Ticket>,
    cancel_on_disconnect: bool,
}

/// Starts `turn` under `lease` (given back when it cannot start): its user message goes into
/// the state (unless a saved earlier part holds it), the run takes the DSL, and the driver
/// saves the turn when it ends.
async fn start_turn(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    session_id: &str,
    lease: Lease,
    turn: Turn,
) -> Result<Launched, ApiError> {
    let Turn {
        message_id,
        user,
        mut state,
        ..
    } = turn;
    let unsaved = !run::resume::saved(&state, &message_id) && !user.is_null();
    if let (Some(object), true) = (state.as_object_mut(), unsaved) {
        match object.get_mut("message") {
            Some(Value::Array(list)) => list.push(user.clone()),
            _ => {
                object.insert("message".into(), Value::from(vec![user.clone()]));
            }
        }
    }
    // The run owns the run state; the state the turn is saved into gets the run's back at its
    // end (or the stored one, when the run aborts), so a long run holds one copy, not two.
    let (canvas, run_state) = match session_canvas(app, &mut state).await {
        Ok(both) => both,
        Err(e) => {
            app.coord.give_back(&lease).await;
            return Err(e);
        }
    };
    let (checkpoints, checkpoints_written, recorded) =
        run::resume::writer(app, &message_id, session_id, &user);
    let round = state.get("round").and_then(Value::as_i64).unwrap_or(0);
    let default_llm = match default_chat_model(app, tenant).await {
        Ok(model) => model,
        Err(e) => {
            app.coord.give_back(&lease).await;
            return Err(e);
        }
    };
    let request = TurnRequest {
        tenant_id: tenant.to_string(),
        agent_id: agent_id.to_string(),
        session_id: session_id.to_string(),
        canvas: canvas.clone(),
        state: run_state,
        released: state
            .get("released")
            .is_some_and(|r| r == &Value::Bool(true)),
        fresh: round == 0,
        query: turn.query,
        inputs: turn.inputs,
        files: turn.files,
        user_id: turn.user_id,
        custom_header: turn.custom_header,
        chat_template_kwargs: turn.chat_template_kwargs,
        checkpoints: Some(checkpoints),
        resume: turn.resume,
        default_llm,
        webhook_payload: None,
    };
    // The run's record is written before it starts: its checkpoints go with it, and a crash
    // from here on leaves its trace. The program that will run it is named by the runner.
    let started_at = now_ms();
    let mut record = RunRecord {
        canvas_id: agent_id.to_string(),
        tenant_id: tenant.to_string(),
        session_id: session_id.to_string(),
        mode: String::new(),
        status: RunStatus::Running,
        failure_reason: String::new(),
        started_at: started_at / 1000 * 1000,
        finished_at: 0,
        user_message: if user.is_null() {
            String::new()
        } else {
            user.to_string()
        },
    };
    let mut running = match app.runner.start(request) {
        Ok(running) => running,
        Err(e) => {
            app.coord.give_back(&lease).await;
            return Err(ApiError::data(format!("The agent cannot run: {e}")));
        }
    };
    record.mode = running.program.as_str().to_string();
    if let Some(ticket) = turn.ticket {
        running.events = crate::quota::metered(running.events, ticket);
    }
    // Kept from before the record is: a client that finds the run can read its stream.
    let stream = app.coord.streams().writer(&message_id);
    if let Err(e) = app.coord.put_run(&message_id, &record).await {
        eprintln!("canvasc serve: run {message_id}: the run record could not be written: {e}");
    }
    let _ = recorded.send(());
    let cancel_stamp = CancelStamp::default();
    running.cancel = metrics::stamped(running.cancel, &cancel_stamp);
    let ctx = TurnContext {
        tenant: tenant.to_string(),
        agent_id: agent_id.to_string(),
        session_id: session_id.to_string(),
        message_id,
        record,
        created_at: started_at / 1000,
        state,
        canvas,
        return_trace: turn.return_trace,
        cancel_stamp,
        lease,
        checkpoints_written,
        stream,
        cancel_on_disconnect: turn.cancel_on_disconnect,
    };
    Ok(run::launch(app.clone(), ctx, running))
}

/// The canvas a session runs and its run state, taken out of the working `state`. A session
/// stored with its whole DSL and no canvas (before canvases were stored apart) runs that DSL
/// as its canvas, built for this turn only.
pub(crate) async fn session_canvas(
    app: &AppRef,
    state: &mut Value,
) -> Result<(TurnCanvas, SessionState), ApiError> {
    let run_state = session_state::take_run_state(state);
    let canvas = match session_state::canvas_of(state) {
        Some(id) => TurnCanvas {
            id: id.to_string(),
            dsl: app.store.canvas(id).await?,
        },
        None => TurnCanvas {
            id: String::new(),
            dsl: std::sync::Arc::new(match &run_state {
                SessionState::Dsl(dsl) => dsl.clone(),
                _ => Value::Null,
            }),
        },
    };
    Ok((canvas, run_state))
}

/// The tenant's default chat model (`PATCH /models/default`), if it set one. A tenant's
/// default is one of the configured models: without any (a scripted model), there is none to
/// look up.
pub(crate) async fn default_chat_model(
    app: &AppRef,
    tenant: &str,
) -> Result<Option<String>, ApiError> {
    if app.models.is_empty() {
        return Ok(None);
    }
    Ok(app
        .store
        .default_models(tenant)
        .await?
        .into_iter()
        .find_map(|(kind, llm_id)| (kind == "chat").then_some(llm_id)))
}

/// Finishes a run whose replica died before the session's next question runs: it goes on
/// from its checkpoint with nobody reading its events (its answer is saved into the session
/// as the turn it was), and this waits for its end, which gives the lease back. A run that
/// cannot go on (no checkpoint, or one the server refuses: the canvas changed, another engine
/// wrote it) is recorded as interrupted instead, so the session never stays stuck on it.
async fn finish_orphan(
    app: &AppRef,
    tenant: &str,
    agent_id: &str,
    (state, user_id): (Value, String),
    orphan: Orphan,
    lease: Lease,
) -> Result<(), ApiError> {
    let Orphan {
        run_id,
        mut record,
        resume,
    } = orphan;
    let why = match resume {
        None => "its replica stopped before the run's first checkpoint".to_string(),
        Some(resume) => {
            let query = resume.user_message["content"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let turn = Turn {
                message_id: run_id.clone(),
                user: resume.user_message,
                state,
                query,
                inputs: None,
                files: Vec::new(),
                user_id,
                custom_header: Map::new(),
                chat_template_kwargs: None,
                resume: Some(resume.checkpoint),
                return_trace: false,
                ticket: app.quotas.tokens_only(&app.store, &app.coord, tenant).await,
                cancel_on_disconnect: false,
            };
            let session_id = lease.session.clone();
            match start_turn(app, tenant, agent_id, &session_id, lease, turn).await {
                Ok(mut launched) => {
                    // Its own task: the run is not cancelled if this request's client leaves.
                    let drained = tokio::spawn(async move {
                        while let Some(out) = launched.frames.recv().await {
                            if matches!(out, Out::End(_)) {
                                break;
                            }
                        }
                    });
                    let _ = drained.await;
                    return Ok(());
                }
                // `start_turn` gave the lease back: take it again to record the run.
                Err(e) => {
                    let Some(again) = app.coord.claim(&session_id).await? else {
                        return Err(ApiError::operating(ALREADY_RUNNING));
                    };
                    let recorded = interrupted_run(app, &run_id, &mut record, e.message()).await;
                    app.coord.give_back(&again).await;
                    return recorded;
                }
            }
        }
    };
    let recorded = interrupted_run(app, &run_id, &mut record, &why).await;
    app.coord.give_back(&lease).await;
    recorded
}

async fn interrupted_run(
    app: &AppRef,
    run_id: &str,
    record: &mut RunRecord,
    why: &str,
) -> Result<(), ApiError> {
    let reason = format!("The run {run_id} was interrupted and cannot go on: {why}");
    eprintln!(
        "canvasc serve: session {}: {reason}; the session goes on",
        record.session_id
    );
    run::resume::interrupted(&app.store, &app.coord, run_id, record, &reason).await
}

/// The session, once `token` fences its writes; `None` when it is gone.
async fn fenced_session(
    app: &AppRef,
    agent_id: &str,
    session_id: &str,
    token: &str,
) -> Result<Option<crate::store::SessionRecord>, crate::store::StoreError> {
    if !app.store.fence_session(session_id, token).await? {
        return Ok(None);
    }
    app.store.session(agent_id, session_id).await
}

/// A new session's state (`canvas_service`'s fresh `UserCanvas` DSL) but its DSL (the session's
/// canvas), keys in RAGFlow's order.
fn new_session_state(released: bool) -> Value {
    let mut state = Map::new();
    state.insert("message".into(), Value::Array(Vec::new()));
    state.insert("reference".into(), Value::Array(Vec::new()));
    state.insert("released".into(), Value::Bool(released));
    state.insert("round".into(), 0.into());
    state.insert("tokens".into(), 0.into());
    state.insert("duration".into(), 0.0.into());
    state.insert("thumb_up".into(), 0.into());
    state.insert("errors".into(), Value::Null);
    Value::Object(state)
}

/// `on_disconnect`: what a client that goes away does to its run. `continue` (the default)
/// lets it finish and keeps its events for the client to reattach
/// (`GET /agents/{id}/runs/{message_id}/stream`); `cancel` stops it, as RAGFlow does.
fn on_disconnect(body: &Map<String, Value>) -> Result<bool, ApiError> {
    match string(body, "on_disconnect")?.as_deref() {
        None | Some("") | Some("continue") => Ok(false),
        Some("cancel") => Ok(true),
        Some(other) => Err(ApiError::argument(format!(
            "`on_disconnect` must be \"continue\" or \"cancel\", not \"{other}\"."
        ))),
    }
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
/// Read, they belong to the session (unless an earlier one has them) and go with it.
async fn file_contents(
    app: &AppRef,
    tenant: &str,
    session_id: &str,
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
    for descriptor in descriptors {
        if let Some(id) = descriptor.get("id").and_then(Value::as_str) {
            app.store.attach_file(tenant, id, session_id).await?;
        }
    }
    Ok(out)
}
