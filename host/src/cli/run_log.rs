//! What the terminal learns from a run besides its stream: every event with the moment it
//! arrived (for `--timeline`), and the failures a person must be told about (the summary on
//! stderr). RAGFlow reports a failed model call as answer text (`**ERROR**: …`) and a failed
//! component in `node_finished.error`; both are easy to miss in a stream that ends with
//! `workflow_finished`, so they are collected here without changing the stream.

use canvasc_value::Json;
use std::time::Instant;

/// The text RAGFlow puts in front of a failed model or tool call's answer.
const ERROR_MARK: &str = "**ERROR**";

/// The longest excerpt of a failure the summary shows (characters).
const EXCERPT: usize = 240;

/// One event and when it arrived, in seconds since the run started.
pub struct Logged {
    pub at: f64,
    pub event: Json,
}

/// The events of one run, as they arrived.
pub struct RunLog {
    started: Instant,
    pub events: Vec<Logged>,
}

/// A failure the summary names: who failed and why, in one line.
#[derive(Debug, PartialEq)]
pub struct Failure {
    /// The component's id.
    pub id: String,
    /// How the summary names it (`id "display name" (Kind)`).
    pub component: String,
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.component, self.reason)
    }
}

impl Default for RunLog {
    fn default() -> Self {
        RunLog {
            started: Instant::now(),
            events: Vec::new(),
        }
    }
}

impl RunLog {
    pub fn record(&mut self, event: &Json) {
        self.events.push(Logged {
            at: self.started.elapsed().as_secs_f64(),
            event: event.clone(),
        });
    }

    /// Seconds since the run started.
    pub fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Every component that failed (`node_finished.error`) and every answer that carries
    /// RAGFlow's error text, in the order they happened; one entry per component and cause.
    pub fn failures(&self) -> Vec<Failure> {
        let mut found: Vec<Failure> = Vec::new();
        let mut push = |f: Failure| {
            if !found.contains(&f) {
                found.push(f);
            }
        };
        // Streamed answers arrive as `message` pieces between a Message's start and its
        // `message_end`; they belong to the Message that started last.
        let mut speaker = (String::new(), String::from("the answer"));
        let mut answer = String::new();
        for Logged { event, .. } in &self.events {
            let data = &event["data"];
            match event["event"].as_str().unwrap_or("") {
                "node_started" if data["component_type"].as_str() == Some("Message") => {
                    speaker = (id_of(data), component(data));
                }
                "message" => {
                    if let Some(piece) = data["content"].as_str() {
                        answer.push_str(piece);
                    }
                }
                "message_end" => {
                    if let Some(reason) = error_excerpt(&answer) {
                        push(Failure {
                            id: speaker.0.clone(),
                            component: speaker.1.clone(),
                            reason: format!("the answer carries a failed call: {reason}"),
                        });
                    }
                    answer.clear();
                }
                "node_finished" => {
                    let (id, who) = (id_of(data), component(data));
                    match &data["error"] {
                        Json::Null => {}
                        Json::String(e) => push(Failure {
                            id: id.clone(),
                            component: who.clone(),
                            reason: format!("failed: {}", one_line(e)),
                        }),
                        other => push(Failure {
                            id: id.clone(),
                            component: who.clone(),
                            reason: format!("failed: {other}"),
                        }),
                    }
                    if let Some(reason) = outputs_error(&data["outputs"]) {
                        push(Failure {
                            id,
                            component: who,
                            reason: format!("a call failed: {reason}"),
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some(reason) = error_excerpt(&answer) {
            push(Failure {
                id: speaker.0,
                component: speaker.1,
                reason: format!("the answer carries a failed call: {reason}"),
            });
        }
        found
    }
}

/// Failures the stream does not show, read from the saved session (`str(canvas)`): a model
/// streaming into a Message that fails leaves only its `_ERROR` output, since RAGFlow sends
/// no `node_finished` for a stream that did not complete. Components `shown` already names
/// with the same error are left out.
pub fn state_failures(saved: &Json, shown: &[Failure]) -> Vec<Failure> {
    let Some(Json::Object(components)) = saved.get("components") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (id, entry) in components {
        let obj = &entry["obj"];
        let Some(error) = obj["params"]["outputs"]["_ERROR"]["value"].as_str() else {
            continue;
        };
        let error = one_line(error);
        if error.is_empty()
            || shown
                .iter()
                .any(|f| f.id == *id && f.reason.contains(&error))
        {
            continue;
        }
        let kind = obj["component_name"].as_str().unwrap_or("");
        found.push(Failure {
            id: id.clone(),
            component: format!("{id} ({kind})"),
            reason: format!("failed: {error}"),
        });
    }
    found
}

fn id_of(data: &Json) -> String {
    data["component_id"].as_str().unwrap_or("?").to_string()
}

/// `id "display name" (Kind)`, as the pretty format names a component.
pub fn component(data: &Json) -> String {
    let id = data["component_id"].as_str().unwrap_or("?");
    let kind = data["component_type"].as_str().unwrap_or("");
    match data["component_name"].as_str() {
        Some(name) if !name.is_empty() && name != id => format!("{id} \"{name}\" ({kind})"),
        _ => format!("{id} ({kind})"),
    }
}

/// The first output (other than `_ERROR`, reported as `error`) whose text carries RAGFlow's
/// error mark.
fn outputs_error(outputs: &Json) -> Option<String> {
    outputs
        .as_object()?
        .iter()
        .filter(|(k, _)| k.as_str() != "_ERROR")
        .find_map(|(_, v)| v.as_str().and_then(error_excerpt))
}

/// The line of `text` from RAGFlow's error mark on, cut to [`EXCERPT`] characters.
fn error_excerpt(text: &str) -> Option<String> {
    let at = text.find(ERROR_MARK)?;
    Some(one_line(&text[at..]))
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > EXCERPT {
        let cut: String = line.chars().take(EXCERPT).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log(events: Vec<Json>) -> RunLog {
        let mut log = RunLog::default();
        for e in &events {
            log.record(e);
        }
        log
    }

    #[test]
    fn names_failed_components_and_error_answers_once() {
        let node = |id: &str, kind: &str| json!({"component_id": id, "component_name": id, "component_type": kind});
        let mut finished = node("Agent:A", "Agent");
        finished["error"] = json!("boom\nmore");
        finished["outputs"] =
            json!({"content": "**ERROR**: MAX_RETRIES_EXCEEDED - Connection error."});
        let log = log(vec![
            json!({"event": "node_started", "data": node("Message:M", "Message")}),
            json!({"event": "message", "data": {"content": "**ERROR**: CONNECTION_ERROR"}}),
            json!({"event": "message", "data": {"content": " - refused"}}),
            json!({"event": "message_end", "data": {}}),
            json!({"event": "node_finished", "data": finished}),
        ]);
        let lines: Vec<String> = log.failures().iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "Message:M (Message): the answer carries a failed call: **ERROR**: CONNECTION_ERROR - refused",
                "Agent:A (Agent): failed: boom",
                "Agent:A (Agent): a call failed: **ERROR**: MAX_RETRIES_EXCEEDED - Connection error.",
            ]
        );
    }

    #[test]
    fn a_clean_run_has_no_failures() {
        let log = log(vec![
            json!({"event": "node_finished", "data": {"component_id": "begin", "error": null, "outputs": {"content": "fine"}}}),
        ]);
        assert!(log.failures().is_empty());
    }
}
