//! A session's state as the server works with it, and as its row stores it.
//!
//! The server works with RAGFlow's session document (transcript, references, counters) less
//! its `dsl`: the row's `canvas_id` column names the canvas the session runs (`canvases.rs`),
//! and `run_state` holds what its turns left, apart from the canvas (the engine's state
//! document). So a row grows with what the session's runs did, not with its canvas, and a turn
//! neither rebuilds nor compares the whole DSL; the API rebuilds RAGFlow's `dsl` from the two
//! when it shows a session.
//!
//! Rows written earlier are read as they are: a DSL patch against the canvas (`dsl_patch`)
//! becomes the session's whole `dsl`, and rows with no canvas keep theirs. A turn then saves
//! such a session in the current form when it has a canvas, and as a whole DSL otherwise.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::StoreError;
use crate::turn::SessionState;

/// The key of the working state naming the session's canvas (never stored in the document:
/// the row's `canvas_id` holds it).
pub(crate) const CANVAS_KEY: &str = "canvas_id";

/// The key of the session's run state apart from its canvas.
pub(crate) const RUN_STATE_KEY: &str = "run_state";

/// The stored document of `state` (working form). A session that still holds a whole DSL and
/// has a canvas (`base`) stores it as `dsl_patch` against that canvas; otherwise the state is
/// stored as it is, less its canvas id.
pub(super) fn stored(state: &Value, base: Option<&Value>) -> String {
    let Value::Object(state) = state else {
        return state.to_string();
    };
    let patch = match (state.get("dsl"), base) {
        (Some(dsl), Some(base)) => Some(json_patch::diff(base, dsl)),
        _ => None,
    };
    serde_json::to_string(&Stored {
        state,
        patch: patch.as_ref(),
    })
    .unwrap_or_else(|_| Value::Object(state.clone()).to_string())
}

/// Whether storing `state` needs its canvas (it holds a whole DSL, stored as a patch).
pub(super) fn stored_as_patch(state: &Value) -> bool {
    state.get("dsl").is_some() && canvas_of(state).is_some()
}

/// The canvas id a working state names.
pub(crate) fn canvas_of(state: &Value) -> Option<&str> {
    state.get(CANVAS_KEY).and_then(Value::as_str)
}

/// Whether the stored document `state` is a DSL patch (reading it needs its canvas).
pub(super) fn is_patch(state: &Value) -> bool {
    state.get("dsl_patch").is_some()
}

/// Makes the stored document `state` the working state of a session whose canvas is
/// `canvas_id`: a DSL patch is applied to `base` (that canvas, which it then needs) as the
/// session's `dsl`.
pub(super) fn working(
    session: &str,
    state: &mut Value,
    canvas_id: &str,
    base: Option<&Value>,
) -> Result<(), StoreError> {
    let Value::Object(object) = state else {
        return Ok(());
    };
    if let Some(patch) = object.remove("dsl_patch") {
        let base = base.ok_or_else(|| StoreError::missing(&format!("canvas {canvas_id}")))?;
        let patch: json_patch::Patch = serde_json::from_value(patch).map_err(|e| {
            StoreError::public(format!(
                "storage: session {session}'s DSL patch is unreadable: {e}"
            ))
        })?;
        let mut dsl = base.clone();
        json_patch::patch(&mut dsl, &patch).map_err(|e| {
            StoreError::public(format!(
                "storage: session {session}'s DSL patch does not apply to its canvas {canvas_id}: {e}"
            ))
        })?;
        object.insert("dsl".into(), dsl);
    }
    object.insert(CANVAS_KEY.into(), Value::String(canvas_id.to_string()));
    Ok(())
}

/// Takes the session's run state out of its working state: for the run, which gives it back
/// changed at its end ([`put_run_state`]).
pub(crate) fn take_run_state(state: &mut Value) -> SessionState {
    let Value::Object(object) = state else {
        return SessionState::Canvas;
    };
    if let Some(dsl) = object.remove("dsl") {
        return SessionState::Dsl(dsl);
    }
    match object.remove(RUN_STATE_KEY) {
        Some(Value::Null) | None => SessionState::Canvas,
        Some(document) => SessionState::Document(document),
    }
}

