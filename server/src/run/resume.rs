//! Resuming a run from its last checkpoint (`agent:cp:{run_id}`): asked for by `resume_from`
//! (a run that failed, was cancelled, or whose replica died), or found by the session's next
//! request when the session's latest run is still recorded as running although nobody holds
//! its lease any more (its replica died). Checkpoints are written by [`writer`] as the engine
//! hands them over (at most one every 100 ms).

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::clock::now_ms;
use crate::coord::{RunRecord, RunStatus};
use crate::envelope::ApiError;
use crate::shared::AppRef;
use crate::turn::{newest_per_gap, CheckpointWriter, PendingJson};
use std::sync::atomic::{AtomicBool, Ordering};

/// A run to go on with.
pub(crate) struct Resume {
    pub run_id: String,
    /// The checkpoint as stored (the engine's keys and the server's).
    pub checkpoint: Value,
    /// The run's user message, which the session's stored state lacks when the run's replica
    /// died before saving the turn.
    pub user_message: Value,
}

/// A writer that stores the run's checkpoints in order, the newest winning when writes fall
/// behind; the server's keys (`run_id`, `session_id`, `user_message`) are added to each.
/// Checkpoints are stored at most every [`CHECKPOINT_GAP`](crate::turn::CHECKPOINT_GAP), the first one too: a run that
/// ends sooner stores none, unless its end keeps the last one ([`CheckpointsWritten::finish`]).
///
/// Nothing is stored before `recorded` fires (or is dropped): the in-process coordinator keeps
/// a checkpoint in its run's record, which is written once the runner has named the program.
pub(crate) fn writer(
    app: &AppRef,
    run_id: &str,
    session_id: &str,
    user_message: &Value,
) -> (CheckpointWriter, CheckpointsWritten, oneshot::Sender<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<PendingJson>();
    let (recorded, record_written) = oneshot::channel::<()>();
    let (keep_tx, keep) = oneshot::channel::<bool>();
    let coord = app.coord.clone();
    let (run_id, session_id, user_message) = (
        run_id.to_string(),
        session_id.to_string(),
        user_message.clone(),
    );
    let handle = tokio::spawn(async move {
        // Whether the last write failed: a failing coordinator is reported once, not per write.
        let failing = AtomicBool::new(false);
        let store = |pending: PendingJson| {
            let mut checkpoint = pending();
            if let Value::Object(m) = &mut checkpoint {
                m.insert("run_id".into(), Value::String(run_id.clone()));
                m.insert("session_id".into(), Value::String(session_id.clone()));
                m.insert("user_message".into(), user_message.clone());
                m.insert("written_at".into(), Value::from(now_ms()));
            }
            let (coord, run_id, failing) = (coord.clone(), run_id.clone(), &failing);
            async move {
                let stored = coord.put_checkpoint(&run_id, &checkpoint.to_string()).await;
                let failed = match stored {
                    Ok(()) => false,
                    Err(e) => {
                        if !failing.load(Ordering::Relaxed) {
                            eprintln!(
                                "canvasc serve: run {run_id}: a checkpoint could not be stored ({e}); the run goes on, and a resume would start from an older one"
                            );
                        }
                        true
                    }
                };
                failing.store(failed, Ordering::Relaxed);
            }
        };
        let _ = record_written.await;
        // A crash loses at most CHECKPOINT_GAP of the run's progress.
        let last = newest_per_gap(&mut rx, &store).await;
        // The run is over: its last checkpoint matters only when the run can be resumed (a
        // sender dropped unasked keeps it).
        if let Some(last) = last {
            if keep.await.unwrap_or(true) {
                store(last).await;
            }
        }
    });
    let writer = CheckpointWriter(Arc::new(move |checkpoint| {
        // The receiver lives as long as the writer task; a closed one only loses a checkpoint.
        let _ = tx.send(checkpoint);
    }));
    let written = CheckpointsWritten {
        handle,
        keep: keep_tx,
    };
    (writer, written, recorded)
}

/// The end of a run's checkpoint writer.
pub(crate) struct CheckpointsWritten {
    handle: JoinHandle<()>,
    keep: oneshot::Sender<bool>,
}

impl CheckpointsWritten {
    /// Waits (at most `within`) until the run's last checkpoint is stored, or dropped when
    /// `keep` is false (a run that cannot be resumed has no use for it). Call once the engine's
    /// task is over, so that the run's end (which drops a checkpoint nobody can resume) is
    /// recorded after it.
    pub async fn finish(self, keep: bool, within: std::time::Duration) {
        let _ = self.keep.send(keep);
        let _ = tokio::time::timeout(within, self.handle).await;
    }
}

/// Whether the session's stored messages already hold the run's user message (its turn was
/// saved: the run ended on its replica even if its record says otherwise).
pub(crate) fn saved(state: &Value, run_id: &str) -> bool {
    state
        .get("message")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|m| m["id"] == run_id))
}

/// A run the session's next request meets.
pub(crate) enum Found {
    /// Nothing to go on with: the turn is a new one.
    Nothing,
    /// The run `resume_from` names: this turn goes on with it.
    Asked(Resume),
    /// The session's latest run lost its replica before its turn was saved: it is finished
    /// first (or, when it cannot go on, recorded as interrupted), then the request's own
    /// question runs, so neither is dropped.
    Orphan(Orphan),
}

