//! Jin10 and TuShare (tools.md §13, §23): legacy components with only the old `_run` API. In
//! RAGFlow's current engine the base `_invoke` raises an empty `NotImplementedError`, so as a
//! canvas node they are a silent no-op (`_ERROR` is `""`); canvasc behaves the same. As an
//! Agent tool RAGFlow cannot load them (no function schema).

use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;

pub struct Legacy;

impl External for Legacy {
    fn invoke<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async { Err(RunError::raised("NotImplementedError", "")) })
    }
}
