//! `fuzzgen --seed N --count K [--start I] --out DIR`: write K generated canvases of seed N
//! (indexes I..I+K) as `DIR/NNNN.json` (the canvas) and `DIR/NNNN.case.json` (its turns),
//! for `tests/fuzz/regen.py` to run through RAGFlow's engine. See `tests/fuzz/README.md`.

use canvasc_tests::fuzzgen::generate;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut seed = 1u64;
    let mut count = 10u64;
    let mut start = 0u64;
    let mut out = PathBuf::from("tests/fuzz/cases");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next();
        let parsed = match (a.as_str(), value) {
            ("--seed", Some(v)) => v.parse().map(|v| seed = v).is_ok(),
            ("--count", Some(v)) => v.parse().map(|v| count = v).is_ok(),
            ("--start", Some(v)) => v.parse().map(|v| start = v).is_ok(),
            ("--out", Some(v)) => {
                out = PathBuf::from(v);
                true
            }
            _ => false,
        };
        if !parsed {
            eprintln!("usage: fuzzgen --seed N --count K [--start I] --out DIR");
            return ExitCode::from(2);
        }
    }
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("fuzzgen: cannot create {}: {e}", out.display());
        return ExitCode::from(1);
    }
    let mut coverage: BTreeMap<String, usize> = BTreeMap::new();
    for index in start..start + count {
        let g = generate(seed, index);
        for f in &g.features {
            *coverage.entry(f.clone()).or_default() += 1;
        }
        let stem = out.join(format!("{index:04}"));
        let canvas = serde_json::to_string(&g.canvas).unwrap_or_default();
        let case = serde_json::to_string_pretty(&g.case).unwrap_or_default();
        let written = std::fs::write(stem.with_extension("json"), canvas + "\n")
            .and_then(|_| std::fs::write(stem.with_extension("case.json"), case + "\n"));
        if let Err(e) = written {
            eprintln!("fuzzgen: cannot write {}: {e}", stem.display());
            return ExitCode::from(1);
        }
    }
    eprintln!(
        "fuzzgen: {count} canvases of seed {seed} in {}",
        out.display()
    );
    eprintln!("coverage (feature: canvases):");
    for (f, n) in coverage {
        eprintln!("  {f}: {n}");
    }
    ExitCode::SUCCESS
}
