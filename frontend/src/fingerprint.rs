//! The identity of a canvas's behaviour: what a compiled program is looked up by.
//!
//! A published canvas and every session saved from it (`str(canvas)`: run-time values, path,
//! history, task id) have the same fingerprint, so a server or `run` finds the compiled program
//! for either; any edit that can change behaviour (a parameter, an edge, a display name, a
//! variable's default) changes it, and the run falls back to the interpreter.
//!
//! The canonical text is written straight into the hasher as it is walked, with the reset
//! applied on the way: building the reset DSL as a JSON tree and then a string first cost a copy
//! of the whole canvas twice over (about 30 MB and as long as loading it, for 10,000 nodes).

use super::document::{Document, DslComponent, Link};
use super::reset::{reset_global, CLEARED_PARAM, RECORD_TABLES};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::{self, Write};

/// Top-level keys that only hold session state.
const SESSION_KEYS: &[&str] = &[
    "path",
    "history",
    "retrieval",
    "memory",
    "messages",
    "task_id",
];

/// The keys the fingerprint adds to the DSL's own top-level keys (replacing any of that name).
const COMPONENTS: &str = "components";
const COMPONENT_ORDER: &str = "component_order";

/// What the reset makes every record's `value`.
static NULL: Value = Value::Null;

/// `sha256:<hex>` of the canvas's DSL (components as loaded, with their display names, and the
/// other top-level keys) after RAGFlow's reset, without session keys, as compact JSON with
/// every object's keys sorted — plus the components' order, which RAGFlow's dicts keep and
/// saved sessions show.
pub fn fingerprint(doc: &Document) -> String {
    let mut hasher = Sha256::new();
    // `Sha256` takes every byte it is given (its `io::Write` never fails): there is no error
    // to report here.
    let _infallible = write_dsl(&mut hasher, doc);
    let hex: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// One top-level entry of the canonical DSL.
enum Top<'a> {
    Value(&'a Value),
    Globals(&'a Map<String, Value>),
    Components,
    ComponentOrder,
}

fn write_dsl(w: &mut impl Write, doc: &Document) -> io::Result<()> {
    let mut top: Vec<(&str, Top)> = doc
        .dsl
        .iter()
        .filter(|(k, _)| {
            !SESSION_KEYS.contains(&k.as_str()) && *k != COMPONENTS && *k != COMPONENT_ORDER
        })
        .map(|(k, v)| match v {
            Value::Object(globals) if k == "globals" => (k.as_str(), Top::Globals(globals)),
            v => (k.as_str(), Top::Value(v)),
        })
        .collect();
    top.push((COMPONENTS, Top::Components));
    top.push((COMPONENT_ORDER, Top::ComponentOrder));
    let variables = doc.dsl.get("variables");
    object(w, top, |w, part| match part {
        Top::Value(v) => value(w, v),
        Top::Globals(globals) => write_globals(w, globals, variables),
        Top::Components => write_components(w, doc),
        Top::ComponentOrder => ids(w, doc.components.iter().map(|c| c.id.as_str())),
    })
}

/// `sys.*` left out, `env.*` as the reset restores them.
fn write_globals(
    w: &mut impl Write,
    globals: &Map<String, Value>,
    variables: Option<&Value>,
) -> io::Result<()> {
    let kept = globals
        .iter()
        .filter(|(k, _)| !k.starts_with("sys."))
        .map(|(k, v)| (k.as_str(), (k, v)))
        .collect();
    object(w, kept, |w, (k, v)| match reset_global(k, v, variables) {
        Some(reset) => value(w, &reset),
        None => value(w, v),
    })
}

/// Components by id; of several with exactly the same id (a graph may repeat one), the last
/// written, as inserting them into one JSON object keeps.
fn write_components(w: &mut impl Write, doc: &Document) -> io::Result<()> {
    let mut last_of_each: Vec<(&str, &DslComponent)> = Vec::with_capacity(doc.components.len());
    for c in doc.components.iter().rev() {
        last_of_each.push((c.id.as_str(), c));
    }
    // Stable: of equal ids the last written comes first, and is the one kept.
    last_of_each.sort_by(|a, b| a.0.cmp(b.0));
    last_of_each.dedup_by(|later, first| later.0 == first.0);
    object(w, last_of_each, write_component)
}

fn write_component(w: &mut impl Write, c: &DslComponent) -> io::Result<()> {
    w.write_all(b"{\"display_name\":")?;
    serde_json::to_writer(&mut *w, &c.display_name)?;
    w.write_all(b",\"downstream\":")?;
    ids(w, link_ids(&c.downstream))?;
    w.write_all(b",\"obj\":{\"component_name\":")?;
    serde_json::to_writer(&mut *w, &c.component_name)?;
    w.write_all(b",\"params\":")?;
    write_params(w, &c.params)?;
    w.write_all(b"},\"parent_id\":")?;
    serde_json::to_writer(&mut *w, &c.parent_id.as_ref().map(|p| p.id.as_str()))?;
    w.write_all(b",\"upstream\":")?;
    ids(w, link_ids(&c.upstream))?;
    w.write_all(b"}")
}

fn link_ids(links: &[Link]) -> impl Iterator<Item = &str> {
    links.iter().map(|l| l.id.as_str())
}

/// Params after the reset: record values null, `debug_inputs` empty.
fn write_params(w: &mut impl Write, params: &Map<String, Value>) -> io::Result<()> {
    let entries = params.iter().map(|(k, v)| (k.as_str(), (k, v))).collect();
    object(w, entries, |w, (k, v)| match v {
        Value::Object(records) if RECORD_TABLES.contains(&k.as_str()) => {
            let records = records.iter().map(|(k, v)| (k.as_str(), v)).collect();
            object(w, records, write_reset_record)
        }
        _ if k == CLEARED_PARAM => w.write_all(b"{}"),
        v => value(w, v),
    })
}

fn write_reset_record(w: &mut impl Write, record: &Value) -> io::Result<()> {
    let Value::Object(fields) = record else {
        return value(w, record);
    };
    let mut fields: Vec<(&str, &Value)> = fields
        .iter()
        .filter(|(k, _)| *k != "value")
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    fields.push(("value", &NULL));
    object(w, fields, value)
}

fn ids<'a>(w: &mut impl Write, ids: impl IntoIterator<Item = &'a str>) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, id) in ids.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, id)?;
    }
    w.write_all(b"]")
}

