//! Synthetic canvases for benchmarks: chains, wide fan-out/fan-in, chains of diamonds and an
//! Iteration over many items, built from pure components only.

use serde_json::{json, Map, Value as Json};

fn node(name: &str, params: Json, downstream: Vec<String>, upstream: Vec<String>) -> Json {
    json!({"obj": {"component_name": name, "params": params}, "downstream": downstream, "upstream": upstream})
}

fn canvas(components: Map<String, Json>) -> String {
    serde_json::to_string(&json!({
        "components": components, "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []}
    }))
    .unwrap_or_default()
}

/// A StringTransform merge that appends to the text of the node before it.
fn merge_step(previous: Option<&str>) -> Json {
    match previous {
        Some(p) => merge(&format!("{{{p}@result}}+")),
        None => merge("{sys.query}"),
    }
}

/// A StringTransform merge of `script`.
fn merge(script: &str) -> Json {
    json!({"method": "merge", "script": script, "delimiters": [","], "outputs": {"result": {"type": "string", "value": ""}}})
}

/// `begin → n1 → … → nN`: each step reads the previous step's output.
pub fn chain(n: usize) -> String {
    steps(n, merge_step)
}

/// `begin → n1 → … → nN` where no step references anything (each merges a constant text):
/// what a node costs in the scheduler, the invoke wrapper, its events and its state, which both
/// back-ends share, with no reference to resolve.
pub fn constant_chain(n: usize) -> String {
    steps(n, |_| merge("x"))
}

/// `begin → n1 → … → nN` of StringTransforms, each with the parameters `params(previous)`.
fn steps(n: usize, params: impl Fn(Option<&str>) -> Json) -> String {
    let mut c = Map::new();
    let id = |i: usize| format!("StringTransform:Step{i}");
    c.insert(
        "begin".into(),
        node("Begin", json!({}), vec![id(1)], vec![]),
    );
    for i in 1..=n {
        let prev = (i > 1).then(|| id(i - 1));
        let down = if i < n { vec![id(i + 1)] } else { vec![] };
        let up = vec![prev.clone().unwrap_or_else(|| "begin".into())];
        c.insert(
            id(i),
            node("StringTransform", params(prev.as_deref()), down, up),
        );
    }
    canvas(c)
}

/// `begin → {w1 … wN} → join`: N independent steps, then a Message that reads all of them.
///
/// The join is a Message, as in real canvases. (A StringTransform merge over N references is
/// quadratic by definition: RAGFlow substitutes each reference with one `re.sub` over the whole
/// text, and a later reference may match inside an earlier one's value, so canvasc keeps that
/// loop.)
pub fn fan(n: usize) -> String {
    let mut c = Map::new();
    let id = |i: usize| format!("StringTransform:Wide{i}");
    c.insert(
        "begin".into(),
        node("Begin", json!({}), (1..=n).map(id).collect(), vec![]),
    );
    let mut content = String::new();
    for i in 1..=n {
        c.insert(
            id(i),
            node(
                "StringTransform",
                merge_step(None),
                vec!["Message:Join".into()],
                vec!["begin".into()],
            ),
        );
        content.push_str(&format!("{{{}@result}}", id(i)));
    }
    c.insert(
        "Message:Join".into(),
        node(
            "Message",
            json!({"content": [content]}),
            vec![],
            (1..=n).map(id).collect(),
        ),
    );
    canvas(c)
}

/// `begin → (s → {a, b} → j)…`: about `n` nodes in diamonds, each step splitting into two
/// parallel steps that a join merges again; every node reads what it waits for.
pub fn diamonds(n: usize) -> String {
    let mut c = Map::new();
    let rounds = n.div_ceil(4).max(1);
    let id = |part: &str, i: usize| format!("StringTransform:{part}{i}");
    c.insert(
        "begin".into(),
        node("Begin", json!({}), vec![id("Split", 1)], vec![]),
    );
    for i in 1..=rounds {
        let before = if i > 1 {
            id("Join", i - 1)
        } else {
            "begin".into()
        };
        let split = id("Split", i);
        let (a, b, join) = (id("Left", i), id("Right", i), id("Join", i));
        c.insert(
            split.clone(),
            node(
                "StringTransform",
                merge_step((i > 1).then_some(before.as_str())),
                vec![a.clone(), b.clone()],
                vec![before.clone()],
            ),
        );
        for side in [&a, &b] {
            c.insert(
                side.clone(),
                node(
                    "StringTransform",
                    merge_step(Some(&split)),
                    vec![join.clone()],
                    vec![split.clone()],
                ),
            );
        }
        let next = if i < rounds {
            vec![id("Split", i + 1)]
        } else {
            vec![]
        };
        c.insert(
            join.clone(),
            node(
                "StringTransform",
                merge(&format!("{{{a}@result}}{{{b}@result}}")),
                next,
                vec![a.clone(), b.clone()],
            ),
        );
    }
    canvas(c)
}

/// `text` (a canvas from this module) with the editor's `graph` beside its components, as
/// RAGFlow stores a canvas (display names come from it); with `graph_only` the components are
/// dropped, leaving the form the editor's graph alone describes.
pub fn with_graph(text: &str, graph_only: bool) -> String {
    let mut v: Json = serde_json::from_str(text).unwrap_or(Json::Null);
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    if let Some(components) = v.get("components").and_then(Json::as_object) {
        for (id, c) in components {
            let mut n = json!({"id": id, "data": {
                "label": c["obj"]["component_name"],
                "name": format!("Step {id}"),
                "form": c["obj"]["params"],
            }});
            if let Some(parent) = c.get("parent_id") {
                n["parentId"] = parent.clone();
            }
            nodes.push(n);
            for d in c["downstream"].as_array().into_iter().flatten() {
                edges.push(json!({"source": id, "target": d, "sourceHandle": "start", "targetHandle": "end"}));
            }
        }
    }
    v["graph"] = json!({"nodes": nodes, "edges": edges});
    if graph_only {
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("components");
        }
    }
    serde_json::to_string(&v).unwrap_or_default()
}

/// An Iteration over `n` items whose body transforms each item.
pub fn iteration(n: usize) -> String {
    let items: Vec<Json> = (0..n).map(|i| json!(format!("item-{i}"))).collect();
    let mut c = Map::new();
    c.insert(
        "begin".into(),
        node("Begin", json!({}), vec!["Iteration:Each".into()], vec![]),
    );
    c.insert(
        "Iteration:Each".into(),
        node(
            "Iteration",
            json!({"items_ref": "env.items", "outputs": {"upper": {"ref": "StringTransform:Body@result", "type": "Array<string>"}}}),
            vec![],
            vec!["begin".into()],
        ),
    );
    let mut item = node(
        "IterationItem",
        json!({}),
        vec!["StringTransform:Body".into()],
        vec![],
    );
    item["parent_id"] = json!("Iteration:Each");
    c.insert("IterationItem:Start".into(), item);
    let mut body = node(
        "StringTransform",
        json!({"method": "merge", "script": "[{item}]", "delimiters": [","]}),
        vec![],
        vec!["IterationItem:Start".into()],
    );
    body["parent_id"] = json!("Iteration:Each");
    c.insert("StringTransform:Body".into(), body);
    let mut v: Json = serde_json::from_str(&canvas(c)).unwrap_or(Json::Null);
    // A new session restores `env.*` from the declared default, so the items live there.
    v["globals"]["env.items"] = Json::Array(items.clone());
    v["variables"] = json!({"items": {"name": "items", "type": "array<string>", "value": items}});
    serde_json::to_string(&v).unwrap_or_default()
}
