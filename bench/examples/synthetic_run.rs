//! Run a synthetic canvas repeatedly, compiled or interpreted, for profiling the scheduler:
//! `cargo run --release -p canvasc-bench --example synthetic_run -- chain 1000 20 compiled`
//! (shapes: `chain`, `constant_chain`, `fan`, `iteration`).

use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{Program, ProgramVisitor, Published, RunInput, Services};
use canvasc_frontend::analyze;
use canvasc_tests::synthetic;
use canvasc_value::{Json, Map};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The allocator canvasc's binaries use.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code)]
mod compiled {
    include!(concat!(env!("OUT_DIR"), "/compiled.rs"));
}

fn time<P: Program>(
    label: &str,
    n: usize,
    runs: usize,
    program: Arc<P>,
    dsl: Arc<Map<String, Json>>,
) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let services = Services::default();
    let canvas = Published::new(program, dsl);
    // Python's `random` state is one per process, as in a server.
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let start = Instant::now();
    let mut events = 0;
    for _ in 0..runs {
        let session = canvas.session(services.clone(), rng.clone());
        let mut sink = |_: canvasc_engine::events::Event<'_>| events += 1;
        rt.block_on(session.run(RunInput::default(), &mut sink));
    }
    let per_run = start.elapsed() / runs as u32;
    println!(
        "{label}: {per_run:?} per run, {:.3} µs per node, {} events per run",
        per_run.as_secs_f64() * 1e6 / n as f64,
        events / runs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shape = args.get(1).map(String::as_str).unwrap_or("chain");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let runs: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mode = args.get(4).map(String::as_str).unwrap_or("both");
    let text = match shape {
        "fan" => synthetic::fan(n),
        "iteration" => synthetic::iteration(n),
        "constant_chain" => synthetic::constant_chain(n),
        _ => synthetic::chain(n),
    };
    let label = format!("{shape}/{n}");
    let analysis = analyze(&text).expect("a canvas");
    // Both back-ends start from the same stored DSL.
    let dsl = Arc::new(analysis.document.dsl.clone());
    if mode != "compiled" {
        let program = Arc::new(Interpreter::from_analysis(&analysis));
        time(
            &format!("{label} interpreted"),
            n,
            runs,
            program,
            dsl.clone(),
        );
    }
    if mode != "interpreted" {
        let run = Timed {
            label: format!("{label} compiled"),
            n,
            runs,
            dsl,
        };
        if compiled::visit(&format!("{shape}_{n}"), run).is_none() {
            eprintln!("no compiled program for {label}");
        }
    }
}

/// Times a compiled program handed over by `compiled::visit`.
struct Timed {
    label: String,
    n: usize,
    runs: usize,
    dsl: Arc<Map<String, Json>>,
}

impl ProgramVisitor for Timed {
    type Output = ();

    fn visit<P: Program>(self, program: Arc<P>) {
        time(&self.label, self.n, self.runs, program, self.dsl);
    }
}