/// Any JSON value, compact, with every object's keys sorted.
fn value(w: &mut impl Write, v: &Value) -> io::Result<()> {
    match v {
        Value::Array(items) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                value(w, item)?;
            }
            w.write_all(b"]")
        }
        Value::Object(m) => object(w, m.iter().map(|(k, v)| (k.as_str(), v)).collect(), value),
        scalar => serde_json::to_writer(&mut *w, scalar).map_err(io::Error::from),
    }
}

/// An object of `entries` in key order, each value written by `each`.
fn object<W: Write, T>(
    w: &mut W,
    mut entries: Vec<(&str, T)>,
    mut each: impl FnMut(&mut W, T) -> io::Result<()>,
) -> io::Result<()> {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    w.write_all(b"{")?;
    for (i, (key, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, key)?;
        w.write_all(b":")?;
        each(w, v)?;
    }
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_str;
    use crate::reset::reset;
    use serde_json::json;
    use std::path::Path;

    /// The definition the streamed hash must agree with, byte for byte: build the DSL with its
    /// components, reset it, drop the session keys and `sys.*` globals, sort every object's
    /// keys, serialise, hash.
    fn by_definition(doc: &Document) -> String {
        let ids =
            |links: &[Link]| Value::Array(links.iter().map(|l| json!(l.id)).collect::<Vec<_>>());
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
        let mut dsl = doc.dsl.clone();
        dsl.insert(COMPONENTS.into(), Value::Object(components));
        let order = doc.components.iter().map(|c| json!(c.id)).collect();
        dsl.insert(COMPONENT_ORDER.into(), Value::Array(order));
        let mut dsl = Value::Object(dsl);
        reset(&mut dsl);
        if let Value::Object(m) = &mut dsl {
            for key in SESSION_KEYS {
                m.shift_remove(*key);
            }
            if let Some(Value::Object(globals)) = m.get_mut("globals") {
                globals.retain(|k, _| !k.starts_with("sys."));
            }
        }
        let canonical = serde_json::to_string(&sorted(dsl)).expect("serialises");
        let hex: String = Sha256::digest(canonical.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("sha256:{hex}")
    }

    fn sorted(v: Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut entries: Vec<(String, Value)> = m.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
            }
            Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
            other => other,
        }
    }

    fn assert_agrees(name: &str, text: &str) -> bool {
        let Ok(loaded) = load_str(text) else {
            return false;
        };
        assert_eq!(
            fingerprint(&loaded.document),
            by_definition(&loaded.document),
            "{name}"
        );
        true
    }

    #[test]
    fn streamed_hash_agrees_with_the_definition_on_every_fixture_and_fuzz_case() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut checked = 0;
        for dir in ["fixtures/valid", "fixtures/broken", "tests/fuzz/cases"] {
            let entries = std::fs::read_dir(root.join(dir)).expect("the folder is there");
            for path in entries.flatten().map(|e| e.path()) {
                let name = path.display().to_string();
                if !name.ends_with(".json") || name.ends_with(".case.json") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable");
                checked += usize::from(assert_agrees(&name, &text));
            }
        }
        assert!(checked > 500, "only {checked} canvases were compared");
    }

    #[test]
    fn streamed_hash_agrees_on_the_corner_cases() {
        let cases = [
            // The same id twice in a graph (the last one counts), ids differing in case,
            // records that are not objects, a `debug_inputs` to clear, a record without `value`.
            json!({"graph": {"nodes": [
                {"id": "begin", "data": {"label": "Begin", "name": "first", "form": {"x": 1}}},
                {"id": "Begin", "data": {"label": "Begin", "name": "case", "form": {}}},
                {"id": "begin", "data": {"label": "Begin", "name": "second", "form": {
                    "outputs": {"a": {"type": "str"}, "b": 3, "c": {"value": [1, {"z": 1, "a": 2}]}},
                    "inputs": [], "debug_inputs": {"q": 1}}}}
            ], "edges": []}}),
            // Globals: `sys.*` dropped, `env.*` restored from declarations or zeroed by type,
            // other globals kept; session keys dropped; a DSL key named like an added one.
            json!({"components": {"begin": {"obj": {"component_name": "Begin", "params": {}}}},
                   "globals": {"sys.query": "q", "env.a": 5, "env.b": "x", "env.c": 1, "other": {"b": 1, "a": 2}},
                   "variables": {"a": {"type": "number", "value": null}, "b": {"type": "string", "value": "d"}},
                   "component_order": ["zzz"], "path": ["begin"], "task_id": "t", "messages": [1],
                   "unicode \u{e9}": "\u{2028}\"\\\n", "n": [1.5, -0.0, 1e300, 12345678901234567890u64]}),
            // Globals that are not an object; a v2 canvas with parents and display names.
            json!({"version": 2, "globals": [1, 2], "components": {
                "begin": {"id": "begin", "name": "Begin", "params": {"outputs": {"x": {"value": 1}}},
                          "downstream": ["Loop:L"], "display_name": "Start"},
                "Loop:L": {"id": "Loop:L", "name": "Loop", "params": {}, "upstream": ["begin"]},
                "LoopItem:I": {"id": "LoopItem:I", "name": "LoopItem", "params": {}, "parent_id": "Loop:L"}}}),
        ];
        for (i, case) in cases.iter().enumerate() {
            assert!(assert_agrees(&format!("case {i}"), &case.to_string()));
        }
    }
}
