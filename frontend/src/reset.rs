//! RAGFlow's `Canvas.reset()` applied to a stored DSL (BS §16.3): what a new session starts from.
//!
//! The transform works on the JSON as written, so everything it does not reset stays exactly as
//! the user stored it.

use crate::document::Document;
use serde_json::{Map, Value};

/// Reset a DSL in any form (a template wrapper resets its `dsl`).
pub fn reset(root: &mut Value) {
    let Some(obj) = root.as_object_mut() else {
        return;
    };
    if !obj.contains_key("components") {
        if let Some(Value::Object(dsl)) = obj.get_mut("dsl") {
            reset_dsl(dsl);
            return;
        }
    }
    reset_dsl(obj);
}

/// [`reset`] applied to a loaded document: the canvas a fingerprint names, with none of a
/// session's run-time values.
pub fn reset_document(doc: &mut Document) {
    for component in &mut doc.components {
        reset_params(&mut component.params);
    }
    if !matches!(doc.dsl.get("version"), Some(v) if v == 2) {
        for key in ["path", "history", "retrieval", "memory"] {
            if doc.dsl.contains_key(key) {
                doc.dsl.insert(key.to_string(), Value::Array(Vec::new()));
            }
        }
    }
    let variables = doc.dsl.get("variables").cloned();
    if let Some(Value::Object(globals)) = doc.dsl.get_mut("globals") {
        reset_globals(globals, variables.as_ref());
    }
}

fn reset_dsl(dsl: &mut Map<String, Value>) {
    if let Some(Value::Object(components)) = dsl.get_mut("components") {
        for entry in components.values_mut() {
            // v1 keeps params under obj; v2 directly on the entry.
            let params = match entry.pointer_mut("/obj/params") {
                Some(p) => Some(p),
                None => entry.get_mut("params"),
            };
            if let Some(Value::Object(params)) = params {
                reset_params(params);
            }
        }
    }
    if dsl.contains_key("components") && !matches!(dsl.get("version"), Some(v) if v == 2) {
        for key in ["path", "history", "retrieval", "memory"] {
            dsl.insert(key.to_string(), Value::Array(Vec::new()));
        }
    }
    let variables = dsl.get("variables").cloned();
    if let Some(Value::Object(globals)) = dsl.get_mut("globals") {
        reset_globals(globals, variables.as_ref());
    }
}

/// The params whose records (objects of objects) have their `value` nulled by the reset.
pub const RECORD_TABLES: [&str; 2] = ["outputs", "inputs"];

/// The param the reset empties (to `{}`) when it is present.
pub const CLEARED_PARAM: &str = "debug_inputs";

/// Every output and input record's `value` becomes null; `debug_inputs` is cleared.
fn reset_params(params: &mut Map<String, Value>) {
    for key in RECORD_TABLES {
        if let Some(Value::Object(records)) = params.get_mut(key) {
            for record in records.values_mut() {
                if let Value::Object(r) = record {
                    r.insert("value".into(), Value::Null);
                }
            }
        }
    }
    if params.contains_key(CLEARED_PARAM) {
        params.insert(CLEARED_PARAM.into(), Value::Object(Map::new()));
    }
}

/// `sys.*` zeroed by current type (bool counts as int, as in Python); `env.*` restored from the
/// variable declarations, or zeroed by declared type.
pub fn reset_globals<'g>(
    globals: impl IntoIterator<Item = (&'g String, &'g mut Value)>,
    variables: Option<&Value>,
) {
    for (key, value) in globals {
        if let Some(reset) = reset_global(key, value, variables) {
            *value = reset;
        }
    }
}

/// What one global becomes after the reset, or `None` when the reset leaves it as it is.
pub fn reset_global(key: &str, value: &Value, variables: Option<&Value>) -> Option<Value> {
    if key.starts_with("sys.") {
        return Some(match value {
            Value::String(_) => Value::from(""),
            Value::Bool(_) | Value::Number(_) => Value::from(0),
            Value::Array(_) => Value::Array(Vec::new()),
            Value::Object(_) => Value::Object(Map::new()),
            Value::Null => Value::Null,
        });
    }
    let name = key.strip_prefix("env.")?;
    let decl = variables
        .and_then(Value::as_object)
        .and_then(|v| v.get(name));
    Some(match decl {
        Some(decl) => match decl.get("value") {
            Some(v) if !v.is_null() => v.clone(),
            _ => zero_of_declared_type(decl.get("type").and_then(Value::as_str).unwrap_or("")),
        },
        None => Value::from(""),
    })
}

fn zero_of_declared_type(t: &str) -> Value {
    match t {
        "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        "object" => Value::Object(Map::new()),
        t if t.starts_with("array") => Value::Array(Vec::new()),
        _ => Value::from(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resets_like_canvas_reset() {
        let mut dsl = json!({
            "components": {"begin": {"obj": {"component_name": "Begin", "params": {
                "outputs": {"x": {"type": "str", "value": "hi"}},
                "inputs": {"x": {"type": "line", "value": "hi"}}}}}},
            "history": [["user", "hi"]], "path": ["begin"], "retrieval": [{"chunks": []}],
            "globals": {"sys.query": "hi", "sys.conversation_turns": 3, "sys.files": ["a"],
                        "sys.flag": true, "env.n": 5, "env.s": "x", "env.undeclared": 1},
            "variables": {"n": {"type": "number", "value": null}, "s": {"type": "string", "value": "dflt"}}
        });
        reset(&mut dsl);
        assert_eq!(
            dsl["components"]["begin"]["obj"]["params"]["outputs"]["x"]["value"],
            Value::Null
        );
        assert_eq!(
            dsl["components"]["begin"]["obj"]["params"]["inputs"]["x"]["value"],
            Value::Null
        );
        assert_eq!(dsl["history"], json!([]));
        assert_eq!(dsl["memory"], json!([]));
        assert_eq!(
            dsl["globals"],
            json!({"sys.query": "", "sys.conversation_turns": 0, "sys.files": [], "sys.flag": 0,
                   "env.n": 0, "env.s": "dflt", "env.undeclared": ""})
        );
    }
}
