//! Checkpoints at batch boundaries, so a run whose process died (or that failed, or was
//! cancelled) can go on from where it stood without calling a finished component again.
//!
//! The scheduler hands a [`PendingCheckpoint`] to a [`CheckpointSink`] after every batch whose
//! components all finished; where it goes (Redis, a map, nowhere) is the host's business, so
//! the engine holds no storage configuration. A stored checkpoint ([`Checkpoint`]) is the
//! session as RAGFlow saves it (`str(canvas)`) plus the few things a turn keeps outside the DSL
//! ([`ResumePoint`]).
//!
//! Why pending: writing the DSL costs the whole canvas (every component's parameters), and a
//! fast run passes a boundary every few microseconds, while a host stores a few checkpoints a
//! second at most (the newest wins). At a boundary the scheduler only copies the run's values
//! (what the run holds, never the canvas), and the DSL is written for the checkpoints a host
//! actually stores.
//!
//! What "finished" means: a component whose `node_finished` was sent. A component whose
//! answer still streams into a Message has not finished, so a boundary with such a stream
//! pending writes no checkpoint (the stream cannot be saved); resuming from the one before
//! calls that component again, which is right, since its answer was never delivered.

use crate::persist;
use crate::state::RunState;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_value::{Json, Map};
use serde_json::json;
use std::sync::Arc;

/// The engine's version, written with every checkpoint: a checkpoint is resumed only by the
/// engine that wrote it (state shapes may differ between versions).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where a resumed turn goes on: what [`crate::scheduler`] keeps in its locals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResumePoint {
    /// The path index the next batch starts at.
    pub next: usize,
    /// Component invocations so far this turn (the step limit counts across a resume).
    pub steps: usize,
    /// The turn itself continued a UserFillUp pause (the dependency check is off).
    pub resumed: bool,
    /// The turn's form values (`inputs`), which Begin and UserFillUp read.
    pub inputs: Option<Json>,
    /// IterationItem/LoopItem counters (`_idx`), which the DSL does not save: without them a
    /// half-done Iteration would start over. `(component id, counter)`, non-zero ones.
    pub counters: Vec<(String, i64)>,
    /// Components of the last batch that failed (or were cancelled): called again on resume,
    /// their state cleared first. The batch's other components finished and are not.
    pub retry: Vec<String>,
}

impl ResumePoint {
    pub fn to_json(&self) -> Json {
        json!({
            "next": self.next,
            "steps": self.steps,
            "resumed": self.resumed,
            "inputs": self.inputs,
            "counters": self.counters.iter().map(|(id, c)| json!([id, c])).collect::<Vec<_>>(),
            "retry": self.retry,
        })
    }

    /// Reads [`ResumePoint::to_json`] back; the error names the field.
    pub fn from_json(v: &Json) -> Result<ResumePoint, String> {
        let field = |name: &str| v.get(name).ok_or(format!("checkpoint: no `{name}`"));
        let count = |name: &str| -> Result<usize, String> {
            field(name)?
                .as_u64()
                .map(|n| n as usize)
                .ok_or(format!("checkpoint: `{name}` is not a count"))
        };
        let counters = match field("counters")? {
            Json::Array(items) => items
                .iter()
                .map(|item| match item.as_array().map(Vec::as_slice) {
                    Some([Json::String(id), c]) => c
                        .as_i64()
                        .map(|c| (id.clone(), c))
                        .ok_or(format!("checkpoint: counter of `{id}` is not an integer")),
                    _ => Err("checkpoint: `counters` holds a malformed entry".to_string()),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("checkpoint: `counters` is not a list".into()),
        };
        let retry = match field("retry")? {
            Json::Array(items) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or("checkpoint: `retry` holds a non-string".to_string())
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("checkpoint: `retry` is not a list".into()),
        };
        Ok(ResumePoint {
            next: count("next")?,
            steps: count("steps")?,
            resumed: field("resumed")?.as_bool().unwrap_or(false),
            inputs: v.get("inputs").filter(|i| !i.is_null()).cloned(),
            counters,
            retry,
        })
    }
}

/// The session at a batch boundary.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The session as `str(canvas)` saves it.
    pub dsl: Json,
    pub point: ResumePoint,
    /// Batches finished this turn (1 for the first boundary), counted across resumes.
    pub batch: u64,
}

impl Checkpoint {
    /// `{"dsl", "resume", "batch"}`: what hosts store (they add their own keys beside these).
    /// Takes the checkpoint: its DSL holds every output of the run, and a copy of a large one
    /// (a spreadsheet's rows) would double what a checkpoint costs.
    pub fn into_json(self) -> Json {
        let mut m = Map::new();
        m.insert("dsl".into(), self.dsl);
        m.insert("resume".into(), self.point.to_json());
        m.insert("batch".into(), Json::from(self.batch));
        Json::Object(m)
    }

