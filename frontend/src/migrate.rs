//! RAGFlow's load-time DSL migration (`agent/dsl_migration.py::normalize_chunker_dsl`).

use super::rename::IdMap;
use serde_json::{Map, Value};

/// Component names RAGFlow renames on load.
const COMPONENT_RENAMES: &[(&str, &str)] = &[
    ("Splitter", "TokenChunker"),
    ("HierarchicalMerger", "TitleChunker"),
    ("PDFGenerator", "DocGenerator"),
];

fn renamed(name: &str) -> Option<&'static str> {
    COMPONENT_RENAMES
        .iter()
        .find(|(old, _)| *old == name)
        .map(|(_, new)| *new)
}

/// Rename legacy component names and `<Old>:` ids everywhere they occur, exactly where RAGFlow
/// does: ids, edges, parents, every param string, the path, history, messages, references and
/// the graph.
pub fn normalize_legacy_ids(dsl: &mut Map<String, Value>) {
    let mut ids = IdMap::new(false);
    // Old key → new key, looked up once per component.
    let mut renamed_keys = std::collections::HashMap::new();
    if let Some(Value::Object(components)) = dsl.get("components") {
        for key in components.keys() {
            for (old, new) in COMPONENT_RENAMES {
                if let Some(rest) = key.strip_prefix(old).and_then(|r| r.strip_prefix(':')) {
                    let new_id = format!("{new}:{rest}");
                    ids.insert(key, &new_id);
                    renamed_keys.insert(key.clone(), new_id);
                    break;
                }
            }
        }
    }
    if let Some(Value::Object(components)) = dsl.get_mut("components") {
        // Without a renamed id there is nothing to rewrite and no key to change: the map stays
        // as it is instead of being rebuilt with every string searched.
        if !ids.is_empty() {
            let old = std::mem::take(components);
            for (key, mut entry) in old {
                ids.rewrite_value(&mut entry);
                let key = renamed_keys.remove(&key).unwrap_or(key);
                components.insert(key, entry);
            }
        }
        for entry in components.values_mut() {
            if let Some(Value::String(name)) = entry.pointer_mut("/obj/component_name") {
                if let Some(new) = renamed(name) {
                    *name = new.to_string();
                }
            }
        }
    }
    if ids.is_empty() {
        rename_graph_labels(dsl);
        return;
    }
    for key in ["path", "history", "messages", "reference"] {
        if let Some(v) = dsl.get_mut(key) {
            ids.rewrite_value(v);
        }
    }
    if let Some(Value::Object(graph)) = dsl.get_mut("graph") {
        if let Some(Value::Array(nodes)) = graph.get_mut("nodes") {
            for node in nodes {
                for key in ["id", "parentId"] {
                    if let Some(Value::String(s)) = node.get_mut(key) {
                        *s = ids.apply(s);
                    }
                }
                if let Some(form) = node.pointer_mut("/data/form") {
                    ids.rewrite_value(form);
                }
            }
        }
        if let Some(Value::Array(edges)) = graph.get_mut("edges") {
            for edge in edges {
                for key in ["source", "target", "id"] {
                    if let Some(Value::String(s)) = edge.get_mut(key) {
                        *s = ids.rewrite_str(s).unwrap_or_else(|| ids.apply(s));
                    }
                }
            }
        }
    }
    rename_graph_labels(dsl);
}

fn rename_graph_labels(dsl: &mut Map<String, Value>) {
    let Some(Value::Array(nodes)) = dsl.get_mut("graph").and_then(|g| g.get_mut("nodes")) else {
        return;
    };
    for node in nodes {
        if let Some(Value::String(t)) = node.get_mut("type") {
            if t == "splitterNode" {
                *t = "chunkerNode".into();
            }
        }
        for key in ["label", "name"] {
            if let Some(Value::String(s)) = node.pointer_mut(&format!("/data/{key}")) {
                if let Some(new) = renamed(s) {
                    *s = new.to_string();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renames_pdf_generator_ids_and_references() {
        let mut dsl = json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["PDFGenerator:A"]},
                "PDFGenerator:A": {"obj": {"component_name": "PDFGenerator", "params": {"content": "{begin@x}"}},
                                    "downstream": ["Message:B"], "upstream": ["begin"]},
                "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["{PDFGenerator:A@download}"]}}}
            },
            "path": ["begin", "PDFGenerator:A"]
        });
        let map = dsl.as_object_mut().expect("object");
        normalize_legacy_ids(map);
        let out = Value::Object(map.clone());
        assert_eq!(
            out["components"]["begin"]["downstream"],
            json!(["DocGenerator:A"])
        );
        assert_eq!(
            out["components"]["DocGenerator:A"]["obj"]["component_name"],
            json!("DocGenerator")
        );
        assert_eq!(
            out["components"]["Message:B"]["obj"]["params"]["content"],
            json!(["{DocGenerator:A@download}"])
        );
        assert_eq!(out["path"], json!(["begin", "DocGenerator:A"]));
    }
}
