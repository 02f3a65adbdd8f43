//! The checker: every diagnostic of architecture.md §5, collected in one pass over the IR.
//!
//! Like serde_derive's `Ctxt`, it never stops at the first problem: every finding is reported
//! with its location, in document order.

mod references;
mod structure;
mod types;

use super::diagnostic::Diagnostic;
use super::document::Document;
use super::flow::Flow;
use super::ir::{Ir, NodeId};

pub use types::{ref_type, RefType};

/// Shared state of one checker run.
pub(crate) struct Cx<'a> {
    pub doc: &'a Document,
    pub ir: &'a Ir,
    pub flow: &'a Flow,
    pub out: Vec<Diagnostic>,
}

impl Cx<'_> {
    /// Document index of a node (nodes are the documents' components with a known kind).
    pub fn component_of(&self, n: NodeId) -> &super::document::Component {
        let id = &self.ir.node(n).id;
        let pos = self
            .doc
            .components
            .iter()
            .position(|c| &c.id == id)
            .unwrap_or_default();
        &self.doc.components[pos]
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
    references::check(&mut cx);
    let mut out = cx.out;
    sort(doc, &mut out);
    out.dedup();
    out
}

/// Order: document-level findings first, then by component in document order, then by pointer
/// and span.
fn sort(doc: &Document, diags: &mut [Diagnostic]) {
    let position = |d: &Diagnostic| {
        d.component
            .as_ref()
            .and_then(|c| doc.components.iter().position(|x| &x.id == c))
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
