//! The interpreter back-end: a [`Program`] built from the IR when a canvas is loaded. Every
//! reference is read by name, as RAGFlow reads it.

use super::components::{Component, Spec};
use super::context::NodeCx;
use super::error::RunError;
use super::program::Program;
use super::state::InputKeys;
use super::state::RunState;
use canvasc_frontend::binding;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_frontend::{Analysis, Document, Ir};
use canvasc_value::{Json, Map};
use std::borrow::Cow;
use std::sync::Arc;

/// A canvas ready to run: static facts plus each node's typed parameters.
pub struct Interpreter {
    meta: Arc<CanvasMeta>,
    specs: Vec<Spec>,
}

impl Interpreter {
    pub fn new(doc: &Document, ir: &Ir) -> Self {
        Interpreter {
            meta: Arc::new(CanvasMeta::from_ir(ir, doc)),
            specs: ir
                .nodes
                .iter()
                .map(|n| Spec::build(n.kind, &n.params, n.parent.map(|p| &ir.node(p).params)))
                .collect(),
        }
    }

    pub fn from_analysis(a: &Analysis) -> Self {
        Interpreter::new(&a.document, &a.ir)
    }

    /// Bind every reference the way a compiled program of this canvas binds it
    /// ([`binding::table`]). Tests use it to check the bindings in process; the code generator
    /// writes the same tables out.
    pub fn bound(mut self, ir: &Ir) -> Self {
        for (i, spec) in self.specs.iter_mut().enumerate() {
            spec.bind(&binding::table(ir, NodeId(i as u32)));
        }
        self
    }

    fn spec(&self, cx: &NodeCx<'_>) -> &Spec {
        &self.specs[cx.node.index()]
    }
}

impl Program for Interpreter {
    fn meta(&self) -> &Arc<CanvasMeta> {
        &self.meta
    }

    fn mode(&self) -> &'static str {
        "interpreted"
    }

    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        self.spec(cx).body(cx).await
    }

    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
        self.spec(cx).body_now(cx, s)
    }

    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        self.spec(cx).thoughts(cx)
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.spec(cx).dependencies(cx)
    }

    fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        self.spec(cx).get_input(cx)
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        self.spec(cx).input_keys(cx)
    }

    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        self.spec(cx).item_ended(cx)
    }
}
