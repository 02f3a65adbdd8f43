//! `canvas!` compiles a canvas into the program at Rust compile time: the expansion runs the
//! fixtures' goldens exactly as RAGFlow's engine produced them.

use canvasc_engine::Program;
use canvasc_tests::golden_cases;
use canvasc_tests::reference::{first_difference, run_case_on};
use std::sync::Arc;

/// Run every runnable golden of `fixture` with `program`.
async fn goldens_of<P: Program>(fixture: &str, program: Arc<P>) -> Vec<String> {
    let mut failures = Vec::new();
    let mut ran = 0;
    for g in golden_cases() {
        if !g.runnable() || !g.fixture.ends_with(fixture) {
            continue;
        }
        ran += 1;
        let got = run_case_on(&g.case, |_| Arc::clone(&program)).await;
        if let Some(diff) = first_difference(&g.expected(), &got.lines) {
            failures.push(format!("{}: {diff}", g.name));
        }
    }
    assert!(ran > 0, "{fixture} has goldens");
    failures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn macro_programs_reproduce_ragflow() {
    let mut failures = Vec::new();
    let diamond = canvasc_macros::canvas!("../fixtures/valid/diamond-uneven.json");
    failures.extend(goldens_of("valid/diamond-uneven.json", Arc::new(diamond)).await);
    let loops = canvasc_macros::canvas!("../fixtures/valid/loop-with-iteration.json");
    failures.extend(goldens_of("valid/loop-with-iteration.json", Arc::new(loops)).await);
    let fillup = canvasc_macros::canvas!("../fixtures/valid/userfillup-resume.json");
    failures.extend(goldens_of("valid/userfillup-resume.json", Arc::new(fillup)).await);
    let switch = canvasc_macros::canvas!("../fixtures/valid/switch-all-operators.json");
    failures.extend(goldens_of("valid/switch-all-operators.json", Arc::new(switch)).await);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Compile-time errors and warnings: one UI test per diagnostic code, pinned in `tests/ui/`.
#[test]
fn diagnostics_become_compile_errors() {
    // The scratch project trybuild compiles in is not this crate: paths stay relative to it.
    std::env::set_var("CANVASC_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"));
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
