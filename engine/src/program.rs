//! The seam between the scheduler and a back-end: the interpreter and every generated program
//! implement [`Program`], so the scheduler is written once for both.

use super::context::NodeCx;
use super::error::RunError;
use super::state::InputKeys;
use super::state::RunState;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_value::{Json, Map};
use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

/// A canvas-specific program the scheduler drives: per node, the component to run.
///
/// Every method has RAGFlow's semantics for the node's component (see the `Component` trait of
/// `exec::components`, which the interpreter and generated programs delegate to; it is named,
/// not linked, since components stand above this seam).
pub trait Program: Send + Sync + 'static {
    fn meta(&self) -> &Arc<CanvasMeta>;

    /// How the program was made, the run span's `canvasc.mode`: generated code is `compiled`
    /// (the default, so generated modules need not say so); the interpreter says `interpreted`.
    fn mode(&self) -> &'static str {
        "compiled"
    }

    /// The component body (`_invoke`).
    fn body<'a>(
        &'a self,
        cx: &'a NodeCx<'a>,
    ) -> impl Future<Output = Result<(), RunError>> + Send + 'a;

    /// The body run at once under the caller's state lock, when it has nothing to wait for
    /// (`Component::body_now`); `None`: run [`Program::body`].
    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>>;

    /// `thoughts()`, shown in `node_started`.
    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError>;

    /// The components the node's input elements reference (`_cpn_id`).
    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError>;

    /// `get_input()`: the keyword arguments the body receives, resolved when scheduled.
    fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError>;

    /// Which `get_input_values()` keys `node_finished` reports.
    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a>;

    /// `IterationItem.end()` / `LoopItem.end()`, evaluated after the item ran.
    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError>;
}

/// Something to do with a program whose type only generated code names: a compiled crate
/// hands its program for a fingerprint to a visitor (the `run` command, a server, a test).
pub trait ProgramVisitor {
    type Output;
    fn visit<P: Program>(self, program: Arc<P>) -> Self::Output;
}
