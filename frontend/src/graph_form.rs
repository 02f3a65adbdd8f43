//! The editor's graph-only form: components derived from `graph.nodes` and `graph.edges` the
//! way RAGFlow's editor does when it saves (`web/src/pages/agent/utils.ts`,
//! `buildDslComponentsByGraph`).

use super::component_parts::{component_from_parts, json_type_name};
use super::diagnostic::{pointer_join, Code, Diagnostic};
use super::document::{Document, Form, Link, Locations};
use super::migrate;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Node labels the editor never turns into components.
const EXCLUDED_LABELS: &[&str] = &["Note", "Tool", "Placeholder"];

const AGENT_BOTTOM: &str = "agentBottom";
const AGENT_TOP: &str = "agentTop";
const AGENT_EXCEPTION: &str = "agentException";

/// The editor's sampling toggles; a parameter whose toggle is off is dropped for Categorize.
const ENABLED_FIELDS: &[(&str, &str)] = &[
    ("temperatureEnabled", "temperature"),
    ("topPEnabled", "top_p"),
    ("presencePenaltyEnabled", "presence_penalty"),
    ("frequencyPenaltyEnabled", "frequency_penalty"),
    ("maxTokensEnabled", "max_tokens"),
];

struct Node<'a> {
    index: usize,
    id: &'a str,
    label: &'a str,
    name: &'a str,
    form: Map<String, Value>,
    parent: Option<&'a str>,
}

struct Edge<'a> {
    index: usize,
    source: &'a str,
    target: &'a str,
    source_handle: &'a str,
    target_handle: &'a str,
}

/// The edges, also indexed by the node they leave and the node they enter (each list in the
/// graph's order), so that finding a node's edges is not a scan of all of them.
struct Edges<'a> {
    all: Vec<Edge<'a>>,
    leaving: HashMap<&'a str, Vec<usize>>,
    entering: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Edges<'a> {
    fn new(all: Vec<Edge<'a>>) -> Edges<'a> {
        let mut leaving: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut entering: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, e) in all.iter().enumerate() {
            leaving.entry(e.source).or_default().push(i);
            entering.entry(e.target).or_default().push(i);
        }
        Edges {
            all,
            leaving,
            entering,
        }
    }

    /// Edges whose source is `id`, in the graph's order.
    fn leaving(&self, id: &str) -> impl Iterator<Item = &Edge<'a>> {
        self.leaving
            .get(id)
            .into_iter()
            .flatten()
            .map(|&i| &self.all[i])
    }

    /// Edges whose target is `id`, in the graph's order.
    fn entering(&self, id: &str) -> impl Iterator<Item = &Edge<'a>> {
        self.entering
            .get(id)
            .into_iter()
            .flatten()
            .map(|&i| &self.all[i])
    }
}

pub fn load(
    mut dsl: Map<String, Value>,
    dsl_pointer: String,
    diags: &mut Vec<Diagnostic>,
) -> Document {
    migrate::normalize_legacy_ids(&mut dsl);
    let graph_ptr = pointer_join(&dsl_pointer, &["graph"]);
    let graph = dsl.get("graph").cloned().unwrap_or(Value::Null);
    let nodes = parse_nodes(&graph, &graph_ptr, diags);
    let edges = Edges::new(parse_edges(&graph, &graph_ptr, diags));
    report_missing_cases(&nodes, &edges, &graph_ptr, diags);
    let mut components = Vec::new();
    for node in &nodes {
        if EXCLUDED_LABELS.contains(&node.label) || is_bottom_sub_agent(&edges, node.id) {
            continue;
        }
        let node_ptr = pointer_join(&graph_ptr, &["nodes", &node.index.to_string()]);
        let params = match node.label {
            "Agent" => {
                let mut params = agent_params(&nodes, &edges, node);
                params.insert(
                    "exception_goto".into(),
                    Value::Array(
                        edges
                            .leaving(node.id)
                            .filter(|e| e.source_handle == AGENT_EXCEPTION)
                            .map(|e| Value::String(e.target.to_string()))
                            .collect(),
                    ),
                );
                params
            }
            "Categorize" => categorize_params(&edges, node),
            "DataOperations" => data_operations_params(node.form.clone()),
            _ => node.form.clone(),
        };
        let mut obj = Map::new();
        obj.insert(
            "component_name".into(),
            Value::String(node.label.to_string()),
        );
        obj.insert("params".into(), Value::Object(params));
        let mut component = component_from_parts(
            node.id,
            obj,
            Locations {
                entry: node_ptr.clone(),
                params: pointer_join(&node_ptr, &["data", "form"]),
                name: pointer_join(&node_ptr, &["data", "label"]),
            },
            diags,
        );
        let edge_ptr = |e: &Edge| pointer_join(&graph_ptr, &["edges", &e.index.to_string()]);
        let is_agent = node.label == "Agent";
        component.downstream = edges
            .leaving(node.id)
            .filter(|e| {
                !is_agent
                    || (e.source_handle != AGENT_EXCEPTION
                        && !e.target.starts_with("Tool")
                        && !(e.target.starts_with("Agent") && e.target_handle == AGENT_TOP))
            })
            .map(|e| Link {
                id: e.target.to_string(),
                pointer: edge_ptr(e),
            })
            .collect();
        component.upstream = edges
            .entering(node.id)
            .map(|e| Link {
                id: e.source.to_string(),
                pointer: edge_ptr(e),
            })
            .collect();
        component.parent_id = node.parent.map(|p| Link {
            id: p.to_string(),
            pointer: pointer_join(&node_ptr, &["parentId"]),
        });
        component.display_name = node.name.to_string();
        components.push(component);
    }
    Document::new(Form::Graph, components, dsl, None, dsl_pointer)
}

