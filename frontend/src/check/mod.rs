//! The checker: every diagnostic of architecture.md §5, collected in one pass over the IR.
//!
//! Like serde_derive's `Ctxt`, it never stops at the first problem: every finding is reported
//! with its location, in document order.

mod references;
mod runnable;
mod structure;
mod types;

use super::diagnostic::Diagnostic;
use super::document::Document;
use super::flow::Flow;
use super::ir::{Ir, NodeId};
use std::collections::HashMap;

pub use runnable::{runs_as_node, runs_as_tool};
pub use types::{ref_type, RefType};

/// Shared state of one checker run.
pub(crate) struct Cx<'a> {
    pub doc: &'a Document,
    pub ir: &'a Ir,
    pub flow: &'a Flow,
    pub out: Vec<Diagnostic>,
}

impl<'a> Cx<'a> {
    /// The document component a node was lowered from.
    pub fn component_of(&self, n: NodeId) -> &'a super::document::DslComponent {
        &self.doc.components[self.ir.node(n).component]
    }

    pub fn emit(&mut self, d: Diagnostic) {
        self.out.push(d);
    }
}

/// Check a lowered document. Loader diagnostics are passed in so that everything comes back
/// in one list, ordered by component then position.
pub fn check(doc: &Document, ir: &Ir, flow: &Flow, loader: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut cx = Cx {
        doc,
        ir,
        flow,
        out: loader,
    };
    structure::check(&mut cx);
    runnable::check(&mut cx);
    references::check(&mut cx);
    let mut out = cx.out;
    sort(doc, &mut out);
    out.dedup();
    out
}

/// Order: document-level findings first, then by component in document order, then by pointer
/// and span.
fn sort(doc: &Document, diags: &mut [Diagnostic]) {
    // The first component with exactly this id, looked up once per id rather than by a scan
    // per comparison.
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(doc.components.len());
    for (i, c) in doc.components.iter().enumerate() {
        first.entry(c.id.as_str()).or_insert(i);
    }
    let position = |d: &Diagnostic| {
        d.component
            .as_deref()
            .and_then(|c| first.get(c))
            .map_or(0, |p| p + 1)
    };
    diags.sort_by(|a, b| {
        position(a)
            .cmp(&position(b))
            .then_with(|| a.pointer.cmp(&b.pointer))
            .then_with(|| a.span.cmp(&b.span))
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.message.cmp(&b.message))
    });
}
