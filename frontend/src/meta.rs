//! Static facts about a canvas the scheduler needs, whichever back-end runs it: ids, names,
//! kinds, edges, loop structure and exception routes. The interpreter derives them from the IR;
//! generated code embeds them as constants.

use crate::catalog::Kind;
use crate::construct::{construction_error, ConstructionError};
use crate::ir::{Ir, NodeId};
use serde_json::{Map, Value as Json};
use std::collections::HashMap;
use std::sync::Arc;

/// One entry of a `downstream`, route or goto list: a node, or an id that names nothing
/// (RAGFlow appends it to the path anyway and fails when it gets there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Node(NodeId),
    Missing(String),
}

/// Exception handling of a node (BS §9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExceptionMeta {
    /// `exception_method` when truthy.
    pub method: Option<String>,
    pub goto: Vec<Target>,
    /// `exception_default_value` (any JSON; truthiness decides whether it is used).
    pub default_value: Json,
}

/// What the scheduler knows about one node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMeta {
    pub id: String,
    /// The graph node's `data.name`, or `""`.
    pub display_name: String,
    /// `component_name` as reported in events.
    pub component_name: String,
    pub kind: Kind,
    pub downstream: Vec<Target>,
    pub upstream: Vec<String>,
    pub parent: Option<NodeId>,
    /// For Iteration/Loop: the IterationItem/LoopItem (`get_start()`).
    pub start: Option<NodeId>,
    pub exception: ExceptionMeta,
    /// The parameters as RAGFlow's param object holds them (defaults updated with the DSL).
    pub params: Map<String, Json>,
    /// Entry keys other than `obj`/`downstream`/`upstream`/`parent_id`, kept for saving.
    pub entry_extra: Map<String, Json>,
    /// Declared output names (the IR's outputs): a bound reference names one by its index.
    pub outputs: Arc<[String]>,
}

impl NodeMeta {
    pub fn param(&self, key: &str) -> Option<&Json> {
        self.params.get(key)
    }

    /// The slot of a declared output.
    pub fn slot(&self, output: &str) -> Option<u16> {
        self.outputs
            .iter()
            .position(|o| o == output)
            .and_then(|i| u16::try_from(i).ok())
    }
}

/// Static facts about the whole canvas.
#[derive(Clone, Debug, PartialEq)]
pub struct CanvasMeta {
    pub nodes: Vec<NodeMeta>,
    pub begin: Option<NodeId>,
    /// Whether any node is a UserFillUp (only then can a run pause).
    pub has_forms: bool,
    /// The exception RAGFlow raises building this canvas (`Canvas(dsl)`): no turn of it runs.
    pub construction_error: Option<ConstructionError>,
    by_id: HashMap<String, NodeId>,
    /// Exact ids, tried first so the common lookup allocates nothing.
    by_exact_id: HashMap<String, NodeId>,
}

impl CanvasMeta {
    pub fn new(nodes: Vec<NodeMeta>) -> Self {
        let mut by_id = HashMap::new();
        let mut by_exact_id = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            by_id.entry(n.id.to_lowercase()).or_insert(NodeId(i as u32));
            by_exact_id.entry(n.id.clone()).or_insert(NodeId(i as u32));
        }
        let begin = by_id.get("begin").copied();
        CanvasMeta {
            has_forms: nodes.iter().any(|n| n.kind == Kind::UserFillUp),
            nodes,
            begin,
            construction_error: None,
            by_id,
            by_exact_id,
        }
    }

    /// The same facts, for a canvas RAGFlow cannot build.
    pub fn with_construction_error(mut self, error: Option<ConstructionError>) -> Self {
        self.construction_error = error;
        self
    }

    /// Build from the IR (the interpreter's path).
    pub fn from_ir(ir: &Ir, doc: &crate::Document) -> Self {
        let mut nodes = Vec::with_capacity(ir.nodes.len());
        for n in &ir.nodes {
            let c = doc.component(&n.id);
            let target = |id: &str| match ir.find(id) {
                Some(node) => Target::Node(node),
                None => Target::Missing(id.to_string()),
            };
            let goto = match n.params.get("exception_goto") {
                Some(Json::Array(ids)) => ids.iter().filter_map(Json::as_str).map(target).collect(),
                Some(Json::String(id)) if !id.is_empty() => vec![target(id)],
                _ => Vec::new(),
            };
            nodes.push(NodeMeta {
                id: n.id.clone(),
                display_name: n.display_name.clone(),
                component_name: display_component_name(n.kind, &n.component_name),
                kind: n.kind,
                downstream: n.downstream_ids.iter().map(|d| target(d)).collect(),
                upstream: c
                    .map(|c| c.upstream.iter().map(|l| l.id.clone()).collect())
                    .unwrap_or_default(),
                parent: n.parent,
                start: n.start,
                exception: ExceptionMeta {
                    method: n.exception.method.clone(),
                    goto,
                    default_value: n
                        .params
                        .get("exception_default_value")
                        .cloned()
                        .unwrap_or(Json::Null),
                },
                params: n.params.clone(),
                entry_extra: c.map(|c| c.entry_extra.clone()).unwrap_or_default(),
                outputs: n.outputs.iter().map(|o| o.name.clone()).collect(),
            });
        }
        CanvasMeta::new(nodes).with_construction_error(construction_error(doc))
    }

    pub fn node(&self, id: NodeId) -> &NodeMeta {
        &self.nodes[id.index()]
    }

    /// Find a node by id, case-insensitively.
    pub fn find(&self, id: &str) -> Option<NodeId> {
        self.by_exact_id
            .get(id)
            .or_else(|| self.by_id.get(&id.to_lowercase()))
            .copied()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// RAGFlow's display name for an id (`""` when unknown).
    pub fn display_name(&self, id: &str) -> String {
        self.find(id)
            .map(|n| self.node(n).display_name.clone())
            .unwrap_or_default()
    }
}

/// Events report the class name RAGFlow instantiated: legacy aliases report the class they run
/// as (`Generate` runs as `LLM`), except `Answer`, which has its own semantics.
fn display_component_name(kind: Kind, written: &str) -> String {
    match kind {
        Kind::Answer => "Answer".to_string(),
        _ if written == kind.name() => written.to_string(),
        _ => kind.name().to_string(),
    }
}