/// Edges leaving a Switch or Categorize from a handle that names no case: the editor drew a
/// route the canvas can never take.
fn report_missing_cases(
    nodes: &[Node],
    edges: &Edges,
    graph_ptr: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for node in nodes {
        let handles: Vec<String> = match node.label {
            "Switch" => {
                let cases = node
                    .form
                    .get("conditions")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                (1..=cases)
                    .map(|i| format!("Case {i}"))
                    .chain(["end_cpn_ids".to_string()])
                    .collect()
            }
            "Categorize" => node
                .form
                .get("items")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|i| i.get("uuid").and_then(Value::as_str).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            _ => continue,
        };
        for e in edges.leaving(node.id) {
            if !handles.iter().any(|h| h == e.source_handle) {
                diags.push(
                    Diagnostic::new(
                        Code::Structural,
                        format!(
                            "an edge leaves {} `{}` from `{}`, which is not one of its cases",
                            node.label, node.id, e.source_handle
                        ),
                    )
                    .component(node.id)
                    .at(pointer_join(
                        graph_ptr,
                        &["edges", &e.index.to_string(), "sourceHandle"],
                    ))
                    .help(format!("its cases are {}", handles.join(", "))),
                );
            }
        }
    }
}

fn parse_nodes<'a>(
    graph: &'a Value,
    graph_ptr: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Node<'a>> {
    let Some(Value::Array(nodes)) = graph.get("nodes") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, n) in nodes.iter().enumerate() {
        let ptr = pointer_join(graph_ptr, &["nodes", &index.to_string()]);
        let (Some(id), Some(label)) = (
            n.get("id").and_then(Value::as_str),
            n.pointer("/data/label").and_then(Value::as_str),
        ) else {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!("graph node {index} has no string `id` and `data.label`"),
                )
                .at(ptr),
            );
            continue;
        };
        let form = match n.pointer("/data/form") {
            Some(Value::Object(form)) => form.clone(),
            None | Some(Value::Null) => Map::new(),
            Some(other) => {
                diags.push(
                    Diagnostic::new(
                        Code::Structural,
                        format!(
                            "the form of graph node `{id}` is {}, expected an object",
                            json_type_name(other)
                        ),
                    )
                    .component(id)
                    .at(pointer_join(&ptr, &["data", "form"])),
                );
                Map::new()
            }
        };
        out.push(Node {
            index,
            id,
            label,
            name: n
                .pointer("/data/name")
                .and_then(Value::as_str)
                .unwrap_or(""),
            form,
            parent: n
                .get("parentId")
                .and_then(Value::as_str)
                .filter(|p| !p.is_empty()),
        });
    }
    out
}