/// Puts a run state into a working state, where [`take_run_state`] finds it.
pub(crate) fn put_run_state(state: &mut Value, run_state: SessionState) {
    let Value::Object(object) = state else {
        return;
    };
    object.remove("dsl");
    object.remove(RUN_STATE_KEY);
    match run_state {
        SessionState::Canvas => {}
        SessionState::Document(document) => {
            object.insert(RUN_STATE_KEY.into(), document);
        }
        SessionState::Dsl(dsl) => {
            object.insert("dsl".into(), dsl);
        }
    }
}

/// A working state serialized as stored: no canvas id, and `dsl_patch` where a whole `dsl`
/// was when there is a patch.
struct Stored<'a> {
    state: &'a Map<String, Value>,
    /// Serialized as it is: its operations hold the values the runs set, and a copy of a
    /// large output (a spreadsheet's rows) would cost as much again.
    patch: Option<&'a json_patch::Patch>,
}

impl Serialize for Stored<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.state {
            match (key.as_str(), self.patch) {
                (CANVAS_KEY, _) => {}
                ("dsl", Some(patch)) => map.serialize_entry("dsl_patch", patch)?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::{put_run_state, stored, take_run_state, working, CANVAS_KEY};
    use crate::turn::SessionState;
    use serde_json::{json, Value};

    fn canvas() -> Value {
        json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {"outputs": {}}},
                    "downstream": ["Message:Say"], "upstream": []},
                "Message:Say": {"obj": {"component_name": "Message", "params": {
                    "content": ["hi"], "outputs": {"content": {"type": "string", "value": ""}}}},
                    "downstream": [], "upstream": ["begin"]}
            },
            "history": [], "path": [], "retrieval": [], "globals": {"sys.query": ""}
        })
    }

    fn read(text: &str, base: Option<&Value>) -> Value {
        let mut state: Value = serde_json::from_str(text).unwrap();
        working("s1", &mut state, "c1", base).unwrap();
        state
    }

    #[test]
    fn a_session_row_holds_its_run_state_and_no_canvas() {
        let run_state = json!({"components": {"Message:Say": {"outputs": {"content": {"value": "hi"}}}},
            "history": [["user", "hello"]], "path": ["begin", "Message:Say"]});
        let mut state = json!({"message": [{"role": "user", "content": "hello"}],
            "reference": [], "round": 1, "errors": null, CANVAS_KEY: "c1"});
        put_run_state(&mut state, SessionState::Document(run_state.clone()));

        let text = stored(&state, None);
        let document: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = document.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["message", "reference", "round", "errors", "run_state"]
        );
        let mut back = read(&text, None);
        assert_eq!(back, state);
        assert_eq!(take_run_state(&mut back), SessionState::Document(run_state));
        assert_eq!(take_run_state(&mut back), SessionState::Canvas);
    }

    #[test]
    fn a_row_stored_as_a_dsl_patch_reads_back_whole_and_is_stored_so_again() {
        let mut dsl = canvas();
        dsl["history"] = json!([["user", "hello"], ["assistant", "hi"]]);
        dsl["components"]["Message:Say"]["obj"]["params"]["outputs"]["content"]["value"] =
            json!("hi");
        let state = json!({"message": [], "dsl": dsl, "round": 1, CANVAS_KEY: "c1"});
        let text = stored(&state, Some(&canvas()));
        assert!(
            !text.contains("\"content\":[\"hi\"]"),
            "the canvas itself is not copied: {text}"
        );
        assert!(text.contains("dsl_patch"), "{text}");
        assert_eq!(read(&text, Some(&canvas())), state);
        let mut back = read(&text, Some(&canvas()));
        assert_eq!(take_run_state(&mut back), SessionState::Dsl(dsl));
    }

    #[test]
    fn a_row_without_a_canvas_is_read_and_written_as_it_is() {
        let state = json!({"message": [], "dsl": canvas()});
        let text = stored(&state, None);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), state);
    }

    #[test]
    fn a_patch_that_does_not_apply_is_an_error_naming_the_session_and_canvas() {
        let mut state = json!({"dsl_patch":[{"op":"replace","path":"/nowhere/deep","value":1}]});
        let error = working("s1", &mut state, "c1", Some(&canvas())).unwrap_err();
        assert!(
            error.for_client().contains("session s1") && error.for_client().contains("c1"),
            "{}",
            error.for_client()
        );
    }
}
