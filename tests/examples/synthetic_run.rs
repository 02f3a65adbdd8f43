//! Run a synthetic canvas repeatedly, for profiling the scheduler:
//! `cargo run --release -p canvasc-tests --example synthetic_run -- chain 1000 20`.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_runtime::exec::random::PyRandom;
use canvasc_runtime::exec::{RunInput, Services, Session};
use canvasc_runtime::frontend::analyze;
use canvasc_tests::synthetic;
use std::sync::{Arc, Mutex};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shape = args.get(1).map(String::as_str).unwrap_or("chain");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let runs: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let text = match shape {
        "fan" => synthetic::fan(n),
        "iteration" => synthetic::iteration(n),
        _ => synthetic::chain(n),
    };
    let analysis = analyze(&text).expect("a canvas");
    let bound = args.get(4).is_some_and(|a| a == "bound");
    let program = Interpreter::from_analysis(&analysis);
    let program = Arc::new(if bound {
        program.bound(&analysis.ir)
    } else {
        program
    });
    let dsl = analysis.document.dsl.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let start = Instant::now();
    let mut events = 0;
    for _ in 0..runs {
        let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
        let session = Session::new(
            Arc::clone(&program),
            dsl.clone(),
            Services::default(),
            rng,
            true,
        );
        let mut sink = |_: canvasc_runtime::exec::events::Event| events += 1;
        rt.block_on(session.run(RunInput::default(), &mut sink));
    }
    let per_run = start.elapsed() / runs as u32;
    println!(
        "{shape}/{n}: {per_run:?} per run, {:.2} µs per node, {} events per run",
        per_run.as_secs_f64() * 1e6 / n as f64,
        events / runs
    );
}
