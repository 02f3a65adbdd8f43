//! Jin10, TuShare and WenCai (tools.md §13, §23, §24): RAGFlow's engine keeps them but calls no
//! service. Jin10 and TuShare have only the old `_run`, so the base `_invoke` raises an empty
//! `NotImplementedError`: the node finishes with an empty `_ERROR` and the run goes on. WenCai's
//! `pywencai.get` is commented out: its `report` is empty. None of them has an endpoint to
//! configure, and they send nothing.

mod support;

use canvasc_engine::RunOutcome;
use serde_json::json;
use support::{node_canvas, registry, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_tools_finish_without_calling_anything() {
    for (kind, output) in [
        ("Jin10", "_ERROR"),
        ("TuShare", "_ERROR"),
        ("WenCai", "report"),
    ] {
        let dsl = node_canvas(kind, json!({}), output);
        let ran = run(&dsl, &json!({"default": "x"}), registry(""), "600519").await;
        assert!(
            matches!(ran.outcome, RunOutcome::Finished),
            "{kind}: {:?}",
            ran.outcome
        );
        assert_eq!(ran.output("Tool:T", output), json!(""), "{kind}");
    }
}
