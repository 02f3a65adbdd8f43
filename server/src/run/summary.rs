//! What a turn's events add up to: the answer text, the references, usage, structured outputs,
//! the component trace, and the event the non-streaming answer is built on (`http-api.md`
//! §7.4). The transcript, the run log and every framing read it.

use canvasc_value::py::truthy;
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
    /// `[{"component_id", "trace": [<node_finished data>…]}]` in first-finish order.
    pub trace: Vec<Value>,
    /// Where each component's entry is in `trace`: a long run finishes thousands of
    /// components, and searching the list for each made the run's cost grow with its square.
    trace_at: std::collections::HashMap<String, usize>,
    pub last_message_end: Option<Value>,
    pub user_inputs: Option<Value>,
    pub last_event: Option<Value>,
    pub events: usize,
    /// `workflow_finished`'s elapsed time.
    pub elapsed: f64,
}

impl Summary {
    /// Takes in one event (`event`, `data`); `frame` is the full frame as sent.
    pub fn observe(&mut self, event: &str, data: &Value, frame: &Value) {
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
                self.last_message_end = Some(frame.clone());
            }
            "user_inputs" => self.user_inputs = Some(frame.clone()),
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
        self.last_event = Some(frame.clone());
    }

    fn add_trace(&mut self, data: &Value) {
        let id = data.get("component_id").cloned().unwrap_or(Value::Null);
        let mut entry = data.clone();
        if let Some(object) = entry.as_object_mut() {
            object.remove("trace");
        }
        // Ids are strings; anything else is keyed by its JSON text, as distinct as the value.
        let key = match &id {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        match self.trace_at.get(&key) {
            Some(&at) => {
                if let Some(list) = self.trace[at]["trace"].as_array_mut() {
                    list.push(entry);
                }
            }
            None => {
                self.trace_at.insert(key, self.trace.len());
                self.trace
                    .push(json!({"component_id": id, "trace": [entry]}));
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
        let Some(mut event) = self
            .last_message_end
            .clone()
            .or_else(|| self.user_inputs.clone())
            .or_else(|| self.last_event.clone())
        else {
            return json!({"session_id": session_id});
        };
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
            data.insert("trace".into(), Value::from(self.trace.clone()));
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
        let frame = json!({});
        s.observe(
            "message",
            &json!({"content": "", "start_to_think": true}),
            &frame,
        );
        s.observe("message", &json!({"content": "hm"}), &frame);
        s.observe(
            "message",
            &json!({"content": "", "end_to_think": true}),
            &frame,
        );
        s.observe("message", &json!({"content": "yes"}), &frame);
        s.observe(
            "message_end",
            &json!({"reference": {"chunks": {"1": {"id": "a"}}, "doc_aggs": {}}}),
            &json!({"event": "message_end", "data": {}}),
        );
        assert_eq!(s.content, "<think>hm</think>yes");
        assert!(s.has_reference());
        let end = s.final_event("sid", false);
        assert_eq!(end["data"]["content"], "<think>hm</think>yes");
        assert_eq!(end["data"]["reference"]["chunks"]["1"]["id"], "a");
    }

    #[test]
    fn no_event_answers_the_session_alone() {
        assert_eq!(
            Summary::default().final_event("sid", true),
            json!({"session_id": "sid"})
        );
    }
}
