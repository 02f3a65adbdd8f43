//! A kind implemented outside the engine ([`crate::external`]): the node looks its
//! implementation up in `Services::external` and runs it with the node's parameters and
//! `get_input()` arguments. Without a registered implementation (a build without the host's
//! `tools` feature) it fails as an unsupported kind does.

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::external::ToolCx;
use canvasc_frontend::catalog::Kind;
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Spec(pub Kind);

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        let Some(implementation) = cx.shared.services.external.get(self.0).cloned() else {
            return Err(RunError::msg(format!(
                "canvasc cannot run {} components in this build: no implementation is registered (component `{}`)",
                self.0,
                cx.meta().id
            )));
        };
        let tcx = ToolCx::node(cx, self.0);
        implementation
            .invoke(&tcx, cx.kwargs.clone().into_owned())
            .await
            .map(|_| ())
    }

    /// The implementation's thoughts (from `get_input()`, as Python's read it), else ToolBase's `<display name> is running...` (tools)
    /// or nothing (components).
    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        let own = match cx.shared.services.external.get(self.0) {
            // Python's `thoughts()` reads `get_input()`, which records the input values.
            Some(i) => i.thoughts(&cx.meta().params, &super::generic_get_input(cx)?),
            None => None,
        };
        Ok(match own {
            Some(t) => Cow::Owned(t),
            None if self.0.is_tool() => {
                Cow::Owned(format!("{} is running...", cx.meta().display_name))
            }
            None => Cow::Borrowed(""),
        })
    }
}
