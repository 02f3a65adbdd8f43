//! Malformed input never panics: mutated corpus and fixture DSLs go through the loader, the
//! checker, both renderers, the converters and the reset transform.

use canvasc_frontend::convert::{to_v1, to_v2};
use canvasc_frontend::{analyze, reset::reset};
use canvasc_tests::{corpus_files, fixture_files, shared_dir};
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// Every seed canvas: the fixtures, plus the corpus when it is present.
fn seeds() -> &'static Vec<Value> {
    static SEEDS: OnceLock<Vec<Value>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut files = fixture_files("valid");
        files.extend(fixture_files("broken"));
        if let Some(shared) = shared_dir("fuzz") {
            files.extend(corpus_files(&shared));
        }
        let mut out: Vec<Value> = files
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .filter_map(|t| serde_json::from_str(&t).ok())
            .collect();
        // A minimal canvas keeps the test meaningful even in a bare checkout.
        out.push(serde_json::json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Message:A"], "upstream": []},
                "Message:A": {"obj": {"component_name": "Message", "params": {"content": ["{sys.query} {begin@x}"]}},
                              "downstream": [], "upstream": ["begin"]}
            },
            "history": [], "path": [], "retrieval": []
        }));
        out
    })
}

#[derive(Clone, Debug)]
struct Mutation {
    at: u32,
    op: u8,
    payload: String,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let payload = prop_oneof![
        "[{}@:. a-zA-Z0-9_-]{0,24}",
        Just("begin".to_string()),
        Just("{sys.query}".to_string()),
        Just("{{ sys.query }}".to_string()),
        Just("Agent:X@content.0.a".to_string()),
        Just("{item}".to_string()),
        Just("\u{1F600}\\u{0}é".to_string()),
    ];
    (any::<u32>(), 0u8..10, payload).prop_map(|(at, op, payload)| Mutation { at, op, payload })
}

/// JSON pointers of every value, in document order.
fn pointers(v: &Value, base: String, out: &mut Vec<String>) {
    out.push(base.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                pointers(
                    c,
                    format!("{base}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                pointers(c, format!("{base}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn apply(root: &mut Value, m: &Mutation) {
    let mut all = Vec::new();
    pointers(root, String::new(), &mut all);
    let ptr = &all[m.at as usize % all.len()];
    let (parent_ptr, last) = match ptr.rfind('/') {
        Some(i) => (
            &ptr[..i],
            ptr[i + 1..].replace("~1", "/").replace("~0", "~"),
        ),
        None => ("", String::new()),
    };
    if m.op == 0 {
        match root.pointer_mut(parent_ptr) {
            Some(Value::Object(map)) => {
                map.shift_remove(&last);
            }
            Some(Value::Array(a)) => {
                if let Ok(i) = last.parse::<usize>() {
                    if i < a.len() {
                        a.remove(i);
                    }
                }
            }
            _ => {}
        }
        return;
    }
    if m.op == 9 {
        if let Some(Value::Object(map)) = root.pointer_mut(parent_ptr) {
            if let Some(v) = map.shift_remove(&last) {
                map.insert(m.payload.clone(), v);
            }
        }
        return;
    }
    let Some(target) = root.pointer_mut(ptr) else {
        return;
    };
    *target = match m.op {
        1 => Value::Null,
        2 => Value::from(m.at as i64 - i32::MAX as i64),
        3 => Value::String(m.payload.clone()),
        4 => Value::Object(Map::new()),
        5 => Value::Array(Vec::new()),
        6 => Value::Array(vec![Value::String(m.payload.clone())]),
        7 => match target.take() {
            Value::String(s) => {
                let mid = s
                    .char_indices()
                    .nth(s.chars().count() / 2)
                    .map_or(s.len(), |(i, _)| i);
                Value::String(format!("{}{}{}", &s[..mid], m.payload, &s[mid..]))
            }
            other => Value::Array(vec![other]),
        },
        _ => Value::from(1.5),
    };
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_canvases_never_panic(seed in any::<u32>(), mutations in proptest::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let mut doc = seeds[seed as usize % seeds.len()].clone();
        for m in &mutations {
            apply(&mut doc, m);
        }
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Ok(analysis) = analyze(&text) {
            let rendered = canvasc::report::human("fuzz.json", &text, &analysis.diagnostics, false);
            prop_assert!(analysis.diagnostics.is_empty() || !rendered.is_empty());
            let _ = canvasc::report::json(&[("fuzz.json".into(), analysis.diagnostics.clone())]);
            let _ = to_v1(&analysis.document);
            let _ = to_v2(&analysis.document);
        }
        let mut reset_doc = doc.clone();
        reset(&mut reset_doc);
        // Truncated text is not JSON: a clean error, never a panic.
        let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
        prop_assert!(analyze(&text[..cut]).is_err());
    }
}
