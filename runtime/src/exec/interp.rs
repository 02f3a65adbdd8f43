//! The interpreter back-end: a [`Program`] built from the IR when a canvas is loaded.

use super::components::Spec;
use super::meta::CanvasMeta;
use super::{NodeCx, Program, RunError};
use crate::frontend::{Analysis, Document, Ir};
use crate::value::{Json, Map};
use futures::future::BoxFuture;
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
            specs: ir.nodes.iter().map(|n| Spec::build(n, ir)).collect(),
        }
    }

    pub fn from_analysis(a: &Analysis) -> Self {
        Interpreter::new(&a.document, &a.ir)
    }

    fn spec(&self, cx: &NodeCx<'_>) -> &Spec {
        &self.specs[cx.node.index()]
    }
}

impl Program for Interpreter {
    fn meta(&self) -> &Arc<CanvasMeta> {
        &self.meta
    }

    fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> BoxFuture<'a, Result<(), RunError>> {
        Box::pin(self.spec(cx).body(cx))
    }

    fn thoughts(&self, cx: &NodeCx<'_>) -> Result<String, RunError> {
        self.spec(cx).thoughts(cx)
    }

    fn input_dependencies(&self, cx: &NodeCx<'_>) -> Result<Vec<String>, RunError> {
        self.spec(cx).input_dependencies(cx)
    }

    fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        self.spec(cx).get_input(cx)
    }

    fn input_values(&self, cx: &NodeCx<'_>) -> Json {
        self.spec(cx).input_values(cx)
    }

    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        self.spec(cx).item_ended(cx)
    }
}
