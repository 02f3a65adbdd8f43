//! Compiled programs against RAGFlow's engine and against the interpreter.
//!
//! Every fixture golden whose canvas is compiled into `generated/` (all valid fixtures, by
//! fingerprint) runs with its compiled program: the stream must be RAGFlow's, line for line,
//! and the stream and every saved session must equal the interpreter's.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_runtime::exec::{Program, ProgramVisitor};
use canvasc_runtime::frontend::analyze;
use canvasc_runtime::frontend::fingerprint::fingerprint;
use canvasc_tests::reference::{first_difference, run_case_on, Case, CaseRun};
use canvasc_tests::{golden_cases, mcp_server, report_skip, slow_server};
use std::sync::Arc;
use tokio::runtime::Runtime;

/// Runs one case with the program a compiled crate hands over.
struct RunCompiled<'a> {
    case: &'a Case,
    rt: &'a Runtime,
}

impl ProgramVisitor for RunCompiled<'_> {
    type Output = CaseRun;

    fn visit<P: Program>(self, program: Arc<P>) -> CaseRun {
        self.rt
            .block_on(run_case_on(self.case, |_| Arc::clone(&program)))
    }
}

#[test]
fn compiled_fixtures_match_ragflow_and_the_interpreter() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let _status_service = rt
        .block_on(slow_server::start())
        .expect("the timeout fixtures' status service binds 127.0.0.1:18765");
    let _mcp_server = rt
        .block_on(mcp_server::start())
        .expect("the MCP fixtures' server binds 127.0.0.1:18766");
    let mut failures = Vec::new();
    let mut compiled = 0;
    let mut skipped = 0;
    const SUITE: &str = "compiled_fixtures_match_ragflow_and_the_interpreter";
    for g in golden_cases() {
        let (name, case) = (&g.name, &g.case);
        if let Some(reason) = g.skip_reason() {
            report_skip(SUITE, name, &reason);
            skipped += 1;
            continue;
        }
        // The compiled program is the fixture's (a converted case's v1 file is the same canvas
        // in the form RAGFlow runs).
        let text = std::fs::read_to_string(&g.fixture)
            .unwrap_or_else(|e| panic!("{name}: cannot read {}: {e}", g.fixture.display()));
        let analysis =
            analyze(&text).unwrap_or_else(|e| panic!("{name}: {}: {e}", g.fixture.display()));
        if analysis.has_errors() {
            // Canvases with errors are not compiled (the build refuses them).
            report_skip(
                SUITE,
                name,
                "checker errors: `canvasc build` compiles no program",
            );
            skipped += 1;
            continue;
        }
        let fp = fingerprint(&analysis.document);
        let Some(got) = canvasc_generated::visit(&fp, RunCompiled { case, rt: &rt }) else {
            failures.push(format!("{name}: no compiled program for {fp}"));
            continue;
        };
        compiled += 1;
        let expected = g.expected();
        if let Some(diff) = first_difference(&expected, &got.lines) {
            failures.push(format!("{name} (compiled vs RAGFlow): {diff}"));
        }
        let interpreted = rt.block_on(run_case_on(case, |a| {
            Arc::new(Interpreter::from_analysis(a))
        }));
        if let Some(diff) = first_difference(&interpreted.lines, &got.lines) {
            failures.push(format!("{name} (compiled vs interpreted): {diff}"));
        }
        if let Some(diff) = first_difference(&interpreted.saved, &got.saved) {
            failures.push(format!(
                "{name} (saved session, compiled vs interpreted): {diff}"
            ));
        }
    }
    // 85 goldens: 9 this build cannot replay, 18 whose canvases have checker errors.
    assert_eq!(
        (compiled, skipped),
        (58, 27),
        "goldens compiled and skipped"
    );
    assert!(
        failures.is_empty(),
        "{} difference(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
