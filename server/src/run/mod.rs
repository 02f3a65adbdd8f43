//! Driving one turn: the host's engine runs it ([`crate::turn::TurnRunner`]); this module
//! stamps RAGFlow's envelope on each event, hands frames to whichever framing the request
//! asked for, and when the turn ends saves the session's new state and the run log in one
//! transaction. The driver runs on its own task: a client that goes away leaves the run going
//! (its frames are kept to reattach to), or with `on_disconnect: cancel` cancels it (noticed
//! even while the run is idle), and the turn is still saved with what ran.

pub(crate) mod multitask;
pub(crate) mod resume;
pub(crate) mod summary;

use std::sync::Arc;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::clock::now_ms;
use crate::coord::streams::{StreamWriter, TERMINATOR};
use crate::coord::{Lease, RunRecord, RunStatus};
use crate::shared::AppRef;
use crate::store::session_state;
use crate::store::{RunLog, StoreError};
use crate::telemetry::metrics::CancelStamp;
use crate::turn::{ProgramKind, RunningTurn, SessionState, TurnCanvas, TurnEnd, TurnEvent};
use summary::Summary;

/// Frames waiting for a slow client; the run itself never waits for the client.
const BUFFERED_FRAMES: usize = 256;

/// RAGFlow's `canvas.error` for a cancel a component saw (`ComponentBase.check_if_canceled`
/// sets it as the component's `_ERROR`, and the canvas takes it over).
const CANCELED: &str = "Task has been canceled";

/// How long a turn's end waits for its last checkpoint to be stored.
const CHECKPOINTS_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// The turn's identity and the session state it starts from.
pub(crate) struct TurnContext {
    pub tenant: String,
    pub agent_id: String,
    pub session_id: String,
    pub message_id: String,
    /// The run's record, written before the run started (its checkpoints update it).
    pub record: RunRecord,
    /// Run start, seconds (every frame's `created_at`).
    pub created_at: i64,
    /// The session's stored state with this turn's user message appended; its run state is
    /// the run's (taken out) until the turn ends.
    pub state: Value,
    /// The canvas the session runs.
    pub canvas: TurnCanvas,
    /// Every `node_finished` carries the trace so far (`return_trace`).
    pub return_trace: bool,
    /// When the turn's cancel handle was first called (cancel latency).
    pub cancel_stamp: CancelStamp,
    /// The session's lease, given back when the turn is saved.
    pub lease: Lease,
    /// Ends when the run's last checkpoint is stored.
    pub checkpoints_written: resume::CheckpointsWritten,
    /// Where the run's frames are kept for clients that reattach.
    pub stream: Box<dyn StreamWriter>,
    /// The request's `on_disconnect`: whether a client that goes away cancels the run (else
    /// it goes on, and its events are kept for a client to reattach).
    pub cancel_on_disconnect: bool,
}

/// One event frame, envelope included: the value (shared with the turn's summary) and its
/// JSON text (what the native stream sends and the run's kept stream holds).
pub(crate) struct Frame {
    pub value: Arc<Value>,
    pub text: Arc<str>,
}

/// What the framing reads.
pub(crate) enum Out {
    Event(Frame),
    /// The turn ended and is saved.
    End(Box<Ended>),
}

pub(crate) struct Ended {
    pub end: TurnEnd,
    pub summary: Summary,
    /// Why the turn could not be saved; the client has been shown the run's events, so the
    /// framing ends with an error instead of a success the session does not hold.
    pub unsaved: Option<String>,
}

/// A turn the driver runs; dropping the receiver cancels the run.
pub(crate) struct Launched {
    pub program: ProgramKind,
    /// The run's id (`message_id` of its events, its record's key).
    pub message_id: String,
    pub frames: mpsc::Receiver<Out>,
}

/// Starts driving `turn`; `ctx.lease` must hold the session.
pub(crate) fn launch(app: AppRef, ctx: TurnContext, turn: RunningTurn) -> Launched {
    let (tx, rx) = mpsc::channel(BUFFERED_FRAMES);
    let program = turn.program;
    let message_id = ctx.message_id.clone();
    tokio::spawn(drive(app, ctx, turn, tx));
    Launched {
        program,
        message_id,
        frames: rx,
    }
}

