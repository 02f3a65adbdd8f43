//! Scheduler overhead and peak memory on synthetic pure canvases (chains of 10/100/1000 nodes,
//! a 1000-wide fan-out/fan-in, an Iteration over 1000 items), interpreted, in process.
//!
//! `cargo bench -p canvasc-tests --bench scheduler`
//!
//! Each run is one full turn (Begin to workflow_finished) into a sink that counts events, so the
//! numbers include building every event payload but not serialising it.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_runtime::exec::random::PyRandom;
use canvasc_runtime::exec::{RunInput, RunOutcome, Services, Session};
use canvasc_runtime::frontend::analyze;
use canvasc_runtime::value::Json;
use canvasc_tests::synthetic;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Counts live and peak heap bytes so one run's peak memory can be reported.
struct Tracking;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

struct Prepared {
    program: Arc<Interpreter>,
    dsl: serde_json::Map<String, Json>,
}

fn prepare(text: &str) -> Prepared {
    let analysis = analyze(text).expect("synthetic canvases are canvases");
    Prepared {
        program: Arc::new(Interpreter::from_analysis(&analysis)),
        dsl: analysis.document.dsl.clone(),
    }
}

/// One turn; returns the number of events.
async fn one_turn(p: &Prepared) -> usize {
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let session = Session::new(
        Arc::clone(&p.program),
        p.dsl.clone(),
        Services::default(),
        rng,
        true,
    );
    let mut count = 0usize;
    let mut sink = |_: canvasc_runtime::exec::events::Event| count += 1;
    let input = RunInput {
        query: Some(Json::String("bench".into())),
        ..RunInput::default()
    };
    let outcome = session.run(input, &mut sink).await;
    assert_eq!(outcome, RunOutcome::Finished);
    count
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let cases: Vec<(&str, usize, String)> = vec![
        ("chain", 10, synthetic::chain(10)),
        ("chain", 100, synthetic::chain(100)),
        ("chain", 1000, synthetic::chain(1000)),
        ("fan", 1000, synthetic::fan(1000)),
        ("iteration", 1000, synthetic::iteration(1000)),
    ];
    let mut group = c.benchmark_group("interpreted");
    group.sample_size(20);
    for (shape, n, text) in &cases {
        let prepared = prepare(text);
        // Nodes executed = node_finished events.
        let events = rt.block_on(one_turn(&prepared));
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        rt.block_on(one_turn(&prepared));
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        eprintln!(
            "{shape}/{n}: {events} events per run, peak heap during a run {} KiB",
            peak / 1024
        );
        group.throughput(Throughput::Elements(*n as u64));
        group.bench_with_input(BenchmarkId::new(*shape, n), &prepared, |b, p| {
            b.iter(|| rt.block_on(one_turn(p)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
