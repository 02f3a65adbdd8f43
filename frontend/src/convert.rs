//! v1 ↔ v2 conversion.
//!
//! v2 is the flat, strongly typed form of RAGFlow's Go port: `{"version": 2, "components": {id:
//! {"id", "name", "downstream", "upstream", "parent_id"?, "display_name"?, "params"}}, "globals",
//! "variables"}`. Ids follow the Go port's key rules, `<Name>:<rest>` ↔ `<name>_<rest>` (a bare
//! `begin` stays `begin`), and every mention of an id — edges, routes, selectors and template
//! references in params — is rewritten with it, so both forms are self-consistent.
//!
//! The round trip closes: v1 → v2 → v1 → v2 gives the first v2 again (same ids, downstream
//! refs and canonical params). v1 output is deterministic: Begin first, the other components
//! in lexical order of their ids, `[]`/`{}` instead of null, no legacy decoration keys.

use super::document::{Document, DslComponent, Form};
use super::rename::IdMap;
use serde_json::{Map, Value};
use std::fmt;

/// Why a document cannot be converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

/// The v2 key of a v1 id: `Agent:Smart` → `agent_Smart`, `begin` → `begin`, `x` → `x_`.
pub fn v2_id(v1_id: &str) -> String {
    if v1_id.eq_ignore_ascii_case("begin") {
        return "begin".to_string();
    }
    match v1_id.split_once(':') {
        Some((prefix, rest)) => format!("{}_{rest}", prefix.to_ascii_lowercase()),
        None => format!("{}_", v1_id.to_ascii_lowercase()),
    }
}

/// The v1 id of a v2 key. The prefix takes the component name's spelling when it matches
/// (`llm_x` of an `LLM` → `LLM:x`), else it is capitalised (`generate_0` → `Generate:0`).
pub fn v1_id(v2_key: &str, component_name: &str) -> String {
    if v2_key == "begin" {
        return "begin".to_string();
    }
    let (prefix, rest) = v2_key.split_once('_').unwrap_or((v2_key, ""));
    let prefix = if component_name.to_ascii_lowercase() == prefix {
        component_name.to_string()
    } else {
        upper_first(prefix)
    };
    if rest.is_empty() {
        prefix
    } else {
        format!("{prefix}:{rest}")
    }
}

fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Build the id renaming for a conversion, refusing collisions.
fn id_map(
    doc: &Document,
    rename: impl Fn(&DslComponent) -> String,
) -> Result<(IdMap, Vec<String>), ConvertError> {
    let mut map = IdMap::new(true);
    let mut new_ids: Vec<String> = Vec::with_capacity(doc.components.len());
    for c in &doc.components {
        let new = rename(c);
        if let Some(i) = new_ids.iter().position(|n| n.eq_ignore_ascii_case(&new)) {
            return Err(ConvertError(format!(
                "components `{}` and `{}` would both get the id `{new}`",
                doc.components[i].id, c.id
            )));
        }
        map.insert(&c.id, &new);
        new_ids.push(new);
    }
    Ok((map, new_ids))
}

fn ids(links: &[super::document::Link], map: &IdMap) -> Value {
    Value::Array(
        links
            .iter()
            .map(|l| Value::String(map.apply(&l.id)))
            .collect(),
    )
}

fn params(c: &DslComponent, map: &IdMap) -> Value {
    let mut p = Value::Object(c.params.clone());
    map.rewrite_value(&mut p);
    p
}

fn object_or_empty(v: Option<&Value>) -> Value {
    match v {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => Value::Object(Map::new()),
    }
}

/// Convert to the v2 form.
pub fn to_v2(doc: &Document) -> Result<Value, ConvertError> {
    let (map, new_ids) = if doc.form == Form::V2 {
        id_map(doc, |c| c.id.clone())?
    } else {
        id_map(doc, |c| v2_id(&c.id))?
    };
    let mut components = Map::new();
    // Document order: RAGFlow's components dict keeps insertion order, and saved sessions
    // show it, so a conversion never reorders components.
    for (c, id) in doc.components.iter().zip(&new_ids) {
        let mut entry = Map::new();
        entry.insert("id".into(), Value::String(id.clone()));
        entry.insert("name".into(), Value::String(c.component_name.clone()));
        entry.insert("downstream".into(), ids(&c.downstream, &map));
        entry.insert("upstream".into(), ids(&c.upstream, &map));
        if let Some(p) = &c.parent_id {
            entry.insert("parent_id".into(), Value::String(map.apply(&p.id)));
        }
        if !c.display_name.is_empty() {
            entry.insert("display_name".into(), Value::String(c.display_name.clone()));
        }
        entry.insert("params".into(), params(c, &map));
        components.insert(id.clone(), Value::Object(entry));
    }
    let mut out = Map::new();
    out.insert("version".into(), Value::from(2));
    out.insert("components".into(), Value::Object(components));
    out.insert("globals".into(), object_or_empty(doc.dsl.get("globals")));
    out.insert(
        "variables".into(),
        object_or_empty(doc.dsl.get("variables")),
    );
    Ok(Value::Object(out))
}

