//! A [`DslComponent`] from the parts of a stored entry (its `component_name`, its params and the
//! `obj` keys beside them), shared by every input form's loader: v1 and v2 in `load.rs`, the
//! editor's graph in `graph_form.rs`.

use super::catalog::resolve_name;
use super::diagnostic::{Code, Diagnostic};
use super::document::{DslComponent, Locations};
use serde_json::{Map, Value};

/// Keys RAGFlow's old parameter objects serialised as bookkeeping; never part of a canvas.
pub const DECORATION_KEYS: &[&str] = &[
    "_feeded_deprecated_params",
    "_deprecated_params",
    "_user_feeded_params",
    "_is_raw_conf",
];

/// Build a component from its `obj` (`component_name`, `params`, extra keys).
pub fn component_from_parts(
    id: &str,
    mut obj: Map<String, Value>,
    loc: Locations,
    diags: &mut Vec<Diagnostic>,
) -> DslComponent {
    let component_name = match obj.shift_remove("component_name") {
        Some(Value::String(name)) => name,
        other => {
            diags.push(
                Diagnostic::new(
                    Code::UnknownKind,
                    match other {
                        None => format!("component `{id}` has no component_name"),
                        Some(v) => format!(
                            "component `{id}` has a component_name that is {}, not a string",
                            json_type_name(&v)
                        ),
                    },
                )
                .component(id)
                .at(if loc.name.is_empty() {
                    loc.entry.clone()
                } else {
                    loc.name.clone()
                }),
            );
            String::new()
        }
    };
    let params = match obj.shift_remove("params") {
        Some(Value::Object(params)) => params,
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "the params of `{id}` are {}, expected an object",
                        json_type_name(&other)
                    ),
                )
                .component(id)
                .at(&loc.params),
            );
            Map::new()
        }
    };
    for key in DECORATION_KEYS {
        obj.shift_remove(*key);
    }
    // `obj.downstream`/`obj.upstream` duplicate the entry's lists in old DSLs; the entry wins.
    obj.shift_remove("downstream");
    obj.shift_remove("upstream");
    DslComponent {
        id: id.to_string(),
        resolution: resolve_name(&component_name),
        component_name,
        params: canonical_params(params),
        downstream: Vec::new(),
        upstream: Vec::new(),
        parent_id: None,
        display_name: String::new(),
        entry_extra: Map::new(),
        obj_extra: without_spare_room(obj),
        loc,
    }
}

/// What is left of a map once its known keys were taken out, or a fresh empty map when nothing
/// is: the entry and `obj` maps are usually empty by then, and each would keep its room (about
/// half a kilobyte) allocated for every component.
pub fn without_spare_room(rest: Map<String, Value>) -> Map<String, Value> {
    if rest.is_empty() {
        Map::new()
    } else {
        rest
    }
}

/// Params as a canvas stores them: without bookkeeping keys and without the per-run
/// `custom_header` that RAGFlow injects at load time.
pub fn canonical_params(mut params: Map<String, Value>) -> Map<String, Value> {
    params.shift_remove("custom_header");
    for key in DECORATION_KEYS {
        params.shift_remove(*key);
    }
    params
}

/// Python's name for a JSON value's type, as users see it in messages.
pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
