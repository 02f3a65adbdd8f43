//! A component kind this build cannot run yet: it loads and compiles like any other, `check`
//! warns `unsupported-kind` (`frontend::check::runs_as_node`), and running it fails with an error
//! naming the component.

use super::Component;
use crate::exec::context::NodeCx;
use crate::exec::error::RunError;
use crate::frontend::catalog::Kind;
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

#[cfg(test)]
mod tests {
    use super::super::Spec as AnySpec;
    use crate::frontend::catalog::Kind;
    use crate::frontend::check::runs_as_node;
    use crate::value::Map;

    /// `canvasc check` warns `unsupported-kind` for exactly the kinds this table leaves
    /// unsupported.
    #[test]
    fn the_checker_knows_which_kinds_run() {
        for &kind in Kind::ALL {
            let unsupported = matches!(
                AnySpec::build(kind, &Map::new(), None),
                AnySpec::Unsupported(_)
            );
            assert_eq!(runs_as_node(kind), !unsupported, "{kind}");
        }
    }
}
