//! Pictures of canvases (`canvasc graph`): the checked canvas as a [`Picture`] (components
//! with kinds and display names, labelled branches, Loop and Iteration bodies, exception
//! routes, checker findings), written as DOT, Mermaid or SVG. The model is built once from
//! the front-end's analysis, so the three formats always show the same graph.

pub mod dot;
pub mod mermaid;
pub mod svg;

use canvasc_frontend::catalog::Kind;
use canvasc_frontend::refs::RouteKind;
use canvasc_frontend::{Analysis, NodeId, Severity};
use canvasc_value::Json;

/// The longest label text (characters) a branch condition is shown with.
const CONDITION_LABEL: usize = 40;

/// A canvas as drawn.
pub struct Picture {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Findings about no one component (shown in the picture's caption).
    pub canvas_findings: Vec<String>,
}

/// One component.
pub struct Node {
    pub id: String,
    pub display_name: String,
    /// RAGFlow's `component_name` (`Agent`, `Switch`, …).
    pub kind: String,
    /// The Loop or Iteration whose body holds it (an index into [`Picture::nodes`]).
    pub parent: Option<usize>,
    /// Whether it is a Loop or Iteration (drawn as a cluster around its body).
    pub is_container: bool,
    /// The checker's findings on it, `severity[code]: message`.
    pub findings: Vec<String>,
    pub worst: Option<Severity>,
}

impl Node {
    /// What a reader calls the component: its display name, or its id when it has none.
    pub fn title(&self) -> &str {
        if self.display_name.trim().is_empty() {
            &self.id
        } else {
            &self.display_name
        }
    }

    /// The second line of its label: the kind, and the id when the display name hides it.
    pub fn subtitle(&self) -> String {
        if self.title() == self.id {
            self.kind.clone()
        } else {
            format!("{} · {}", self.kind, self.id)
        }
    }

    /// The marker of its findings (`✗ 2` errors, `⚠ 1` warnings), or `""`.
    pub fn badge(&self) -> String {
        match self.worst {
            None => String::new(),
            Some(Severity::Error) => format!("✗ {}", self.findings.len()),
            Some(Severity::Warning) => format!("⚠ {}", self.findings.len()),
        }
    }
}

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `downstream`.
    Flow,
    /// A Switch case or Categorize category.
    Branch,
    /// `exception_goto`: dashed.
    Exception,
    /// From a Loop or Iteration to the item that starts its body: dotted.
    Body,
    /// From an Agent to a tool, sub-agent or MCP server it may call: dotted, no flow.
    Tool,
}

pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Option<String>,
    pub style: Style,
}

impl Picture {
    pub fn of(analysis: &Analysis) -> Picture {
        let ir = &analysis.ir;
        let mut nodes: Vec<Node> = ir
            .nodes
            .iter()
            .map(|n| Node {
                id: n.id.clone(),
                display_name: n.display_name.clone(),
                kind: n.component_name.clone(),
                parent: n.parent.map(NodeId::index),
                is_container: matches!(n.kind, Kind::Loop | Kind::Iteration),
                findings: Vec::new(),
                worst: None,
            })
            .collect();
        let mut canvas_findings = Vec::new();
        for d in &analysis.diagnostics {
            let text = format!("{}[{}]: {}", d.severity, d.code, d.message);
            let node = d
                .component
                .as_deref()
                .and_then(|id| nodes.iter().position(|n| n.id == id));
            match node {
                Some(i) => {
                    let n = &mut nodes[i];
                    n.worst = match (n.worst, d.severity) {
                        (Some(Severity::Error), _) | (_, Severity::Error) => Some(Severity::Error),
                        _ => Some(Severity::Warning),
                    };
                    n.findings.push(text);
                }
                None => canvas_findings.push(text),
            }
        }
        let mut edges: Vec<Edge> = Vec::new();
        for (i, n) in ir.nodes.iter().enumerate() {
            let mut drawn: Vec<usize> = Vec::new();
            for b in &n.branches {
                let (label, style) = match &b.kind {
                    RouteKind::Case(k) => {
                        (case_label(*k, n.params.get("conditions")), Style::Branch)
                    }
                    RouteKind::Else => ("else".to_string(), Style::Branch),
                    RouteKind::Category(name) => (name.clone(), Style::Branch),
                    RouteKind::ExceptionGoto => ("on error".to_string(), Style::Exception),
                };
                for t in &b.targets {
                    edges.push(Edge {
                        from: i,
                        to: t.index(),
                        label: Some(label.clone()),
                        style,
                    });
                    drawn.push(t.index());
                }
            }
            for t in &n.exception.goto {
                if !drawn.contains(&t.index()) {
                    edges.push(Edge {
                        from: i,
                        to: t.index(),
                        label: Some("on error".into()),
                        style: Style::Exception,
                    });
                    drawn.push(t.index());
                }
            }
            for t in &n.downstream {
                if !drawn.contains(&t.index()) {
                    edges.push(Edge {
                        from: i,
                        to: t.index(),
                        label: None,
                        style: Style::Flow,
                    });
                    drawn.push(t.index());
                }
            }
            if let Some(start) = n.start {
                edges.push(Edge {
                    from: i,
                    to: start.index(),
                    label: Some("body".into()),
                    style: Style::Body,
                });
            }
        }
        // An Agent's tools, sub-agents (with theirs) and MCP servers, after the components so
        // the components' indices stay the IR's.
        for (i, n) in ir.nodes.iter().enumerate() {
            if n.kind == Kind::Agent {
                let params = Json::Object(n.params.clone());
                add_tools(&mut nodes, &mut edges, i, &params);
            }
        }
        Picture {
            nodes,
            edges,
            canvas_findings,
        }
    }

