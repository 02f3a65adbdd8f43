//! Resuming a run from its last checkpoint (`agent:cp:{run_id}`): asked for by `resume_from`
//! (a run that failed, was cancelled, or whose replica died), or found by the session's next
//! request when the session's latest run is still recorded as running although nobody holds
//! its lease any more (its replica died). Checkpoints are written by [`writer`] as the engine
//! hands them over, one at every batch boundary.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::clock::now_ms;
use crate::coord::{RunRecord, RunStatus};
use crate::envelope::ApiError;
use crate::shared::Shared;
use crate::turn::CheckpointWriter;

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
/// behind; the server's keys (`run_id`, `session_id`, `user_message`) are added to each. The
/// handle ends once every writer is dropped and the last checkpoint is stored, so the run's
/// end (which drops a checkpoint nobody can resume) is recorded after it.
pub(crate) fn writer(
    app: &Shared,
    run_id: &str,
    session_id: &str,
    user_message: &Value,
) -> (CheckpointWriter, JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    let coord = app.coord.clone();
    let (run_id, session_id, user_message) = (
        run_id.to_string(),
        session_id.to_string(),
        user_message.clone(),
    );
    let written = tokio::spawn(async move {
        let mut failing = false;
        while let Some(mut checkpoint) = rx.recv().await {
            while let Ok(newer) = rx.try_recv() {
                checkpoint = newer;
            }
            if let Value::Object(m) = &mut checkpoint {
                m.insert("run_id".into(), Value::String(run_id.clone()));
                m.insert("session_id".into(), Value::String(session_id.clone()));
                m.insert("user_message".into(), user_message.clone());
                m.insert("written_at".into(), Value::from(now_ms()));
            }
            match coord.put_checkpoint(&run_id, &checkpoint.to_string()).await {
                Ok(()) => failing = false,
                Err(e) if !failing => {
                    failing = true;
                    eprintln!(
                        "canvasc serve: run {run_id}: a checkpoint could not be stored ({e}); the run goes on, and a resume would start from an older one"
                    );
                }
                Err(_) => {}
            }
        }
    });
    let writer = CheckpointWriter(Arc::new(move |checkpoint| {
        // The receiver lives as long as the writer task; a closed one only loses a checkpoint.
        let _ = tx.send(checkpoint);
    }));
    (writer, written)
}

/// Whether the session's stored messages already hold the run's user message (its turn was
/// saved: the run ended on its replica even if its record says otherwise).
pub(crate) fn saved(state: &Value, run_id: &str) -> bool {
    state
        .get("message")
        .and_then(Value::as_array)
        .is_some_and(|list| list.iter().any(|m| m["id"] == run_id))
}

/// The run the turn goes on with, if any. The caller holds the session's lease, so a run
/// still recorded as running has lost its replica.
pub(crate) async fn find(
    app: &Shared,
    session_id: &str,
    state: &Value,
    resume_from: Option<&str>,
) -> Result<Option<Resume>, ApiError> {
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
        (None, None) => return Ok(None),
    };
    let record = app.coord.run(&run_id).await?;
    let Some(mut record) = record else {
        return match resume_from {
            Some(_) => Err(ApiError::data(format!(
                "`resume_from`: run {run_id} has no record (it expired)."
            ))),
            None => Ok(None),
        };
    };
    let orphaned = record.status == RunStatus::Running && !saved(state, &run_id);
    if resume_from.is_none() && !orphaned {
        return Ok(None);
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
    let Some(text) = app.coord.checkpoint(&run_id).await? else {
        if orphaned {
            // Nothing to go on from: the run ended with its replica. Its record says so, and
            // this request starts a new turn.
            record.status = RunStatus::Failed;
            record.failure_reason = "its replica stopped before the run's first checkpoint".into();
            record.finished_at = now_ms();
            let _ = mark(app, &run_id, &record).await;
            if resume_from.is_none() {
                return Ok(None);
            }
        }
        return Err(ApiError::data(format!(
            "`resume_from`: run {run_id} has no checkpoint (it ended before its first batch finished)."
        )));
    };
    let checkpoint: Value = serde_json::from_str(&text).map_err(|e| {
        ApiError::data(format!(
            "the checkpoint of run {run_id} is not JSON ({e}); it cannot be resumed."
        ))
    })?;
    let user_message = checkpoint
        .get("user_message")
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Some(Resume {
        run_id,
        checkpoint,
        user_message,
    }))
}

async fn mark(app: &Shared, run_id: &str, record: &RunRecord) -> Result<(), ApiError> {
    app.coord.put_run(run_id, record).await?;
    Ok(())
}
