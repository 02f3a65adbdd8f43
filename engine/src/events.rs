//! The event stream of a run (BS §16.15) and where it goes.
//!
//! An event is handed to the sink while the run's state is borrowed: node events refer to the
//! static canvas facts and to the node's live tables instead of copying them, and RAGFlow's
//! JSON is built only by a sink that needs it ([`Event::to_json`]).

use super::state::{InputKeys, NodeState};
use canvasc_frontend::meta::NodeMeta;
use canvasc_value::{Json, Map};
use std::borrow::Cow;

/// Where a run's events go: a channel to an SSE response, a printer, a test's vector.
pub trait EventSink: Send {
    fn emit(&mut self, event: Event<'_>);
}

impl EventSink for Vec<Json> {
    fn emit(&mut self, event: Event<'_>) {
        self.push(event.to_json());
    }
}

impl<F: FnMut(Event<'_>) + Send> EventSink for F {
    fn emit(&mut self, event: Event<'_>) {
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
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    pub envelope: &'a Envelope,
    pub payload: &'a Payload<'a>,
}

/// What an event says.
#[derive(Clone, Debug)]
pub enum Payload<'a> {
    NodeStarted {
        node: &'a NodeMeta,
        created_at: i64,
        thoughts: Cow<'a, str>,
    },
    NodeFinished {
        node: &'a NodeMeta,
        /// The node's tables as they are when the event is sent.
        state: &'a NodeState,
        inputs: InputKeys<'a>,
        /// `perf_counter()` when the event is sent.
        now: f64,
    },
    /// Any other event: its name and its `data` as RAGFlow writes it.
    Other { name: &'static str, data: Json },
}

impl Event<'_> {
    pub fn name(&self) -> &'static str {
        match self.payload {
            Payload::NodeStarted { .. } => "node_started",
            Payload::NodeFinished { .. } => "node_finished",
            Payload::Other { name, .. } => name,
        }
    }

    /// The event's `data` in RAGFlow's key order.
    pub fn data(&self) -> Json {
        match self.payload {
            Payload::NodeStarted {
                node,
                created_at,
                thoughts,
            } => obj([
                ("inputs", Json::Null),
                ("created_at", Json::from(*created_at)),
                ("component_id", Json::String(node.id.clone())),
                ("component_name", Json::String(node.display_name.clone())),
                ("component_type", Json::String(node.component_name.clone())),
                ("thoughts", Json::String(thoughts.to_string())),
            ]),
            Payload::NodeFinished {
                node,
                state,
                inputs,
                now,
            } => {
                let created = state.created_time();
                obj([
                    ("inputs", state.input_values(inputs)),
                    ("outputs", state.outputs_json()),
                    ("component_id", Json::String(node.id.clone())),
                    ("component_name", Json::String(node.display_name.clone())),
                    ("component_type", Json::String(node.component_name.clone())),
                    ("error", state.error_value()),
                    ("elapsed_time", Json::from(created.map_or(0.0, |c| now - c))),
                    (
                        "created_at",
                        created.map_or(Json::String(String::new()), Json::from),
                    ),
                ])
            }
            Payload::Other { data, .. } => data.clone(),
        }
    }

    /// `{"event", "message_id", "created_at", "task_id", "data"}` as RAGFlow sends it.
    pub fn to_json(&self) -> Json {
        let e = self.envelope;
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
