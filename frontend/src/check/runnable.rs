//! What this build of canvasc can execute. RAGFlow knows more component and tool kinds than
//! canvasc's runtime implements; a canvas using one checks clean against RAGFlow's rules, and
//! then `canvasc run` fails at that component. `unsupported-kind` says so at check time, so
//! "check passes in CI" means "it runs".

use super::Cx;
use crate::catalog::tool_meta::tool_meta;
use crate::catalog::{resolve_name, Kind, NameResolution};
use crate::diagnostic::{pointer_join, Code, Diagnostic};
use serde_json::Value;

/// Whether the runtime runs `kind` as a canvas node: the component table
/// (`catalog/kind.rs`) names a real implementation for it, not `unsupported::Spec`. A kind
/// implemented outside the engine (`external::Spec`) counts: the host registers every one of
/// them (`canvasc-host`'s test `every_external_kind_is_registered` holds it to that).
pub fn runs_as_node(kind: Kind) -> bool {
    kind.implementation().module != "unsupported"
}

/// Whether an Agent can call `kind` as a tool: other Agents (MCP tools always run) and every
/// tool the runtime runs that has a function schema. Any other tool answers the model
/// `canvasc cannot run <kind> tools yet`.
pub fn runs_as_tool(kind: Kind) -> bool {
    kind == Kind::Agent || (kind.is_tool() && runs_as_node(kind) && tool_meta(kind).is_some())
}

pub(super) fn check(cx: &mut Cx) {
    for c in &cx.doc.components {
        let Some(kind) = c.kind() else {
            continue; // unknown-kind already said it
        };
        if !runs_as_node(kind) {
            cx.emit(
                Diagnostic::new(
                    Code::UnsupportedKind,
                    format!("this build of canvasc cannot run {kind} components: `canvasc run` fails at `{}`", c.id),
                )
                .component(&c.id)
                .at(&c.loc.name)
                .help(match c.resolution {
                    NameResolution::Legacy(..) => "RAGFlow cannot load it either; replace it",
                    _ => "RAGFlow runs it; run this canvas in RAGFlow, or replace the component",
                }),
            );
        }
    }
    for c in &cx.doc.components {
        if c.kind() == Some(Kind::Agent) {
            agent_tools(cx, &c.id, c.params.get("tools"), &c.loc.params);
        }
    }
}

/// The tools of an Agent (`params_pointer` points at its params), and those of every Agent it
/// calls as a tool.
fn agent_tools(cx: &mut Cx, component: &str, tools: Option<&Value>, params_pointer: &str) {
    let Some(Value::Array(tools)) = tools else {
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("component_name").and_then(Value::as_str) else {
            continue;
        };
        let Some(kind) = resolve_name(name).kind() else {
            continue; // unknown-kind already said it
        };
        let index = i.to_string();
        if kind == Kind::Agent {
            let params = pointer_join(params_pointer, &["tools", &index, "params"]);
            let nested = tool.get("params").and_then(|p| p.get("tools"));
            agent_tools(cx, component, nested, &params);
        } else if kind.is_tool() && !runs_as_tool(kind) {
            cx.emit(
                Diagnostic::new(
                    Code::UnsupportedKind,
                    format!("this build of canvasc cannot run {kind} tools: the Agent's model gets `canvasc cannot run {kind} tools yet` as the tool's answer"),
                )
                .component(component)
                .at(pointer_join(params_pointer, &["tools", &index, "component_name"]))
                .help("RAGFlow runs it; run this canvas in RAGFlow, or remove the tool"),
            );
        }
    }
}
