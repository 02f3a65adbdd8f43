//! Compiled programs against RAGFlow's engine and against the interpreter.
//!
//! Every fixture golden whose canvas is compiled into `generated/` (all valid fixtures, by
//! fingerprint) runs with its compiled program: the stream must be RAGFlow's, line for line,
//! and the stream and every saved session must equal the interpreter's. Each golden is its own
//! test (`cargo test -p canvasc-tests --test compiled -- <golden>`).

use canvasc_engine::interp::Interpreter;
use canvasc_engine::{Program, ProgramVisitor};
use canvasc_frontend::analyze;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{case_analysis, first_difference, run_case_on, Case, CaseRun};
use canvasc_tests::{golden_cases, mcp_server, slow_server, Golden};
use std::process::ExitCode;
use std::sync::Arc;
use tokio::runtime::Runtime;

/// 85 goldens: 3 this build cannot replay, 18 whose canvases have checker errors, 3 whose
/// replay changes the canvas.
const GOLDENS: usize = 85;
const SKIPPED: usize = 24;

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

/// Why a golden has no compiled program to run: the build refuses canvases with checker
/// errors, and a compiled program's canvas is the fixture's, fixed at build time. A replay
/// that changes the canvas (fills empty `llm_id`s, applies `--set`, points ExeSQL at a local
/// table, or runs a conversion that renames components) has no compiled program for what it
/// runs; one whose conversion leaves the canvas as it was (same fingerprint) runs compiled.
fn not_compiled(g: &Golden) -> Option<&'static str> {
    let text = std::fs::read_to_string(&g.fixture)
        .unwrap_or_else(|e| panic!("{}: cannot read {}: {e}", g.name, g.fixture.display()));
    let analysis =
        analyze(&text).unwrap_or_else(|e| panic!("{}: {}: {e}", g.name, g.fixture.display()));
    if analysis.has_errors() {
        return Some("checker errors: `canvasc build` compiles no program");
    }
    let replayed = case_analysis(&g.case).unwrap_or_else(|e| panic!("{}: {e}", g.name));
    (fingerprint(&replayed.document) != fingerprint(&analysis.document))
        .then_some("the replay changes the canvas, and a compiled program's canvas is fixed")
}

fn compare(rt: &Runtime, g: &Golden) -> Result<(), String> {
    let (name, case) = (&g.name, &g.case);
    let text = std::fs::read_to_string(&g.fixture)
        .map_err(|e| format!("{name}: cannot read {}: {e}", g.fixture.display()))?;
    let analysis = analyze(&text).map_err(|e| format!("{name}: {}: {e}", g.fixture.display()))?;
    let fp = fingerprint(&analysis.document);
    let Some(got) = canvasc_generated::visit(&fp, RunCompiled { case, rt }) else {
        return Err(format!("{name}: no compiled program for {fp}"));
    };
    let mut failures = Vec::new();
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
        let reason = g
            .skip_reason()
            .or_else(|| not_compiled(&g).map(str::to_string));
        match reason {
            Some(reason) => suite.skip(&name, &reason, move || compare(&rt, &g)),
            None => suite.case(&name, move || compare(&rt, &g)),
        }
    }
    suite.assert_counts("goldens compiled and skipped", GOLDENS, SKIPPED);
    suite.run()
}