async fn drive(app: AppRef, mut ctx: TurnContext, turn: RunningTurn, tx: mpsc::Sender<Out>) {
    let RunningTurn {
        program,
        mut events,
        cancel,
    } = turn;
    let watch = app.metrics.turn_started(program, ctx.cancel_stamp.clone());
    let mut record = std::mem::replace(&mut ctx.record, RunRecord::placeholder());
    app.coord.started(&ctx.lease, cancel.clone());
    let mut summary = Summary::default();
    let mut client_gone = false;
    let mut events_sent = 0;
    // Whether a cancel was asked for before the run's `workflow_finished` reached the driver.
    let mut cancelled_before_finish = None;
    let (end, run_state) = loop {
        let next = if client_gone {
            events.next().await
        } else {
            tokio::select! {
                next = events.next() => next,
                () = tx.closed() => {
                    if ctx.cancel_on_disconnect {
                        cancel();
                    }
                    client_gone = true;
                    continue;
                }
            }
        };
        match next {
            Some(TurnEvent::Event { event, data }) => {
                let mut frame = json!({
                    "event": event,
                    "message_id": ctx.message_id,
                    "created_at": ctx.created_at,
                    "task_id": ctx.session_id,
                    "data": data,
                    "session_id": ctx.session_id,
                });
                if event == "workflow_finished" {
                    cancelled_before_finish = Some(ctx.cancel_stamp.get().is_some());
                }
                summary.observe(&event, &frame["data"]);
                watch.event(&event, &frame["data"]);
                if ctx.return_trace && event == "node_finished" {
                    if let Some(data) = frame["data"].as_object_mut() {
                        data.insert("trace".into(), summary.trace_value());
                    }
                }
                let frame = Arc::new(frame);
                summary.keep(&event, &frame);
                let text: Arc<str> = Arc::from(frame.to_string());
                ctx.stream.push(text.clone());
                events_sent += 1;
                let out = Out::Event(Frame { value: frame, text });
                if !client_gone && tx.send(out).await.is_err() {
                    if ctx.cancel_on_disconnect {
                        cancel();
                    }
                    client_gone = true;
                }
            }
            Some(TurnEvent::Ended { end, state }) => break (end, Some(state)),
            // The engine's task ended without a word: it panicked.
            None => {
                break (
                    TurnEnd::Aborted("the run stopped unexpectedly".into()),
                    None,
                )
            }
        }
    };
    let cancelled = cancelled(
        &end,
        cancelled_before_finish.unwrap_or_else(|| ctx.cancel_stamp.get().is_some()),
    );
    // The run took the session's run state. An aborted run keeps the one it started from, as
    // stored (its engine may give none back, or one cut short).
    let run_state = match run_state {
        Some(document) if !matches!(end, TurnEnd::Aborted(_)) && !document.is_null() => {
            saved_form(&app, &ctx, document)
        }
        _ => stored_run_state(&app, &ctx).await,
    };
    let mut state = std::mem::take(&mut ctx.state);
    let stored = run_state
        .map(|run_state| next_state(&mut state, &ctx, &end, cancelled, run_state, &summary));
    let log = RunLog {
        message_id: ctx.message_id.clone(),
        agent_id: ctx.agent_id.clone(),
        tenant_id: ctx.tenant.clone(),
        session_id: ctx.session_id.clone(),
        program: program.as_str().to_string(),
        trace: summary.trace_text(),
        create_time: now_ms(),
    };
    // A run cancelled for a rollback (`multitask_strategy`) leaves no turn: the session stays
    // as it was before it. A mark that cannot be read keeps the turn (nothing is lost).
    let rolled_back = cancelled
        && match app.coord.rolled_back(&ctx.lease).await {
            Ok(marked) => marked,
            Err(e) => {
                eprintln!(
                    "canvasc serve: run {}: whether it was rolled back could not be read ({e}); its turn is kept",
                    ctx.message_id
                );
                false
            }
        };
    let saved = match stored {
        Ok(()) if rolled_back => Ok(()),
        Ok(()) => {
            app.store
                .save_turn(&ctx.session_id, &ctx.lease.token, &state, &log)
                .await
        }
        Err(e) => Err(e),
    };
    // (why, for the client; why, for the run's record and the log)
    let unsaved = match saved {
        Ok(()) => None,
        Err(e) => {
            eprintln!(
                "canvasc serve: session {}: the turn could not be saved (nothing of it was written): {e}",
                ctx.session_id
            );
            Some((
                format!("The turn could not be saved: {}", e.for_client()),
                format!("The turn could not be saved: {e}"),
            ))
        }
    };
    // The client has RAGFlow's text; the operator sees which run, agent and session.
    match &end {
        _ if cancelled => eprintln!(
            "canvasc serve: run {} of agent {} (session {}) was cancelled{}",
            ctx.message_id,
            ctx.agent_id,
            ctx.session_id,
            if rolled_back { " and rolled back" } else { "" }
        ),
        TurnEnd::Failed(e) | TurnEnd::Aborted(e) => eprintln!(
            "canvasc serve: run {} of agent {} (session {}) failed: {e}",
            ctx.message_id, ctx.agent_id, ctx.session_id
        ),
        _ => {}
    }
    watch.ended(&end, cancelled);
    (record.status, record.failure_reason) = match &end {
        _ if cancelled => (RunStatus::Cancelled, String::new()),
        TurnEnd::Finished => (RunStatus::Succeeded, String::new()),
        TurnEnd::Paused => (RunStatus::Waiting, String::new()),
        TurnEnd::Canceled => (RunStatus::Cancelled, String::new()),
        TurnEnd::Failed(e) | TurnEnd::Aborted(e) => (RunStatus::Failed, e.clone()),
    };
    if rolled_back {
        record.status = RunStatus::RolledBack;
    }
    if let Some((_, reason)) = &unsaved {
        // The session does not hold the turn: its record must not say it succeeded.
        (record.status, record.failure_reason) = (RunStatus::Failed, reason.clone());
    }
    record.finished_at = now_ms();
    // The engine's task is over, so its checkpoint writer is dropped: the last checkpoint is
    // stored before the record says whether it may be kept. A coordinator that hangs does
    // not hold the lease back.
    ctx.checkpoints_written
        .finish(record.status.resumable(), CHECKPOINTS_DRAIN)
        .await;
    let ended = Ended {
        end,
        summary,
        unsaved: unsaved.map(|(told, _)| told),
    };
    // The kept stream is whole before the record says the run ended.
    let TurnContext {
        mut stream,
        session_id,
        lease,
        message_id,
        ..
    } = ctx;
    for data in closing_frames(&ended, &session_id, events_sent) {
        stream.push(Arc::from(data));
    }
    stream.end().await;
    app.coord.finished(&lease, &message_id, &record).await;
    drop(watch);
    let _ = tx.send(Out::End(Box::new(ended))).await;
}

