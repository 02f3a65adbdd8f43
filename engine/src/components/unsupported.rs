//! A component kind this build cannot run yet: it loads and compiles like any other, `check`
//! warns `unsupported-kind` (`frontend::check::runs_as_node`), and running it fails with an error
//! naming the component.

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use canvasc_frontend::catalog::Kind;
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Spec(pub Kind);

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        Err(RunError::msg(format!(
            "canvasc cannot run {} components yet (component `{}`)",
            self.0,
            cx.meta().id
        )))
    }

    /// Tools' default `thoughts()`: `<display name> is running...`.
    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(if self.0.is_tool() {
            Cow::Owned(format!("{} is running...", cx.meta().display_name))
        } else {
            Cow::Borrowed("")
        })
    }
}
