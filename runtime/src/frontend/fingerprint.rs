//! The identity of a canvas's behaviour: what a compiled program is looked up by.
//!
//! A published canvas and every session saved from it (`str(canvas)`: run-time values, path,
//! history, task id) have the same fingerprint, so a server or `run` finds the compiled program
//! for either; any edit that can change behaviour (a parameter, an edge, a display name, a
//! variable's default) changes it, and the run falls back to the interpreter.

use super::document::Document;
use super::reset::reset;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Top-level keys that only hold session state.
const SESSION_KEYS: &[&str] = &[
    "path",
    "history",
    "retrieval",
    "memory",
    "messages",
    "task_id",
];

/// `sha256:<hex>` of the canvas's DSL (components as loaded, with their display names, and the
/// other top-level keys) after RAGFlow's reset, without session keys, with every object's keys
/// sorted — plus the components' order, which RAGFlow's dicts keep and saved sessions show.
pub fn fingerprint(doc: &Document) -> String {
    let ids = |links: &[super::document::Link]| -> Value {
        Value::Array(links.iter().map(|l| Value::String(l.id.clone())).collect())
    };
    let mut components = Map::new();
    for c in &doc.components {
        components.insert(
            c.id.clone(),
            json!({
                "obj": {"component_name": c.component_name, "params": c.params},
                "downstream": ids(&c.downstream),
                "upstream": ids(&c.upstream),
                "parent_id": c.parent_id.as_ref().map(|p| p.id.clone()),
                "display_name": c.display_name,
            }),
        );
    }
    let mut dsl = Value::Object(doc.dsl.clone());
    if let Value::Object(m) = &mut dsl {
        m.insert("components".into(), Value::Object(components));
        let order = doc.components.iter().map(|c| Value::String(c.id.clone()));
        m.insert("component_order".into(), Value::Array(order.collect()));
    }
    reset(&mut dsl);
    if let Value::Object(m) = &mut dsl {
        for key in SESSION_KEYS {
            m.shift_remove(*key);
        }
        if let Some(Value::Object(globals)) = m.get_mut("globals") {
            globals.retain(|k, _| !k.starts_with("sys."));
        }
    }
    let canonical = serde_json::to_string(&sorted(dsl)).unwrap_or_default();
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted(v)))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}
