//! The intermediate representation both back-ends consume: nodes with resolved edges, routes,
//! parents, declared outputs and references bound to their targets.
//!
//! Lowering never fails: anything that does not resolve (a dangling edge, an unknown component)
//! is kept in its unresolved form so the checker can report it and the interpreter can behave
//! exactly as RAGFlow does at run time.

use super::catalog::defaults::merged_params;
use super::catalog::{declared_outputs, fixed_outputs, Kind, Ty, SHARED_OUTPUTS};
use super::document::Document;
use super::refs::{self, Alias, Expr, Extraction, Reference, RouteKind};
use serde_json::{Map, Value};

/// Index of a node in [`Ir::nodes`] (document order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A declared output of a node, with its static type.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub name: String,
    pub ty: Ty,
}

/// Exception handling configuration (BS §9).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ExceptionConfig {
    /// `exception_method` when truthy (`goto`, `comment`, …).
    pub method: Option<String>,
    pub goto: Vec<NodeId>,
    pub default_value: Option<Value>,
}

/// One branch of a Switch or Categorize.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    pub kind: RouteKind,
    pub targets: Vec<NodeId>,
}

/// A component in the IR.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Position of the component in [`Document::components`].
    pub component: usize,
    pub id: String,
    pub display_name: String,
    pub kind: Kind,
    /// `component_name` as RAGFlow reports it in events (after its load-time migration).
    pub component_name: String,
    /// Parameters as RAGFlow's param object holds them: class defaults updated with the DSL.
    pub params: Map<String, Value>,
    /// `downstream` ids as written; resolved ones are in `downstream`.
    pub downstream_ids: Vec<String>,
    pub downstream: Vec<NodeId>,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    /// For Iteration and Loop: the IterationItem/LoopItem that starts the body (`get_start()`).
    pub start: Option<NodeId>,
    /// Switch cases then ELSE, or Categorize categories in order.
    pub branches: Vec<Branch>,
    pub exception: ExceptionConfig,
    /// Every output the node can have: shared, fixed by kind, then declared.
    pub outputs: Vec<Output>,
    /// Indices into [`Ir::refs`] of this node's references, in extraction order.
    pub refs: Vec<usize>,
}

impl Node {
    pub fn output(&self, name: &str) -> Option<&Output> {
        self.outputs.iter().find(|o| o.name == name)
    }

    /// Index of an output in [`Node::outputs`].
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|o| o.name == name)
    }
}

/// What a reference resolves to.
#[derive(Clone, Debug, PartialEq)]
pub enum RefTarget {
    /// An output of a node, then a path walked into the value.
    Output {
        node: NodeId,
        output: String,
        path: Vec<String>,
    },
    /// A global key (`sys.query`, `env.x`, or anything without `@`).
    Global(String),
    /// An iteration alias, resolved to the IterationItem of the enclosing Iteration.
    Alias { item: NodeId, alias: Alias },
    /// A component id that does not exist: RAGFlow raises `Can't find variable` when read.
    MissingComponent { component: String, output: String },
    /// An iteration alias whose Iteration has no IterationItem.
    DanglingAlias(Alias),
}

/// A reference bound to its target.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundRef {
    pub node: NodeId,
    pub at: Reference,
    pub target: RefTarget,
}

/// The IR of one canvas.
#[derive(Clone, Debug, PartialEq)]
pub struct Ir {
    pub nodes: Vec<Node>,
    /// The component with id `begin`, which RAGFlow starts every run from.
    pub begin: Option<NodeId>,
    pub refs: Vec<BoundRef>,
    /// Everything extraction found, including inert references and raw routes.
    pub extraction: Extraction,
    /// Lower-cased id → node.
    by_id: std::collections::HashMap<String, NodeId>,
}

impl Ir {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Look a node up by id, case-insensitively.
    pub fn find(&self, id: &str) -> Option<NodeId> {
        self.by_id.get(&id.to_lowercase()).copied()
    }
}

