//! The event stream of a run (BS §16.15) and where it goes.
//!
//! Events are built cheaply while the run goes (node events refer to the static canvas facts
//! instead of copying names) and turned into RAGFlow's JSON only by the sink that needs it.

use super::meta::CanvasMeta;
use crate::frontend::ir::NodeId;
use crate::value::{Json, Map};
use std::sync::Arc;

/// Where a run's events go: a channel to an SSE response, a printer, a test's vector.
pub trait EventSink: Send {
    fn emit(&mut self, event: Event);
}

impl EventSink for Vec<Json> {
    fn emit(&mut self, event: Event) {
        self.push(event.to_json());
    }
}

impl<F: FnMut(Event) + Send> EventSink for F {
    fn emit(&mut self, event: Event) {
        self(event)
    }
}

/// The envelope every event of one run carries.
#[derive(Clone, Debug)]
pub struct Envelope {
    pub message_id: String,
    /// Epoch seconds at run start.
    pub created_at: i64,
    pub task_id: String,
}

/// One event of a run.
#[derive(Clone, Debug)]
pub struct Event {
    pub envelope: Arc<Envelope>,
    pub payload: Payload,
}

/// What an event says.
#[derive(Clone, Debug)]
pub enum Payload {
    NodeStarted {
        meta: Arc<CanvasMeta>,
        node: NodeId,
        created_at: i64,
        thoughts: std::borrow::Cow<'static, str>,
    },
    NodeFinished {
        meta: Arc<CanvasMeta>,
        node: NodeId,
        inputs: Json,
        outputs: Json,
        error: Option<String>,
        elapsed_time: f64,
        /// `_created_time`, absent when the wrapper returned before setting it.
        created_at: Option<f64>,
    },
    /// Any other event: its name and its `data` as RAGFlow writes it.
    Other { name: &'static str, data: Json },
}

impl Event {
    pub fn name(&self) -> &'static str {
        match &self.payload {
            Payload::NodeStarted { .. } => "node_started",
            Payload::NodeFinished { .. } => "node_finished",
            Payload::Other { name, .. } => name,
        }
    }

    /// The event's `data` in RAGFlow's key order.
    pub fn data(&self) -> Json {
        match &self.payload {
            Payload::NodeStarted {
                meta,
                node,
                created_at,
                thoughts,
            } => {
                let n = meta.node(*node);
                obj([
                    ("inputs", Json::Null),
                    ("created_at", Json::from(*created_at)),
                    ("component_id", Json::String(n.id.clone())),
                    ("component_name", Json::String(n.display_name.clone())),
                    ("component_type", Json::String(n.component_name.clone())),
                    ("thoughts", Json::String(thoughts.to_string())),
                ])
            }
            Payload::NodeFinished {
                meta,
                node,
                inputs,
                outputs,
                error,
                elapsed_time,
                created_at,
            } => {
                let n = meta.node(*node);
                obj([
                    ("inputs", inputs.clone()),
                    ("outputs", outputs.clone()),
                    ("component_id", Json::String(n.id.clone())),
                    ("component_name", Json::String(n.display_name.clone())),
                    ("component_type", Json::String(n.component_name.clone())),
                    ("error", error.clone().map_or(Json::Null, Json::String)),
                    ("elapsed_time", float(*elapsed_time)),
                    (
                        "created_at",
                        created_at.map_or(Json::String(String::new()), float),
                    ),
                ])
            }
            Payload::Other { data, .. } => data.clone(),
        }
    }

    /// `{"event", "message_id", "created_at", "task_id", "data"}` as RAGFlow sends it.
    pub fn to_json(&self) -> Json {
        let e = &self.envelope;
        obj([
            ("event", Json::String(self.name().to_string())),
            ("message_id", Json::String(e.message_id.clone())),
            ("created_at", Json::from(e.created_at)),
            ("task_id", Json::String(e.task_id.clone())),
            ("data", self.data()),
        ])
    }
}

/// Build a JSON object from key/value pairs in order.
pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    let mut m = Map::with_capacity(N);
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Json::Object(m)
}

/// A float as Python would carry it (non-finite values have no JSON form; RAGFlow never
/// produces them in events).
pub fn float(f: f64) -> Json {
    serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
}
