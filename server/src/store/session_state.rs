//! A session's state as the server works with it, and as its row stores it.
//!
//! The server works with RAGFlow's form: one JSON document holding the transcript, the
//! counters and `dsl`, the session's canvas with its run state. The row stores the canvas by
//! reference instead: its `canvas_id` column names the canvas the session started from
//! (`canvases.rs`), and the document holds `dsl_patch`, an RFC 6902 patch taking that canvas to
//! the session's DSL, so a row grows with what the session's runs did, not with the canvas.
//! Rows written before canvases were stored apart keep their `dsl` and no `canvas_id`, and
//! are read and written as they are.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::StoreError;

/// The key of the working state naming the session's canvas (never stored in the document:
/// the row's `canvas_id` holds it).
pub(crate) const CANVAS_KEY: &str = "canvas_id";

/// The stored document of `state` (working form): `dsl` becomes `dsl_patch` against `base`, the
/// canvas its `canvas_id` names. Without a canvas the state is stored as it is.
pub(super) fn stored(state: &Value, base: Option<&Value>) -> String {
    match (state, base) {
        (Value::Object(state), Some(base)) => {
            let patch = match state.get("dsl") {
                Some(dsl) => json_patch::diff(base, dsl),
                None => json_patch::Patch(Vec::new()),
            };
            serde_json::to_string(&Patched {
                state,
                patch: &patch,
            })
            .unwrap_or_else(|_| Value::Object(state.clone()).to_string())
        }
        _ => state.to_string(),
    }
}

/// The canvas id a working state names.
pub(super) fn canvas_of(state: &Value) -> Option<&str> {
    state.get(CANVAS_KEY).and_then(Value::as_str)
}

/// The working state of a stored document: `canvas` (the row's canvas and its id) patched by
/// the document's `dsl_patch` becomes its `dsl`.
pub(super) fn working(
    session: &str,
    text: &str,
    canvas: Option<(&str, &Value)>,
) -> Result<Value, StoreError> {
    let mut state: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let (Some((id, base)), Value::Object(object)) = (canvas, &mut state) else {
        return Ok(state);
    };
    let patch = object
        .remove("dsl_patch")
        .unwrap_or(Value::Array(Vec::new()));
    let patch: json_patch::Patch = serde_json::from_value(patch).map_err(|e| {
        StoreError::public(format!(
            "storage: session {session}'s DSL patch is unreadable: {e}"
        ))
    })?;
    let mut dsl = base.clone();
    json_patch::patch(&mut dsl, &patch).map_err(|e| {
        StoreError::public(format!(
            "storage: session {session}'s DSL patch does not apply to its canvas {id}: {e}"
        ))
    })?;
    object.insert("dsl".into(), dsl);
    object.insert(CANVAS_KEY.into(), Value::String(id.to_string()));
    Ok(state)
}

/// A working state serialized as stored: `dsl_patch` where `dsl` was, no canvas id.
struct Patched<'a> {
    state: &'a Map<String, Value>,
    /// Serialized as it is: its operations hold the values the runs set, and a copy of a
    /// large output (a spreadsheet's rows) would cost as much again.
    patch: &'a json_patch::Patch,
}

impl Serialize for Patched<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let mut patched = false;
        for (key, value) in self.state {
            match key.as_str() {
                CANVAS_KEY => {}
                "dsl" => {
                    map.serialize_entry("dsl_patch", self.patch)?;
                    patched = true;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        if !patched {
            map.serialize_entry("dsl_patch", self.patch)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::{stored, working, CANVAS_KEY};
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

    #[test]
    fn a_session_row_holds_what_its_runs_changed_and_reads_back_whole() {
        let mut dsl = canvas();
        dsl["history"] = json!([["user", "hello"], ["assistant", "hi"]]);
        dsl["path"] = json!(["begin", "Message:Say"]);
        dsl["globals"]["sys.query"] = json!("hello");
        dsl["components"]["Message:Say"]["obj"]["params"]["outputs"]["content"]["value"] =
            json!("hi");
        let state = json!({"message": [{"role": "user", "content": "hello"}],
            "reference": [], "dsl": dsl, "round": 1, "errors": null, CANVAS_KEY: "c1"});

        let text = stored(&state, Some(&canvas()));
        let document: Value = serde_json::from_str(&text).unwrap();
        assert!(document.get("dsl").is_none(), "{text}");
        assert!(document.get(CANVAS_KEY).is_none(), "{text}");
        assert!(
            !text.contains("\"content\":[\"hi\"]"),
            "the canvas itself is not copied: {text}"
        );
        let keys: Vec<&String> = document.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["message", "reference", "dsl_patch", "round", "errors"]
        );

        assert_eq!(
            working("s1", &text, Some(("c1", &canvas()))).unwrap(),
            state
        );
    }

    #[test]
    fn a_fresh_session_stores_an_empty_patch() {
        let state = json!({"message": [], "dsl": canvas(), CANVAS_KEY: "c1"});
        let text = stored(&state, Some(&canvas()));
        assert_eq!(text, r#"{"message":[],"dsl_patch":[]}"#);
    }

    #[test]
    fn a_row_without_a_canvas_is_read_and_written_as_it_is() {
        let state = json!({"message": [], "dsl": canvas()});
        let text = stored(&state, None);
        assert_eq!(working("s1", &text, None).unwrap(), state);
    }

    #[test]
    fn a_patch_that_does_not_apply_is_an_error_naming_the_session_and_canvas() {
        let text = r#"{"dsl_patch":[{"op":"replace","path":"/nowhere/deep","value":1}]}"#;
        let error = working("s1", text, Some(("c1", &canvas()))).unwrap_err();
        assert!(
            error.for_client().contains("session s1") && error.for_client().contains("c1"),
            "{}",
            error.for_client()
        );
    }
}
