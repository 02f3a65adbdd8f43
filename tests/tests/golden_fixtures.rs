//! Golden streams of the project's fixtures, produced by RAGFlow's own engine (see
//! `tests/golden/README.md`): our interpreter must reproduce them line for line.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_tests::reference::{first_difference, run_case, run_case_on, run_case_over_http};
use canvasc_tests::{golden_cases, mcp_server, report_skip, slow_server};
use std::sync::Arc;

/// The goldens of `tests/golden/cases.json`, and how many of them this build cannot replay (each
/// named with its reason when the suite runs). Update both when goldens are added.
const GOLDENS: usize = 85;
const SKIPPED: usize = 9;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_goldens_match() {
    let cases = golden_cases();
    assert_eq!(
        cases.len(),
        GOLDENS,
        "tests/golden/cases.json lists the goldens"
    );
    let _status_service = slow_server::start()
        .await
        .expect("the timeout fixtures' status service binds 127.0.0.1:18765");
    let _mcp_server = mcp_server::start()
        .await
        .expect("the MCP fixtures' server binds 127.0.0.1:18766");
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut skipped = 0;
    for g in &cases {
        if let Some(reason) = g.skip_reason() {
            report_skip("fixture_goldens_match", &g.name, &reason);
            skipped += 1;
            continue;
        }
        let (name, case) = (&g.name, &g.case);
        ran += 1;
        let expected = g.expected();
        let actual = run_case(case).await;
        if let Some(diff) = first_difference(&expected, &actual) {
            failures.push(format!("{name}: {diff}"));
        }
        // The same case with every reference bound as a compiled program binds it.
        let bound = run_case_on(case, |a| {
            Arc::new(Interpreter::from_analysis(a).bound(&a.ir))
        })
        .await
        .lines;
        if let Some(diff) = first_difference(&expected, &bound) {
            failures.push(format!("{name} (bound): {diff}"));
        }
        // Model-driven cases again with the script served over HTTP to the real client.
        if g.needs.iter().any(|n| n == "llm") {
            let http = run_case_over_http(case).await.lines;
            if let Some(diff) = first_difference(&expected, &http) {
                failures.push(format!("{name} (over HTTP): {diff}"));
            }
        }
    }
    assert_eq!(
        (ran, skipped),
        (GOLDENS - SKIPPED, SKIPPED),
        "goldens run and skipped"
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} goldens differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