pub(crate) struct Orphan {
    pub run_id: String,
    pub record: RunRecord,
    /// `None`: the run ended with its replica before its first checkpoint.
    pub resume: Option<Resume>,
}

/// What the session's next request finds. The caller holds the session's lease, so a run
/// still recorded as running has lost its replica.
pub(crate) async fn find(
    app: &AppRef,
    session_id: &str,
    state: &Value,
    resume_from: Option<&str>,
) -> Result<Found, ApiError> {
    let latest = app.coord.last_run(session_id).await?;
    let run_id = match (resume_from, latest) {
        (Some(asked), latest) => {
            if latest.as_deref() != Some(asked) {
                return Err(ApiError::argument(format!(
                    "`resume_from`: run {asked} is not the latest run of session {session_id}; only the latest run can be resumed."
                )));
            }
            asked.to_string()
        }
        (None, Some(latest)) => latest,
        (None, None) => return Ok(Found::Nothing),
    };
    let record = app.coord.run(&run_id).await?;
    let Some(record) = record else {
        return match resume_from {
            Some(_) => Err(ApiError::data(format!(
                "`resume_from`: run {run_id} has no record (it expired)."
            ))),
            None => Ok(Found::Nothing),
        };
    };
    let orphaned = record.status == RunStatus::Running && !saved(state, &run_id);
    if resume_from.is_none() && !orphaned {
        return Ok(Found::Nothing);
    }
    match record.status {
        RunStatus::Succeeded => {
            return Err(ApiError::data(format!(
                "`resume_from`: run {run_id} finished; there is nothing to resume."
            )))
        }
        RunStatus::Waiting => {
            return Err(ApiError::data(format!(
                "`resume_from`: run {run_id} waits for the user's input; answer it with a new turn instead."
            )))
        }
        RunStatus::Running if saved(state, &run_id) => {
            return Err(ApiError::data(format!(
                "`resume_from`: run {run_id} ended and its turn is saved; there is nothing to resume."
            )))
        }
        _ => {}
    }
    let resume = match app.coord.checkpoint(&run_id).await? {
        Some(text) => Some(parsed(&run_id, &text)?),
        None => None,
    };
    if resume_from.is_none() {
        return Ok(Found::Orphan(Orphan {
            run_id,
            record,
            resume,
        }));
    }
    let resume = resume.ok_or_else(|| {
        ApiError::data(format!(
            "`resume_from`: run {run_id} has no checkpoint (it ended before its first batch finished)."
        ))
    })?;
    Ok(Found::Asked(resume))
}

fn parsed(run_id: &str, text: &str) -> Result<Resume, ApiError> {
    let checkpoint: Value = serde_json::from_str(text).map_err(|e| {
        ApiError::data(format!(
            "the checkpoint of run {run_id} is not JSON ({e}); it cannot be resumed."
        ))
    })?;
    let user_message = checkpoint
        .get("user_message")
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Resume {
        run_id: run_id.to_string(),
        checkpoint,
        user_message,
    })
}

/// Records a run that ended without its turn saved and cannot go on by itself: the run's
/// user message goes into the session with `reason` as the turn's error (so the session
/// shows what was asked and why it has no answer), and its record says failed. Its
/// checkpoint, if any, stays: `resume_from` may still go on from it.
pub(crate) async fn interrupted(
    store: &crate::store::Store,
    coord: &crate::coord::Coordinator,
    run_id: &str,
    record: &mut RunRecord,
    reason: &str,
) -> Result<(), ApiError> {
    if let Some(session) = store.session(&record.canvas_id, &record.session_id).await? {
        let mut state = session.state;
        let user: Value = serde_json::from_str(&record.user_message).unwrap_or(Value::Null);
        let unsaved = !user.is_null() && !saved(&state, run_id);
        if let Value::Object(object) = &mut state {
            if unsaved {
                match object.get_mut("message") {
                    Some(Value::Array(list)) => list.push(user),
                    _ => {
                        object.insert("message".into(), Value::from(vec![user]));
                    }
                }
            }
            object.insert("errors".into(), Value::String(reason.to_string()));
        }
        store
            .save_session_state(&record.session_id, &state, now_ms())
            .await?;
    }
    record.status = RunStatus::Failed;
    record.failure_reason = reason.to_string();
    record.finished_at = now_ms();
    coord.put_run(run_id, record).await?;
    Ok(())
}

/// Why a run left `running` by the server's previous process was not finished.
const STOPPED: &str = "the server stopped during the run";

/// At the start of a server that is the only one on its database (in-process coordination):
/// the runs its previous process left running ended with it (`kill -9`, a crash, a power
/// cut). Each is recorded as interrupted, its user message put into its session, and records
/// older than Redis would keep are dropped. Returns how many runs were interrupted.
pub(crate) async fn recover_interrupted(
    store: &crate::store::Store,
    coord: &crate::coord::Coordinator,
) -> Result<usize, ApiError> {
    let expired = now_ms() - crate::coord::RUN_RECORD_TTL.as_millis() as i64;
    store.expire_runs(expired).await?;
    let left = store.running_runs().await?;
    let mut count = 0;
    for row in left {
        let run_id = row.run_id.clone();
        let Some(mut record) = RunRecord::from_row(row) else {
            continue;
        };
        let reason = format!("The run {run_id} was interrupted: {STOPPED}");
        interrupted(store, coord, &run_id, &mut record, &reason).await?;
        count += 1;
    }
    Ok(count)
}