    /// Reads [`Checkpoint::into_json`] back (extra keys are ignored).
    pub fn from_json(v: &Json) -> Result<Checkpoint, String> {
        let dsl = v.get("dsl").cloned().ok_or("checkpoint: no `dsl`")?;
        if !dsl.is_object() {
            return Err("checkpoint: `dsl` is not an object".into());
        }
        let point = ResumePoint::from_json(v.get("resume").ok_or("checkpoint: no `resume`")?)?;
        let batch = v.get("batch").and_then(Json::as_u64).unwrap_or(0);
        Ok(Checkpoint { dsl, point, batch })
    }
}

/// The session at a batch boundary, before its DSL is written: the run's values copied at the
/// boundary, with the canvas they are written into ([`PendingCheckpoint::build`]).
pub struct PendingCheckpoint {
    pub(crate) meta: Arc<CanvasMeta>,
    pub(crate) dsl: Arc<Map<String, Json>>,
    pub(crate) state: RunState,
    /// The path to save instead of the state's (a failed batch's checkpoint keeps what its
    /// finished components appended, not what the failed ones did).
    pub(crate) path: Option<Vec<Target>>,
    pub point: ResumePoint,
    /// Batches finished this turn (1 for the first boundary), counted across resumes.
    pub batch: u64,
}

impl PendingCheckpoint {
    /// The checkpoint as stored: the session's DSL (`str(canvas)`) at the boundary.
    pub fn build(self) -> Checkpoint {
        let mut dsl = persist::state_to_dsl(&self.meta, &self.state, &self.dsl);
        if let (Some(path), Json::Object(m)) = (&self.path, &mut dsl) {
            let ids = path
                .iter()
                .map(|t| Json::String(persist::target_id(&self.meta, t)));
            m.insert("path".into(), Json::Array(ids.collect()));
        }
        Checkpoint {
            dsl,
            point: self.point,
            batch: self.batch,
        }
    }
}

impl std::fmt::Debug for PendingCheckpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCheckpoint")
            .field("point", &self.point)
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

/// Receives checkpoints. Called on the run's task between batches: it must not block (hosts
/// queue the write, and build the checkpoint when they store it).
pub trait CheckpointSink: Send + Sync {
    fn batch_done(&self, checkpoint: PendingCheckpoint);
}

impl<F: Fn(PendingCheckpoint) + Send + Sync> CheckpointSink for F {
    fn batch_done(&self, checkpoint: PendingCheckpoint) {
        self(checkpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back() {
        let cp = Checkpoint {
            dsl: json!({"components": {}, "path": ["begin"]}),
            point: ResumePoint {
                next: 3,
                steps: 4,
                resumed: true,
                inputs: Some(json!({"a": {"value": 1}})),
                counters: vec![("IterationItem:x".into(), 2)],
                retry: vec!["LLM:a".into()],
            },
            batch: 2,
        };
        let back = Checkpoint::from_json(&cp.clone().into_json()).expect("reads back");
        assert_eq!(back.point, cp.point);
        assert_eq!(back.dsl, cp.dsl);
        assert_eq!(back.batch, 2);
        assert!(Checkpoint::from_json(&json!({"dsl": 1})).is_err());
    }
}
