//! Scheduler overhead and peak memory on synthetic pure canvases (chains of 10/100/1000 nodes,
//! a 1000-wide fan-out/fan-in, an Iteration over 1000 items), compiled and interpreted, in one
//! process.
//!
//! `cargo bench -p canvasc-bench --bench scheduler`
//!
//! Each run is one full turn (a new session of the published canvas, Begin to
//! workflow_finished, the session dropped) into a sink that counts events, so the numbers
//! include building every event but not serialising it; `*-turn-only` times the turn alone,
//! with the session built before and dropped after. The compiled programs are the code
//! generator's output for the same canvases (built by `build.rs`).

use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{
    Program, ProgramVisitor, Published, RunInput, RunOutcome, Services, Session, SharedRandom,
};
use canvasc_frontend::analyze;
use canvasc_tests::synthetic;
use canvasc_value::Json;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[allow(dead_code)]
mod compiled {
    include!(concat!(env!("OUT_DIR"), "/compiled.rs"));
}

/// Counts live and peak heap bytes so one run's peak memory can be reported; allocates with
/// mimalloc, as canvasc's binaries do.
struct Tracking;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { MiMalloc.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// Python's `random` state is one per process, as in a server.
static RANDOM: std::sync::LazyLock<SharedRandom> =
    std::sync::LazyLock::new(|| Arc::new(Mutex::new(PyRandom::seeded(0))));

/// A new session of the canvas.
fn session<P: Program>(canvas: &Published<P>, services: &Services) -> Session<P> {
    canvas.session(services.clone(), RANDOM.clone())
}

/// One turn of a new session; returns the number of events.
async fn one_turn<P: Program>(canvas: &Published<P>, services: &Services) -> usize {
    run(&session(canvas, services)).await
}

/// One turn of `session`; returns the number of events.
async fn run<P: Program>(session: &Session<P>) -> usize {
    let mut count = 0usize;
    let mut sink = |_: canvasc_engine::events::Event| count += 1;
    let input = RunInput {
        query: Some(Json::String("bench".into())),
        ..RunInput::default()
    };
    let outcome = session.run(input, &mut sink).await;
    assert_eq!(outcome, RunOutcome::Finished);
    count
}

/// Peak heap during one turn, in KiB, and the turn's event count.
fn peak_kib<P: Program>(
    rt: &tokio::runtime::Runtime,
    canvas: &Published<P>,
    services: &Services,
) -> (usize, usize) {
    rt.block_on(one_turn(canvas, services));
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let events = rt.block_on(one_turn(canvas, services));
    (
        PEAK.load(Ordering::Relaxed).saturating_sub(base) / 1024,
        events,
    )
}

/// Benchmarks one synthetic canvas interpreted and, handed over by `compiled::visit`, compiled.
struct Pair<'c> {
    c: &'c mut Criterion,
    rt: tokio::runtime::Runtime,
    services: Services,
    shape: &'static str,
    n: usize,
    text: String,
}

impl ProgramVisitor for Pair<'_> {
    type Output = ();

    fn visit<P: Program>(self, compiled: Arc<P>) {
        let Pair {
            c,
            rt,
            services,
            shape,
            n,
            text,
        } = self;
        let analysis = analyze(&text).expect("synthetic canvases are canvases");
        // The compiled program starts from the same stored DSL the interpreter loads; a server
        // keeps a published canvas ready, so every new session starts from its fresh state.
        let dsl = Arc::new(analysis.document.dsl.clone());
        let interpreted = Published::new(
            Arc::new(Interpreter::from_analysis(&analysis)),
            Arc::clone(&dsl),
        );
        let compiled = Published::new(compiled, dsl);
        let (ki, events) = peak_kib(&rt, &interpreted, &services);
        let (kc, events_c) = peak_kib(&rt, &compiled, &services);
        assert_eq!(
            events, events_c,
            "{shape}/{n}: same events compiled and interpreted"
        );
        eprintln!(
            "{shape}/{n}: {events} events per run; peak heap during a run: interpreted {ki} KiB, compiled {kc} KiB"
        );
        let mut group = c.benchmark_group(format!("{shape}/{n}"));
        group.sample_size(20);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("interpreted", n), &(), |b, _| {
            b.iter(|| rt.block_on(one_turn(&interpreted, &services)));
        });
        group.bench_with_input(BenchmarkId::new("compiled", n), &(), |b, _| {
            b.iter(|| rt.block_on(one_turn(&compiled, &services)));
        });
        // The turn alone: the session is built before and dropped after the timed part.
        group.bench_with_input(BenchmarkId::new("interpreted-turn-only", n), &(), |b, _| {
            b.iter_batched(
                || session(&interpreted, &services),
                |s| (rt.block_on(run(&s)), s),
                BatchSize::SmallInput,
            );
        });
        group.bench_with_input(BenchmarkId::new("compiled-turn-only", n), &(), |b, _| {
            b.iter_batched(
                || session(&compiled, &services),
                |s| (rt.block_on(run(&s)), s),
                BatchSize::SmallInput,
            );
        });
        group.finish();
    }
}

/// A synthetic canvas: its shape name, size and generator.
type Shape = (&'static str, usize, fn(usize) -> String);

fn bench(c: &mut Criterion) {
    let services = Services::default();
    let shapes: [Shape; 5] = [
        ("chain", 10, synthetic::chain),
        ("chain", 100, synthetic::chain),
        ("chain", 1000, synthetic::chain),
        ("fan", 1000, synthetic::fan),
        ("iteration", 1000, synthetic::iteration),
    ];
    for (shape, n, make) in shapes {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let pair = Pair {
            c: &mut *c,
            rt,
            services: services.clone(),
            shape,
            n,
            text: make(n),
        };
        if compiled::visit(&format!("{shape}_{n}"), pair).is_none() {
            eprintln!("{shape}/{n}: not compiled in this build (CANVASC_BENCH_ONLY), skipped");
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
