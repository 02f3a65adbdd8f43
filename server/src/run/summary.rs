//! What a turn's events add up to: the answer text, the references, usage, structured outputs,
//! the component trace, and the event the non-streaming answer is built on (`http-api.md`
//! §7.4). The transcript, the run log and every framing read it.

use std::sync::Arc;

use canvasc_value::py::truthy;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

#[derive(Default, Debug)]
pub(crate) struct Summary {
    /// Every `message` delta, with `<think>`/`</think>` where the think markers were.
    pub content: String,
    /// The `message` deltas alone: RAGFlow's OpenAI-compatible whole answer joins these and
    /// adds no think markers (`canvas_service.completion_openai`).
    pub deltas: String,
    /// All references seen, merged (`chunks`, `doc_aggs`).
    pub reference: Map<String, Value>,
    pub usage: Option<Value>,
    /// `{component_id: outputs.structured}`.
    pub structured: Map<String, Value>,
    /// The component trace in first-finish order.
    trace: Vec<TraceEntry>,
    /// Where each component's entry is in `trace`: a long run finishes thousands of
    /// components, and searching the list for each made the run's cost grow with its square.
    trace_at: std::collections::HashMap<String, usize>,
    /// The frames the non-streaming answer may be built on, shared with the framing rather
    /// than copied: a frame holds a component's outputs, which can be a spreadsheet's rows.
    pub last_message_end: Option<Arc<Value>>,
    pub user_inputs: Option<Arc<Value>>,
    pub last_event: Option<Arc<Value>>,
    pub events: usize,
    /// `workflow_finished`'s elapsed time.
    pub elapsed: f64,
}

/// One component's calls: `{"component_id", "trace": [<node_finished data>…]}`. Each call is
/// kept as its JSON text, a fraction of the size of the parsed value it came from (a
/// component's outputs can be a spreadsheet's rows), and what the run log stores anyway.
#[derive(Debug, serde::Serialize)]
struct TraceEntry {
    component_id: Value,
    trace: Vec<Box<RawValue>>,
}

/// A `node_finished` data object as the trace records it: without the trace it may carry.
struct WithoutTrace<'a>(&'a Map<String, Value>);

impl Serialize for WithoutTrace<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0.iter().filter(|(key, _)| *key != "trace") {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Summary {
    /// Takes in one event's name and data, before the framing gets its frame.
    pub fn observe(&mut self, event: &str, data: &Value) {
        self.events += 1;
        match event {
            "message" => {
                if let Some(text) = data.get("content").and_then(Value::as_str) {
                    self.content.push_str(text);
                    self.deltas.push_str(text);
                }
                if data.get("start_to_think").is_some_and(truthy) {
                    self.content.push_str("<think>");
                } else if data.get("end_to_think").is_some_and(truthy) {
                    self.content.push_str("</think>");
                }
            }
            "message_end" => {
                if let Some(reference) = data.get("reference") {
                    self.merge_reference(reference);
                }
            }
            "node_finished" => {
                if let Some(structured) = data.pointer("/outputs/structured") {
                    if let Some(id) = data.get("component_id").and_then(Value::as_str) {
                        self.structured.insert(id.to_string(), structured.clone());
                    }
                }
                self.add_trace(data);
            }
            "workflow_finished" => {
                self.usage = data.get("usage").cloned();
                self.elapsed = data
                    .get("elapsed_time")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
            }
            _ => {}
        }
    }

    /// Keeps the frame of an event [`Summary::observe`] took in, as sent.
    pub fn keep(&mut self, event: &str, frame: &Arc<Value>) {
        match event {
            "message_end" => self.last_message_end = Some(frame.clone()),
            "user_inputs" => self.user_inputs = Some(frame.clone()),
            _ => {}
        }
        self.last_event = Some(frame.clone());
    }

    /// The trace as RAGFlow's `node_finished` and the non-streaming answer carry it.
    pub fn trace_value(&self) -> Value {
        // Values and JSON texts they were written from always read back.
        serde_json::to_value(&self.trace).unwrap_or_default()
    }

    /// The trace as the run log stores it.
    pub fn trace_text(&self) -> String {
        serde_json::to_string(&self.trace).unwrap_or_else(|_| "[]".into())
    }

