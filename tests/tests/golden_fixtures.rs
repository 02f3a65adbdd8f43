//! Golden streams of the project's fixtures, produced by RAGFlow's own engine (see
//! `tests/golden/README.md`): our interpreter must reproduce them line for line. Each golden is
//! its own test (`cargo test -p canvasc-tests --test golden_fixtures -- <golden>`).

use canvasc_engine::interp::Interpreter;
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{first_difference, run_case, run_case_on, run_case_over_http};
use canvasc_tests::{golden_cases, mcp_server, slow_server, Golden};
use std::process::ExitCode;
use std::sync::Arc;
use tokio::runtime::Runtime;

/// The goldens of `tests/golden/cases.json`, and how many of them this build cannot replay (each
/// an ignored test with its reason). Update both when goldens are added.
const GOLDENS: usize = 85;
const SKIPPED: usize = 3;

/// Replays one golden interpreted, with every reference bound as a compiled program binds it,
/// and (model-driven cases) with the script served over HTTP to the real client.
fn replay(rt: &Runtime, g: &Golden) -> Result<(), String> {
    let (name, case) = (&g.name, &g.case);
    let expected = g.expected();
    let mut failures = Vec::new();
    let actual = rt.block_on(run_case(case));
    if let Some(diff) = first_difference(&expected, &actual) {
        failures.push(format!("{name}: {diff}"));
    }
    let bound = rt
        .block_on(run_case_on(case, |a| {
            Arc::new(Interpreter::from_analysis(a).bound(&a.ir))
        }))
        .lines;
    if let Some(diff) = first_difference(&expected, &bound) {
        failures.push(format!("{name} (bound): {diff}"));
    }
    if g.needs.iter().any(|n| n == "llm") {
        let http = rt.block_on(run_case_over_http(case)).lines;
        if let Some(diff) = first_difference(&expected, &http) {
            failures.push(format!("{name} (over HTTP): {diff}"));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n"))
    }
}

fn main() -> ExitCode {
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime"),
    );
    let _status_service = rt
        .block_on(slow_server::start())
        .expect("the timeout fixtures' status service binds 127.0.0.1:18765");
    let _mcp_server = rt
        .block_on(mcp_server::start())
        .expect("the MCP fixtures' server binds 127.0.0.1:18766");
    let mut suite = Suite::from_args().one_at_a_time();
    for g in golden_cases() {
        let rt = Arc::clone(&rt);
        let name = g.name.clone();
        match g.skip_reason() {
            Some(reason) => suite.skip(&name, &reason, move || replay(&rt, &g)),
            None => suite.case(&name, move || replay(&rt, &g)),
        }
    }
    suite.assert_counts("tests/golden/cases.json", GOLDENS, SKIPPED);
    suite.run()
}