/// Convert to the v1 form RAGFlow stores. A v1 input keeps its ids and its other top-level keys;
/// a v2 input gets its v1 ids back; a graph-only input gets its derived components.
pub fn to_v1(doc: &Document) -> Result<Value, ConvertError> {
    let (map, new_ids) = if doc.form == Form::V2 {
        id_map(doc, |c| v1_id(&c.id, &c.component_name))?
    } else {
        id_map(doc, |c| c.id.clone())?
    };
    let mut components = Map::new();
    // Document order: RAGFlow's components dict keeps insertion order, and saved sessions
    // show it, so a conversion never reorders components.
    for (i, c) in doc.components.iter().enumerate() {
        let mut obj = Map::new();
        obj.insert(
            "component_name".into(),
            Value::String(c.component_name.clone()),
        );
        obj.insert("params".into(), params(c, &map));
        for (k, v) in &c.obj_extra {
            obj.insert(k.clone(), v.clone());
        }
        let mut entry = Map::new();
        entry.insert("obj".into(), Value::Object(obj));
        entry.insert("downstream".into(), ids(&c.downstream, &map));
        entry.insert("upstream".into(), ids(&c.upstream, &map));
        if let Some(p) = &c.parent_id {
            entry.insert("parent_id".into(), Value::String(map.apply(&p.id)));
        }
        if doc.form != Form::V2 {
            for (k, v) in &c.entry_extra {
                entry.insert(k.clone(), v.clone());
            }
        }
        components.insert(new_ids[i].clone(), Value::Object(entry));
    }

    let mut out = Map::new();
    out.insert("components".into(), Value::Object(components));
    let list_keys = ["history", "path", "retrieval", "memory"];
    match doc.form {
        Form::V2 => {
            out.insert("globals".into(), object_or_empty(doc.dsl.get("globals")));
            out.insert(
                "variables".into(),
                object_or_empty(doc.dsl.get("variables")),
            );
            for key in list_keys {
                out.insert(key.into(), Value::Array(Vec::new()));
            }
            let names: Vec<Value> = doc
                .components
                .iter()
                .zip(&new_ids)
                .filter(|(c, _)| !c.display_name.is_empty())
                .map(|(c, id)| {
                    serde_json::json!({"id": id, "data": {"label": c.component_name, "name": c.display_name}})
                })
                .collect();
            if !names.is_empty() {
                out.insert(
                    "graph".into(),
                    serde_json::json!({"nodes": names, "edges": []}),
                );
            }
        }
        Form::V1 | Form::Template | Form::Graph => {
            for (k, v) in &doc.dsl {
                let v = match (k.as_str(), v) {
                    (key, Value::Null) if list_keys.contains(&key) => Value::Array(Vec::new()),
                    ("globals" | "variables", Value::Null) => Value::Object(Map::new()),
                    _ => v.clone(),
                };
                out.insert(k.clone(), v);
            }
            for key in list_keys {
                out.entry(key).or_insert_with(|| Value::Array(Vec::new()));
            }
        }
    }
    Ok(Value::Object(out))
}

/// JSON text with 2-space indentation and a final newline.
pub fn to_pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_rules_round_trip() {
        for (v1, name) in [
            ("Agent:SmartSchoolsCross", "Agent"),
            ("begin", "Begin"),
            ("retrieval:0", "Retrieval"),
            ("generate:0", "Agent"),
            ("LLM:Foo_Bar", "LLM"),
            ("my_node:1", "Message"),
            ("NoColon", "Message"),
            ("UserFillUp:Ask", "UserFillUp"),
        ] {
            let k = v2_id(v1);
            assert_eq!(v2_id(&v1_id(&k, name)), k, "closure for {v1}");
        }
        assert_eq!(v2_id("Agent:SmartSchoolsCross"), "agent_SmartSchoolsCross");
        assert_eq!(v1_id("llm_x", "LLM"), "LLM:x");
        assert_eq!(v1_id("generate_0", "Agent"), "Generate:0");
        assert_eq!(v1_id("begin", "Begin"), "begin");
    }
}