/// The native stream's frames after a run's events (their SSE data): RAGFlow's error frame
/// for an aborted run or a turn that could not be saved (RAGFlow's `sse()` sends it for any
/// exception, the save's included), the session-only frame of a run without events, then the
/// terminator.
pub(crate) fn closing_frames(ended: &Ended, session_id: &str, events_sent: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(2);
    let error = match (&ended.end, &ended.unsaved) {
        (TurnEnd::Aborted(e), _) | (_, Some(e)) => Some(e),
        _ => None,
    };
    match error {
        Some(e) => out.push(
            json!({"code": 500, "message": e, "data": false, "session_id": session_id}).to_string(),
        ),
        None if events_sent == 0 => {
            out.push(json!({"session_id": session_id, "data": {}}).to_string())
        }
        None => {}
    }
    out.push(TERMINATOR.to_string());
    out
}

/// Whether a turn was cancelled. A cancel that cuts the answer while the last Message streams
/// ends the engine's run as RAGFlow's does, with an ordinary `workflow_finished`, and one seen
/// between batches aborts it (`TaskCanceledException`); `requested` says a cancel (a request,
/// or the client going away) came before the run's end reached the server.
fn cancelled(end: &TurnEnd, requested: bool) -> bool {
    match end {
        TurnEnd::Canceled => true,
        TurnEnd::Finished | TurnEnd::Aborted(_) => requested,
        TurnEnd::Paused | TurnEnd::Failed(_) => false,
    }
}