/// Lower a loaded document. Components of unknown kind are left out of the IR (the checker
/// reports them); their ids still resolve to nothing.
pub fn lower(doc: &Document) -> Ir {
    // Document index → node id, for components that have a kind.
    let mut node_of: Vec<Option<NodeId>> = Vec::with_capacity(doc.components.len());
    let mut nodes = Vec::new();
    for (position, c) in doc.components.iter().enumerate() {
        match c.kind() {
            Some(kind) => {
                node_of.push(Some(NodeId(nodes.len() as u32)));
                let params = merged_params(kind, &c.params);
                let mut outputs: Vec<Output> = SHARED_OUTPUTS
                    .iter()
                    .map(|(n, t)| Output {
                        name: n.to_string(),
                        ty: Ty::parse(t),
                    })
                    .collect();
                for (name, ty) in fixed_outputs(kind) {
                    push_output(&mut outputs, name, Ty::parse(ty));
                }
                for d in declared_outputs(kind, &c.params) {
                    push_output(&mut outputs, &d.name, d.ty);
                }
                nodes.push(Node {
                    component: position,
                    id: c.id.clone(),
                    display_name: c.display_name.clone(),
                    kind,
                    component_name: c.component_name.clone(),
                    params,
                    downstream_ids: c.downstream.iter().map(|l| l.id.clone()).collect(),
                    downstream: Vec::new(),
                    parent: None,
                    children: Vec::new(),
                    start: None,
                    branches: Vec::new(),
                    exception: ExceptionConfig::default(),
                    outputs,
                    refs: Vec::new(),
                });
            }
            _ => node_of.push(None),
        }
    }
    let resolve = |id: &str| doc.position(id).and_then(|p| node_of[p]);

    // Edges and parents.
    for (i, c) in doc.components.iter().enumerate() {
        let Some(n) = node_of[i] else { continue };
        let downstream: Vec<NodeId> = c.downstream.iter().filter_map(|l| resolve(&l.id)).collect();
        let parent = c.parent_id.as_ref().and_then(|l| resolve(&l.id));
        let node = &mut nodes[n.index()];
        node.downstream = downstream;
        node.parent = parent;
    }
    for i in 0..nodes.len() {
        if let Some(p) = nodes[i].parent {
            nodes[p.index()].children.push(NodeId(i as u32));
        }
    }
    for i in 0..nodes.len() {
        let item_kind = match nodes[i].kind {
            Kind::Iteration => Kind::IterationItem,
            Kind::Loop => Kind::LoopItem,
            _ => continue,
        };
        let start = nodes[i]
            .children
            .iter()
            .copied()
            .find(|c| nodes[c.index()].kind == item_kind);
        nodes[i].start = start;
    }

    // Routes, exception handling.
    let extraction = refs::extract(doc, |i| node_of[i].map(|n| &nodes[n.index()].params));
    for route in &extraction.routes {
        let Some(n) = node_of[route.component] else {
            continue;
        };
        let target = resolve(&route.target);
        let node = &mut nodes[n.index()];
        if route.kind == RouteKind::ExceptionGoto {
            node.exception.goto.extend(target);
            continue;
        }
        match node.branches.iter_mut().find(|b| b.kind == route.kind) {
            Some(b) => b.targets.extend(target),
            None => node.branches.push(Branch {
                kind: route.kind.clone(),
                targets: target.into_iter().collect(),
            }),
        }
    }
    for node in &mut nodes {
        let method = node
            .params
            .get("exception_method")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        node.exception.method = method;
        node.exception.default_value = node
            .params
            .get("exception_default_value")
            .filter(|v| !v.is_null())
            .cloned();
    }

    // References.
    let mut bound = Vec::with_capacity(extraction.references.len());
    for r in &extraction.references {
        let Some(n) = node_of[r.component] else {
            continue;
        };
        let target = match (&r.syntax, &r.expr) {
            (refs::Syntax::Alias(alias), _) => {
                let item = nodes[n.index()].parent.and_then(|p| nodes[p.index()].start);
                match item {
                    Some(item) => RefTarget::Alias {
                        item,
                        alias: *alias,
                    },
                    None => RefTarget::DanglingAlias(*alias),
                }
            }
            (_, Expr::Global(name)) => RefTarget::Global(name.clone()),
            (
                _,
                Expr::Output {
                    component,
                    output,
                    path,
                },
            ) => match resolve(component) {
                Some(node) => RefTarget::Output {
                    node,
                    output: output.clone(),
                    path: path.clone(),
                },
                None => RefTarget::MissingComponent {
                    component: component.clone(),
                    output: output.clone(),
                },
            },
        };
        nodes[n.index()].refs.push(bound.len());
        bound.push(BoundRef {
            node: n,
            at: r.clone(),
            target,
        });
    }

    // Outputs VariableAssigner creates on other components (`set_output` of a new key).
    for b in &bound {
        if let (refs::Slot::AssignTarget { .. }, RefTarget::Output { node, output, .. }) =
            (&b.at.slot, &b.target)
        {
            push_output(&mut nodes[node.index()].outputs, output, Ty::Any);
        }
    }

    let begin = doc.position("begin").and_then(|p| node_of[p]);
    let mut by_id = std::collections::HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        by_id.entry(n.id.to_lowercase()).or_insert(NodeId(i as u32));
    }
    Ir {
        nodes,
        begin,
        refs: bound,
        extraction,
        by_id,
    }
}

fn push_output(outputs: &mut Vec<Output>, name: &str, ty: Ty) {
    match outputs.iter_mut().find(|o| o.name == name) {
        // A declaration refines an untyped fixed output, never the other way round.
        Some(existing) if existing.ty == Ty::Any => existing.ty = ty,
        Some(_) => {}
        None => outputs.push(Output {
            name: name.to_string(),
            ty,
        }),
    }
}
