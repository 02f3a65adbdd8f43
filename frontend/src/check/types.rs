//! Static types of reference targets.

use crate::catalog::{system_global_type, Kind, Ty};
use crate::document::Document;
use crate::ir::{Ir, RefTarget};
use crate::refs::{Alias, Expr};

/// What the checker knows about the value a reference reads.
#[derive(Clone, Debug, PartialEq)]
pub enum RefType {
    Known(Ty),
    /// The target does not resolve; another diagnostic reports it.
    Unresolved,
}

/// The static type of a bound reference's value.
pub fn ref_type(doc: &Document, ir: &Ir, target: &RefTarget) -> RefType {
    match target {
        RefTarget::Output { node, output, path } => match ir.node(*node).output(output) {
            Some(o) => RefType::Known(walk(&o.ty, path)),
            None => RefType::Unresolved,
        },
        RefTarget::Global(name) => {
            global_type(doc, name).map_or(RefType::Unresolved, RefType::Known)
        }
        RefTarget::Alias { item, alias } => match alias {
            Alias::Index => RefType::Known(Ty::Number),
            Alias::Item | Alias::Result => {
                let element = ir
                    .node(*item)
                    .parent
                    .map(|p| iteration_element_type(doc, ir, p))
                    .unwrap_or(Ty::Any);
                RefType::Known(element)
            }
        },
        RefTarget::MissingComponent { .. } | RefTarget::DanglingAlias(_) => RefType::Unresolved,
    }
}

/// The element type of what an Iteration iterates.
fn iteration_element_type(doc: &Document, ir: &Ir, iteration: crate::ir::NodeId) -> Ty {
    let node = ir.node(iteration);
    if node.kind != Kind::Iteration {
        return Ty::Any;
    }
    node.refs
        .iter()
        .map(|&r| &ir.refs[r])
        .find(|b| b.at.slot == crate::refs::Slot::IterationItems)
        .and_then(|b| match ref_type(doc, ir, &b.target) {
            RefType::Known(Ty::Array(e)) => Some(*e),
            _ => None,
        })
        .unwrap_or(Ty::Any)
}

/// Walk a reference path into a type: list indices step into arrays; anything else is unknown
/// (objects are open, strings are JSON-parsed at run time).
fn walk(ty: &Ty, path: &[String]) -> Ty {
    let mut cur = ty.clone();
    for key in path {
        cur = match cur {
            Ty::Array(e) if key.parse::<i64>().is_ok() => *e,
            _ => return Ty::Any,
        };
    }
    cur
}

/// The type of a global, or `None` when it is not defined.
pub fn global_type(doc: &Document, name: &str) -> Option<Ty> {
    if let Some(t) = system_global_type(name) {
        return Some(t);
    }
    if let Some(var) = name.strip_prefix("env.") {
        if let Some(decl) = doc.variables().and_then(|v| v.get(var)) {
            return Some(
                decl.get("type")
                    .and_then(|t| t.as_str())
                    .map(Ty::parse)
                    .unwrap_or(Ty::Any),
            );
        }
    }
    doc.globals()
        .and_then(|g| g.get(name))
        .map(crate::catalog::value_type)
}

/// The type of a reference expression without binding (used for diagnostics text).
pub fn describe(expr: &Expr) -> String {
    match expr {
        Expr::Output {
            component,
            output,
            path,
        } => {
            let mut s = format!("{component}@{output}");
            for p in path {
                s.push('.');
                s.push_str(p);
            }
            s
        }
        Expr::Global(name) => name.clone(),
    }
}
