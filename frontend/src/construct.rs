//! Whether RAGFlow's `Canvas(dsl)` can be built at all, and if not, the exception it raises.
//!
//! RAGFlow builds a canvas in two passes over `dsl["components"]`, in the dict's (the file's)
//! order (`agent/canvas.py`, `Graph.load`):
//!
//! 1. `validate_component_parameters`: for each component, `component_class(name + "Param")()`
//!    (`agent/component/__init__.py`: an exact, case-sensitive attribute lookup in
//!    `agent.component`, `agent.tools` and `rag.flow`, else `AssertionError("Can't import
//!    <name>Param")`), then `param.update(params)` and `param.check()`, whose failure is
//!    re-raised as `ValueError("<display name>: <message>")`;
//! 2. the constructors, in the same order. An Agent's constructor loads its `tools` in list
//!    order (`_load_tool_obj`): the same class lookup, then `check()` (its exception raised as
//!    it is), then the tool's own constructor (a sub-Agent loads its tools right there).
//!
//! So a missing class anywhere among the components is named before any Agent tool, and the
//! first failure in that order is the one a user sees. A canvas that cannot be built never
//! runs: every turn (each rebuilds the canvas) raises the same exception before any event.

use super::catalog::checks::check_params;
use super::catalog::defaults::merged_params;
use super::catalog::{resolve_name, Kind, NameResolution};
use super::diagnostic::pointer_join;
use super::document::{Document, Form};
use serde_json::{Map, Value};

/// The exception RAGFlow raises while building a canvas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstructionError {
    /// The Python class: `AssertionError` (no such component class) or `ValueError` (a
    /// parameter check failed).
    pub class: &'static str,
    /// `str(exception)`.
    pub message: String,
    /// The id of the component being built (for an Agent tool: the Agent's).
    pub component: String,
    /// The `component_name` that failed, as written (for a tool: the tool's).
    pub component_name: String,
    /// JSON pointer of what failed: the name, or the params.
    pub pointer: String,
}

impl ConstructionError {
    /// `repr(exception)`, the text RAGFlow's HTTP API answers with (`server_error_response`).
    pub fn repr(&self) -> String {
        format!(
            "{}({})",
            self.class,
            canvasc_value::py::repr_str(&self.message)
        )
    }
}

/// Classes of `rag.flow` (the ingestion pipeline) that `component_class` also finds. canvasc
/// does not run them, but RAGFlow builds a canvas naming them, so they raise nothing here.
const INGESTION_CLASSES: &[&str] = &[
    "File",
    "Parser",
    "TokenChunker",
    "TitleChunker",
    "Tokenizer",
    "Extractor",
    "Compiler",
];

/// Whether `component_class(name + "Param")` finds a class. Only exact class names do: the
/// legacy names (`Answer`, `Generate`, …), removed tools (`Bing`) and other spellings of a name
/// (`llm`, `search_my_dateset`) raise. A version 2 canvas is the Go port's form, whose own
/// spellings are its names for the same classes.
pub fn python_loads(name: &str, form: Form) -> bool {
    match resolve_name(name) {
        NameResolution::Canonical(k) => k != Kind::Answer,
        NameResolution::Migrated(_) => true,
        NameResolution::Alias(_) => form == Form::V2,
        NameResolution::Legacy(..) | NameResolution::Removed(_) => false,
        NameResolution::Unknown => INGESTION_CLASSES.contains(&name),
    }
}

/// The exception RAGFlow raises building `doc`, or `None` when it builds.
pub fn construction_error(doc: &Document) -> Option<ConstructionError> {
    for c in &doc.components {
        if !python_loads(&c.component_name, doc.form) {
            return Some(missing_class(&c.id, &c.component_name, &c.loc.name));
        }
        let Some(kind) = c.kind() else {
            continue; // an ingestion class: RAGFlow checks it, canvasc has no check for it
        };
        if let Err(message) = check(kind, &c.params) {
            let message = format!("{}: {message}", c.display_name);
            return Some(value_error(
                &c.id,
                &c.component_name,
                &c.loc.params,
                message,
            ));
        }
    }
    for c in &doc.components {
        if c.kind() == Some(Kind::Agent) {
            if let Some(e) = agent_tools(doc.form, &c.id, &c.params, &c.loc.params) {
                return Some(e);
            }
        }
    }
    None
}

/// An Agent's constructor: its tools in order, a sub-Agent's tools as it is built.
fn agent_tools(
    form: Form,
    component: &str,
    params: &Map<String, Value>,
    params_pointer: &str,
) -> Option<ConstructionError> {
    let Some(Value::Array(tools)) = params.get("tools") else {
        return None;
    };
    for (i, tool) in tools.iter().enumerate() {
        let index = i.to_string();
        let name = tool
            .get("component_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !python_loads(name, form) {
            let pointer = pointer_join(params_pointer, &["tools", &index, "component_name"]);
            return Some(missing_class(component, name, &pointer));
        }
        let Some(kind) = resolve_name(name).kind() else {
            continue;
        };
        let empty = Map::new();
        let tool_params = tool
            .get("params")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let pointer = pointer_join(params_pointer, &["tools", &index, "params"]);
        if let Err(message) = check(kind, tool_params) {
            return Some(value_error(component, name, &pointer, message));
        }
        if kind == Kind::Agent {
            if let Some(e) = agent_tools(form, component, tool_params, &pointer) {
                return Some(e);
            }
        }
    }
    None
}