    /// The nodes directly inside `parent` (`None`: the top level), in document order.
    pub fn children(&self, parent: Option<usize>) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(move |&i| self.nodes[i].parent == parent)
    }
}

/// The tools (`params.tools`, a sub-Agent's own in turn) and MCP servers (`params.mcp`) of the
/// Agent drawn as `owner`: a node each, beside the Agent (in its body, if it is in one), tied
/// to it by a tool edge. Their ids are the Agent's with `/tools/<k>` or `/mcp/<k>`.
fn add_tools(nodes: &mut Vec<Node>, edges: &mut Vec<Edge>, owner: usize, params: &Json) {
    let text = |v: &Json, key: &str| {
        v.get(key)
            .and_then(Json::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    let add =
        |nodes: &mut Vec<Node>, edges: &mut Vec<Edge>, id: String, name: String, kind: String| {
            nodes.push(Node {
                id,
                display_name: name,
                kind,
                parent: nodes[owner].parent,
                is_container: false,
                findings: Vec::new(),
                worst: None,
            });
            let me = nodes.len() - 1;
            edges.push(Edge {
                from: owner,
                to: me,
                label: None,
                style: Style::Tool,
            });
            me
        };
    let tools = params.get("tools").and_then(Json::as_array);
    for (k, tool) in tools.into_iter().flatten().enumerate() {
        let kind = text(tool, "component_name").unwrap_or_else(|| "Tool".into());
        let name = text(tool, "name").unwrap_or_else(|| kind.clone());
        let id = format!("{}/tools/{k}", nodes[owner].id);
        let me = add(nodes, edges, id, name, kind);
        if let Some(inner) = tool.get("params") {
            add_tools(nodes, edges, me, inner);
        }
    }
    let servers = params.get("mcp").and_then(Json::as_array);
    for (k, server) in servers.into_iter().flatten().enumerate() {
        let tools: Vec<String> = server
            .get("tools")
            .and_then(Json::as_object)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        let name = match tools.is_empty() {
            true => text(server, "mcp_id").unwrap_or_else(|| "MCP server".into()),
            false => tools.join(", "),
        };
        let id = format!("{}/mcp/{k}", nodes[owner].id);
        add(nodes, edges, id, name, "MCP".into());
    }
}

/// `case N: a = x and b > y`, from the Switch's `conditions[k]` (cut to a short label).
fn case_label(k: usize, conditions: Option<&Json>) -> String {
    let head = format!("case {}", k + 1);
    let Some(cond) = conditions.and_then(|c| c.get(k)) else {
        return head;
    };
    let joiner = match cond.get("logical_operator").and_then(Json::as_str) {
        Some(op) if !op.is_empty() => format!(" {op} "),
        _ => " and ".to_string(),
    };
    let items: Vec<String> = cond
        .get("items")
        .and_then(Json::as_array)
        .map(|items| {
            items
                .iter()
                .map(|it| {
                    let text = |key: &str| match it.get(key) {
                        Some(Json::String(s)) => s.clone(),
                        Some(Json::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    };
                    format!("{} {} {}", text("cpn_id"), text("operator"), text("value"))
                        .trim()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default();
    if items.is_empty() {
        return head;
    }
    let all = items.join(&joiner);
    let short: String = all.chars().take(CONDITION_LABEL).collect();
    let ellipsis = if short.len() < all.len() { "…" } else { "" };
    format!("{head}: {short}{ellipsis}")
}