    fn add_trace(&mut self, data: &Value) {
        let id = data.get("component_id").cloned().unwrap_or(Value::Null);
        let entry = match data {
            Value::Object(map) => serde_json::value::to_raw_value(&WithoutTrace(map)),
            other => serde_json::value::to_raw_value(other),
        };
        // A JSON value always serializes.
        let Ok(entry) = entry else {
            return;
        };
        // Ids are strings; anything else is keyed by its JSON text, as distinct as the value.
        let key = match &id {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        match self.trace_at.get(&key) {
            Some(&at) => self.trace[at].trace.push(entry),
            None => {
                self.trace_at.insert(key, self.trace.len());
                self.trace.push(TraceEntry {
                    component_id: id,
                    trace: vec![entry],
                });
            }
        }
    }

    fn merge_reference(&mut self, reference: &Value) {
        let Some(reference) = reference.as_object() else {
            return;
        };
        for (key, value) in reference {
            match (self.reference.get_mut(key), value) {
                (Some(Value::Object(mine)), Value::Object(more)) => {
                    for (k, v) in more {
                        mine.insert(k.clone(), v.clone());
                    }
                }
                (Some(Value::Array(mine)), Value::Array(more)) => mine.extend(more.iter().cloned()),
                _ => {
                    self.reference.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// Whether the references hold any chunk.
    pub fn has_reference(&self) -> bool {
        match self.reference.get("chunks") {
            Some(Value::Object(c)) => !c.is_empty(),
            Some(Value::Array(c)) => !c.is_empty(),
            _ => false,
        }
    }

    /// The non-streaming answer's `data` (§7.4): the final event with the aggregated fields.
    pub fn final_event(&self, session_id: &str, return_trace: bool) -> Value {
        let Some(kept) = self
            .last_message_end
            .as_ref()
            .or(self.user_inputs.as_ref())
            .or(self.last_event.as_ref())
        else {
            return json!({"session_id": session_id});
        };
        let mut event = Value::clone(kept);
        let mut data = match event.get("data") {
            Some(Value::Object(d)) => d.clone(),
            _ => Map::new(),
        };
        data.insert("content".into(), Value::String(self.content.clone()));
        data.insert("reference".into(), Value::Object(self.reference.clone()));
        if let Some(usage) = &self.usage {
            data.insert("usage".into(), usage.clone());
        }
        if !self.structured.is_empty() {
            data.insert("structured".into(), Value::Object(self.structured.clone()));
        }
        if return_trace {
            data.insert("trace".into(), self.trace_value());
        } else {
            data.remove("trace");
        }
        event["data"] = Value::Object(data);
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_markers_and_references_aggregate() {
        let mut s = Summary::default();
        s.observe("message", &json!({"content": "", "start_to_think": true}));
        s.observe("message", &json!({"content": "hm"}));
        s.observe("message", &json!({"content": "", "end_to_think": true}));
        s.observe("message", &json!({"content": "yes"}));
        let data = json!({"reference": {"chunks": {"1": {"id": "a"}}, "doc_aggs": {}}});
        s.observe("message_end", &data);
        s.keep(
            "message_end",
            &Arc::new(json!({"event": "message_end", "data": {}})),
        );
        assert_eq!(s.content, "<think>hm</think>yes");
        assert!(s.has_reference());
        let end = s.final_event("sid", false);
        assert_eq!(end["data"]["content"], "<think>hm</think>yes");
        assert_eq!(end["data"]["reference"]["chunks"]["1"]["id"], "a");
    }

    #[test]
    fn the_trace_groups_calls_by_component_without_the_trace_they_carried() {
        let mut s = Summary::default();
        let finished = |id: &str, n: u32| json!({"component_id": id, "outputs": {"n": n}, "trace": [{"stale": true}]});
        s.observe("node_finished", &finished("a", 1));
        s.observe("node_finished", &finished("b", 2));
        s.observe("node_finished", &finished("a", 3));
        let expected = json!([
            {"component_id": "a", "trace": [
                {"component_id": "a", "outputs": {"n": 1}},
                {"component_id": "a", "outputs": {"n": 3}}]},
            {"component_id": "b", "trace": [{"component_id": "b", "outputs": {"n": 2}}]},
        ]);
        assert_eq!(s.trace_value(), expected);
        assert_eq!(
            serde_json::from_str::<Value>(&s.trace_text()).ok(),
            Some(expected)
        );
    }

    #[test]
    fn no_event_answers_the_session_alone() {
        assert_eq!(
            Summary::default().final_event("sid", true),
            json!({"session_id": "sid"})
        );
    }
}