/// The session state after a turn (`canvas_service.completion`): the assistant turn and its
/// reference entry, the saved DSL, the error, the counters. An aborted run keeps the DSL it
/// started from and adds no assistant turn; a run with no event adds none either. A cancelled
/// turn's error is RAGFlow's `canvas.error` for a cancel a component saw.
///
/// A resumed run whose earlier part was saved (a cancelled or failed turn) is the same turn:
/// its answer replaces the one saved under its `message_id`, with that answer's reference, and
/// the turn is not counted again. It is the session's latest turn (only the latest run can be
/// resumed), so both are the last entries.
fn next_state(
    state: &mut Value,
    ctx: &TurnContext,
    end: &TurnEnd,
    cancelled: bool,
    run_state: SessionState,
    summary: &Summary,
) {
    session_state::put_run_state(state, run_state);
    let Some(object) = state.as_object_mut() else {
        return;
    };
    let error = match end {
        TurnEnd::Failed(e) | TurnEnd::Aborted(e) => Value::String(e.clone()),
        _ if cancelled => Value::String(CANCELED.into()),
        _ => Value::Null,
    };
    object.insert("errors".into(), error);
    if matches!(end, TurnEnd::Aborted(_)) {
        return;
    }
    let answered_before = object
        .get("message")
        .and_then(Value::as_array)
        .and_then(|list| list.last())
        .is_some_and(|last| last["role"] == "assistant" && last["id"] == ctx.message_id.as_str());
    if summary.events > 0 {
        let assistant = json!({"role": "assistant", "content": summary.content,
            "created_at": now_ms() as f64 / 1000.0, "id": ctx.message_id});
        let reference = Value::Object(summary.reference.clone());
        if answered_before {
            replace_last(object, "message", assistant);
            replace_last(object, "reference", reference);
        } else {
            push(object, "message", assistant);
            push(object, "reference", reference);
        }
    }
    let count = |v: Option<&Value>| v.and_then(Value::as_i64).unwrap_or(0);
    if !answered_before {
        let round = count(object.get("round")) + 1;
        object.insert("round".into(), round.into());
    }
    let tokens = count(object.get("tokens"))
        + summary
            .usage
            .as_ref()
            .and_then(|u| u.get("total_tokens"))
            .and_then(Value::as_i64)
            .unwrap_or(0);
    object.insert("tokens".into(), tokens.into());
    let duration = object
        .get("duration")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
        + summary.elapsed;
    object.insert("duration".into(), duration.into());
}

/// The run state the session's stored state holds (what an aborted turn started from).
async fn stored_run_state(app: &AppRef, ctx: &TurnContext) -> Result<SessionState, StoreError> {
    let record = app.store.session(&ctx.agent_id, &ctx.session_id).await?;
    let mut state = record
        .map(|r| r.state)
        .ok_or_else(|| StoreError::missing(&format!("session {}", ctx.session_id)))?;
    Ok(session_state::take_run_state(&mut state))
}

/// A run's state `document` in the form the session stores: as it is beside the session's
/// canvas, and written into a whole DSL for a session stored without one.
fn saved_form(
    app: &AppRef,
    ctx: &TurnContext,
    document: Value,
) -> Result<SessionState, StoreError> {
    let document = SessionState::Document(document);
    if !ctx.canvas.id.is_empty() {
        return Ok(document);
    }
    app.runner
        .session_dsl(&ctx.canvas, &document)
        .map(SessionState::Dsl)
        .map_err(|e| StoreError::public(format!("the session's DSL could not be written: {e}")))
}

/// Replaces the last item of the list at `key` (appends when the list is empty or missing).
fn replace_last(object: &mut serde_json::Map<String, Value>, key: &str, item: Value) {
    match object.get_mut(key) {
        Some(Value::Array(list)) if !list.is_empty() => {
            let last = list.len() - 1;
            list[last] = item;
        }
        _ => push(object, key, item),
    }
}

fn push(object: &mut serde_json::Map<String, Value>, key: &str, item: Value) {
    match object.get_mut(key) {
        Some(Value::Array(list)) => list.push(item),
        _ => {
            object.insert(key.into(), Value::from(vec![item]));
        }
    }
}
