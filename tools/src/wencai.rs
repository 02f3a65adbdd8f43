//! WenCai (tools.md §24): RAGFlow disabled the upstream call (`pywencai.get` is commented out),
//! so a query yields an empty `report`. canvasc behaves the same and calls nothing.

use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;

pub struct WenCai;

impl External for WenCai {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            // With a query or without, the report is empty: the reference computes no rows.
            let _ = args;
            cx.set_output("report", Json::String(String::new()));
            Ok(Json::String(String::new()))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Pulling live financial data for `{q}`."))
    }
}
