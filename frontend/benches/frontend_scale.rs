//! How the front-end scales: load, load + lower + check, and the fingerprint, on synthetic
//! canvases of growing size (a chain, a fan-out/fan-in, a chain of diamonds, an Iteration, the
//! chain in the editor's graph forms),
//! with the peak heap each step needs. Every doubling of the size should about double the
//! time and the memory; a step that quadruples is a super-linear pass.
//!
//! `cargo bench -p canvasc-runtime --bench frontend_scale [-- SHAPE[,SHAPE] [SIZE,SIZE...]]`
//! (shapes: `chain`, `fan`, `diamonds`, `iteration`, `chain+graph` (the chain with the editor's
//! graph beside it, as RAGFlow stores canvases), `graph` (the editor's graph alone); sizes
//! default to 1000,2000,4000,8000,10000).
//!
//! Columns: `load` (parse and normalise), then each later phase alone on the previous phase's
//! result, `lower` (the IR), `flow` (control-flow facts) and `check` (the checker), then `all`
//! (load + lower + check, what `canvasc check` does) and `fp` (the fingerprint of a loaded
//! document, all a built binary does before it runs a compiled program); `cpu` is the process's CPU time in ms
//! (stable on a shared machine), `wall` the elapsed time, `MB` the peak heap. Each time is the
//! best of several runs (at least three, or as many as fit in half a second); the peak is the
//! largest live heap above what was live before the step (the input text excluded), counted
//! by a wrapper around mimalloc, the allocator canvasc's binaries use.

#[allow(dead_code)]
#[path = "../../tests/src/synthetic.rs"]
mod synthetic;

use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::flow::Flow;
use canvasc_frontend::{analyze, check, ir, load_str};
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live and peak heap bytes around mimalloc.
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

/// CPU time this process has used: unlike the wall clock it does not count the time other
/// processes on a busy machine take the cores away.
fn cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Best CPU time, best wall time and peak heap of `step` (its result is dropped inside the
/// measurement).
fn measure<T>(mut step: impl FnMut() -> T) -> (Duration, Duration, usize) {
    let mut best_cpu = Duration::MAX;
    let mut best_wall = Duration::MAX;
    let mut peak = 0;
    let started = Instant::now();
    let mut runs = 0;
    while runs < 3 || (started.elapsed() < Duration::from_millis(500) && runs < 50) {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let (wall, cpu) = (Instant::now(), cpu_time());
        let out = black_box(step());
        let (wall, cpu) = (wall.elapsed(), cpu_time().saturating_sub(cpu));
        drop(out);
        peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(before));
        best_cpu = best_cpu.min(cpu);
        best_wall = best_wall.min(wall);
        runs += 1;
    }
    (best_cpu, best_wall, peak)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    // `cargo bench` passes `--bench`; everything else is ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let shapes: Vec<String> = args.first().map_or_else(
        || {
            ["chain", "fan", "diamonds", "iteration"]
                .map(String::from)
                .to_vec()
        },
        |s| s.split(',').map(String::from).collect(),
    );
    let sizes: Vec<usize> = args.get(1).map_or_else(
        || vec![1000, 2000, 4000, 8000, 10000],
        |s| s.split(',').filter_map(|n| n.parse().ok()).collect(),
    );
    println!(
        "{:<11} {:>6} {:>6} {:>5} {:>6} {:>5} {:>6} {:>5} {:>6} {:>5} {:>7} {:>7} {:>5} {:>6} {:>5}",
        "", "", "load", "", "lower", "", "flow", "", "check", "", "all", "", "", "fp", ""
    );
    println!(
        "{:<11} {:>6} {:>6} {:>5} {:>6} {:>5} {:>6} {:>5} {:>6} {:>5} {:>7} {:>7} {:>5} {:>6} {:>5}",
        "shape", "n", "cpu", "MB", "cpu", "MB", "cpu", "MB", "cpu", "MB", "cpu", "wall", "MB", "cpu", "MB"
    );
    for shape in &shapes {
        for &n in &sizes {
            let text = match shape.as_str() {
                "chain" => synthetic::chain(n),
                "fan" => synthetic::fan(n),
                "diamonds" => synthetic::diamonds(n),
                "iteration" => synthetic::iteration(n),
                "chain+graph" => synthetic::with_graph(&synthetic::chain(n), false),
                "graph" => synthetic::with_graph(&synthetic::chain(n), true),
                other => {
                    eprintln!("unknown shape {other}");
                    return;
                }
            };
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            let (load_c, _, load_m) = measure(|| load_str(&text).map(|l| l.document));
            let (all_c, all_w, all_m) = measure(|| analyze(&text));
            let Ok(loaded) = load_str(&text) else {
                eprintln!("{shape} {n}: does not load");
                return;
            };
            let doc = &loaded.document;
            let (lower_c, _, lower_m) = measure(|| ir::lower(doc));
            let ir = ir::lower(doc);
            let (flow_c, _, flow_m) = measure(|| Flow::new(&ir));
            let flow = Flow::new(&ir);
            let (check_c, _, check_m) =
                measure(|| check::check(doc, &ir, &flow, loaded.diagnostics.clone()));
            let (fp_c, _, fp_m) = measure(|| fingerprint(doc));
            println!(
                "{shape:<11} {n:>6} {:>6.1} {:>5.1} {:>6.1} {:>5.1} {:>6.1} {:>5.1} {:>6.1} {:>5.1} {:>7.1} {:>7.1} {:>5.1} {:>6.1} {:>5.1}",
                ms(load_c),
                mb(load_m),
                ms(lower_c),
                mb(lower_m),
                ms(flow_c),
                mb(flow_m),
                ms(check_c),
                mb(check_m),
                ms(all_c),
                ms(all_w),
                mb(all_m),
                ms(fp_c),
                mb(fp_m),
            );
        }
    }
}