/// `param.update(params); param.check()`. An empty `llm_id` passes, as the checker lets it
/// pass: canvasc reads it as the configured default model (`check/structure.rs`).
fn check(kind: Kind, params: &Map<String, Value>) -> Result<(), String> {
    let mut merged = merged_params(kind, params);
    if merged.get("llm_id").and_then(Value::as_str) == Some("") {
        merged.insert("llm_id".into(), Value::String("default".into()));
    }
    check_params(kind, &merged).map_err(|f| f.message)
}

fn missing_class(component: &str, name: &str, pointer: &str) -> ConstructionError {
    ConstructionError {
        class: "AssertionError",
        message: format!("Can't import {name}Param"),
        component: component.to_string(),
        component_name: name.to_string(),
        pointer: pointer.to_string(),
    }
}

fn value_error(component: &str, name: &str, pointer: &str, message: String) -> ConstructionError {
    ConstructionError {
        class: "ValueError",
        message,
        component: component.to_string(),
        component_name: name.to_string(),
        pointer: pointer.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str;

    fn error_of(dsl: serde_json::Value) -> Option<ConstructionError> {
        let doc = load_str(&dsl.to_string()).expect("a canvas").document;
        construction_error(&doc)
    }

    fn begin() -> serde_json::Value {
        serde_json::json!({"obj": {"component_name": "Begin", "params": {}}, "downstream": [], "upstream": []})
    }

    #[test]
    fn a_legacy_component_cannot_be_imported() {
        let e = error_of(serde_json::json!({"components": {
            "begin": begin(),
            "answer:0": {"obj": {"component_name": "Answer", "params": {}}},
        }}))
        .expect("an error");
        assert_eq!(e.class, "AssertionError");
        assert_eq!(e.message, "Can't import AnswerParam");
        assert_eq!(e.component, "answer:0");
        assert_eq!(e.component_name, "Answer");
        assert_eq!(e.pointer, "/components/answer:0/obj/component_name");
        assert_eq!(e.repr(), "AssertionError(\"Can't import AnswerParam\")");
    }

    #[test]
    fn the_first_component_in_document_order_is_named() {
        let e = error_of(serde_json::json!({"components": {
            "begin": begin(),
            "generate:0": {"obj": {"component_name": "Generate", "params": {}}},
            "answer:0": {"obj": {"component_name": "Answer", "params": {}}},
        }}))
        .expect("an error");
        assert_eq!(e.message, "Can't import GenerateParam");
    }

    #[test]
    fn names_are_exact_class_names() {
        let e = error_of(serde_json::json!({"components": {
            "begin": begin(),
            "m": {"obj": {"component_name": "message", "params": {"content": ["x"]}}},
        }}))
        .expect("an error");
        assert_eq!(e.message, "Can't import messageParam");
    }

    #[test]
    fn every_component_class_is_looked_up_before_any_agent_tool() {
        let agent = serde_json::json!({"obj": {"component_name": "Agent", "params": {
            "llm_id": "m@F", "sys_prompt": "s", "prompts": [{"role": "user", "content": "{sys.query}"}],
            "tools": [{"component_name": "Bing", "name": "Bing", "params": {}}]}}});
        let e = error_of(serde_json::json!({"components": {
            "begin": begin(),
            "Agent:A": agent.clone(),
            "answer:0": {"obj": {"component_name": "Answer", "params": {}}},
        }}))
        .expect("an error");
        assert_eq!(e.message, "Can't import AnswerParam");
        let e = error_of(serde_json::json!({"components": {"begin": begin(), "Agent:A": agent}}))
            .expect("an error");
        assert_eq!(e.message, "Can't import BingParam");
        assert_eq!(e.component, "Agent:A");
        assert_eq!(e.component_name, "Bing");
        assert_eq!(
            e.pointer,
            "/components/Agent:A/obj/params/tools/0/component_name"
        );
    }

    #[test]
    fn a_failed_parameter_check_is_a_value_error_in_document_order() {
        let e = error_of(serde_json::json!({"components": {
            "begin": begin(),
            "Message:A": {"obj": {"component_name": "Message", "params": {"content": []}}},
            "answer:0": {"obj": {"component_name": "Answer", "params": {}}},
        }}))
        .expect("an error");
        assert_eq!(e.class, "ValueError");
        assert_eq!(
            e.message,
            ": [Message] Content does not support empty value."
        );
    }

    #[test]
    fn a_canvas_of_known_classes_builds() {
        assert_eq!(
            error_of(serde_json::json!({"components": {
                "begin": begin(),
                "Message:A": {"obj": {"component_name": "Message", "params": {"content": ["hi"]}}},
            }})),
            None
        );
    }
}
