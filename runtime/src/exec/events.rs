//! The event stream of a run (BS §16.15) and where it goes.

use crate::value::{Json, Map};

/// Where a run's events go: a channel to an SSE response, a printer, a test's vector.
pub trait EventSink: Send {
    fn emit(&mut self, event: Json);
}

impl EventSink for Vec<Json> {
    fn emit(&mut self, event: Json) {
        self.push(event);
    }
}

impl<F: FnMut(Json) + Send> EventSink for F {
    fn emit(&mut self, event: Json) {
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

impl Envelope {
    /// `{"event", "message_id", "created_at", "task_id", "data"}` in RAGFlow's key order.
    pub fn wrap(&self, event: &str, data: Json) -> Json {
        let mut m = Map::new();
        m.insert("event".into(), Json::String(event.to_string()));
        m.insert("message_id".into(), Json::String(self.message_id.clone()));
        m.insert("created_at".into(), Json::from(self.created_at));
        m.insert("task_id".into(), Json::String(self.task_id.clone()));
        m.insert("data".into(), data);
        Json::Object(m)
    }
}

/// Build a JSON object from key/value pairs in order.
pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    let mut m = Map::new();
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
