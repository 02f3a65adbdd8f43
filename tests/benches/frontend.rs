//! Front-end speed: load + lower + check, in process, on the largest corpus template
//! (`templates/deep_research.json`), falling back to the largest fixture without the corpus.
//!
//! `cargo bench -p canvasc-tests --bench frontend`

use canvasc_frontend::{analyze, load_str};
use canvasc_tests::{fixture_files, shared_dir};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn input() -> (String, String) {
    if let Some(shared) = shared_dir("frontend bench") {
        let p = shared.join("corpus/ragflow/templates/deep_research.json");
        if let Ok(text) = std::fs::read_to_string(&p) {
            return ("templates/deep_research.json".into(), text);
        }
    }
    let mut best = (String::new(), String::new());
    for p in fixture_files("valid") {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if text.len() > best.1.len() {
            best = (p.display().to_string(), text);
        }
    }
    best
}

fn bench(c: &mut Criterion) {
    let (name, text) = input();
    if text.is_empty() {
        eprintln!("frontend bench: NOT RUN: no input canvas");
        return;
    }
    let mut group = c.benchmark_group("frontend");
    group.bench_function(format!("load {name}"), |b| {
        b.iter(|| load_str(black_box(&text)).map(|l| l.document.components.len()))
    });
    group.bench_function(format!("load+check {name}"), |b| {
        b.iter(|| analyze(black_box(&text)).map(|a| a.diagnostics.len()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