fn parse_edges<'a>(
    graph: &'a Value,
    graph_ptr: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Edge<'a>> {
    let Some(Value::Array(edges)) = graph.get("edges") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, e) in edges.iter().enumerate() {
        let (Some(source), Some(target)) = (
            e.get("source").and_then(Value::as_str),
            e.get("target").and_then(Value::as_str),
        ) else {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!("graph edge {index} has no string `source` and `target`"),
                )
                .at(pointer_join(graph_ptr, &["edges", &index.to_string()])),
            );
            continue;
        };
        out.push(Edge {
            index,
            source,
            target,
            source_handle: e.get("sourceHandle").and_then(Value::as_str).unwrap_or(""),
            target_handle: e.get("targetHandle").and_then(Value::as_str).unwrap_or(""),
        });
    }
    out
}

fn is_bottom_sub_agent(edges: &Edges, id: &str) -> bool {
    edges.entering(id).any(|e| e.target_handle == AGENT_TOP)
}

/// An Agent's params with the sub-agents hanging off its bottom handle appended as tools,
/// recursively (`buildAgentTools`).
fn agent_params(nodes: &[Node], edges: &Edges, node: &Node) -> Map<String, Value> {
    agent_params_at_depth(nodes, edges, node, 0)
}

fn agent_params_at_depth(
    nodes: &[Node],
    edges: &Edges,
    node: &Node,
    depth: usize,
) -> Map<String, Value> {
    let mut params = node.form.clone();
    // A cycle of sub-agents would recurse forever in the editor; stop well before that.
    if node.label != "Agent" || depth > 32 {
        return params;
    }
    let mut tools = match params.shift_remove("tools") {
        Some(Value::Array(t)) => t,
        _ => Vec::new(),
    };
    for e in edges
        .leaving(node.id)
        .filter(|e| e.source_handle == AGENT_BOTTOM)
    {
        let Some(sub) = nodes.iter().find(|n| n.id == e.target) else {
            continue;
        };
        let mut tool = Map::new();
        tool.insert("component_name".into(), Value::String("Agent".into()));
        tool.insert("id".into(), Value::String(sub.id.to_string()));
        tool.insert("name".into(), Value::String(sub.name.to_string()));
        tool.insert(
            "params".into(),
            Value::Object(agent_params_at_depth(nodes, edges, sub, depth + 1)),
        );
        tools.push(Value::Object(tool));
    }
    params.insert("tools".into(), Value::Array(tools));
    params
}

/// Categorize's editor `items` become `category_description`, with each category's routes taken
/// from the edges leaving its handle (`buildCategorize`), and disabled sampling params dropped.
fn categorize_params(edges: &Edges, node: &Node) -> Map<String, Value> {
    let mut params = node.form.clone();
    for (flag, param) in ENABLED_FIELDS {
        let enabled = params.get(*flag).is_some_and(canvasc_value::py::truthy);
        params.shift_remove(*flag);
        if !enabled {
            params.shift_remove(*param);
        }
    }
    params.shift_remove("parameter");
    let items = match params.shift_remove("items") {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let mut categories = Map::new();
    for item in items {
        let Value::Object(mut item) = item else {
            continue;
        };
        let name = match item.shift_remove("name") {
            Some(Value::String(n)) => n,
            _ => String::new(),
        };
        let uuid = match item.shift_remove("uuid") {
            Some(Value::String(u)) => u,
            _ => String::new(),
        };
        let examples: Vec<Value> = match item.get("examples") {
            Some(Value::Array(ex)) => ex
                .iter()
                .map(|x| x.get("value").cloned().unwrap_or(Value::Null))
                .collect(),
            _ => Vec::new(),
        };
        item.insert("examples".into(), Value::Array(examples));
        item.insert(
            "to".into(),
            Value::Array(
                edges
                    .leaving(node.id)
                    .filter(|e| e.source_handle == uuid)
                    .map(|e| Value::String(e.target.to_string()))
                    .collect(),
            ),
        );
        categories.insert(name, Value::Object(item));
    }
    params.insert("category_description".into(), Value::Object(categories));
    params
}

/// DataOperations' editor rows become plain lists (`transformDataOperationsParams`).
fn data_operations_params(mut params: Map<String, Value>) -> Map<String, Value> {
    for (key, field) in [
        ("select_keys", "name"),
        ("remove_keys", "name"),
        ("query", "input"),
    ] {
        if let Some(Value::Array(rows)) = params.get_mut(key) {
            for row in rows.iter_mut() {
                if let Some(v) = row.get(field).cloned() {
                    *row = v;
                }
            }
        }
    }
    params
}
