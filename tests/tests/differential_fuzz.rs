//! Differential fuzzing against RAGFlow's engine: every generated canvas of `tests/fuzz/cases`
//! (see `tests/fuzz/README.md`) runs interpreted in-process and compiled (all of them built
//! into one crate under the target directory), and must give RAGFlow's stream line for line;
//! the compiled run must also give the interpreter's stream and saved sessions.
//!
//! Cases listed in `tests/fuzz/known-differences.txt` are expected to differ (a known class
//! of difference being fixed elsewhere): the test fails when a case not on the list differs,
//! and when a listed case no longer differs, so the list can only shrink.
//!
//! `FUZZ_CASE=0042,0043` runs only those cases; `FUZZ_INTERPRETED_ONLY=1` skips building the
//! compiled crate (both for local investigation; CI runs everything).

use canvasc::build;
use canvasc::codegen::{self, UniqueNames};
use canvasc_runtime::exec::interp::Interpreter;
use canvasc_runtime::frontend::analyze;
use canvasc_runtime::frontend::fingerprint::fingerprint;
use canvasc_tests::fuzz_cases::{canvas_text, cases_dir, fuzz_cases, known_differences, FuzzCase};
use canvasc_tests::reference::{first_difference, run_case_on, CaseRun};
use canvasc_tests::workspace_root;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// The checked-in set has at least this many cases with a golden.
const MIN_CASES: usize = 500;

/// Straight to the process's stderr: libtest captures `eprintln!`, and this must be seen.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// Write the crate of every case's canvas (by fingerprint, once each) with the fuzz driver as
/// its `main`, build it, and return the binary.
fn build_fuzz_crate(cases: &[&FuzzCase], dir: &Path) -> Result<PathBuf, String> {
    let mut modules = Vec::new();
    let mut seen = BTreeSet::new();
    let mut names = UniqueNames::default();
    for c in cases {
        let text = canvas_text(&c.case);
        let analysis = analyze(&text).map_err(|e| format!("{}: {e}", c.name))?;
        if !seen.insert(fingerprint(&analysis.document)) {
            continue;
        }
        let source = format!("tests/fuzz/cases/{}.json", c.name);
        let module = codegen::module_name(&format!("fuzz_{}", c.name), &mut names);
        let code = codegen::format(codegen::canvas_module(&source, &analysis))
            .map_err(|e| format!("{}: generated code does not parse: {e}", c.name))?;
        modules.push((module, code));
    }
    let root = workspace_root();
    let source = build::canvasc_source(Some(&root))?;
    build::write_crate(dir, "fuzz-canvases", &source, &modules).map_err(|e| e.to_string())?;
    // The driver lives in canvasc-tests; no debug info keeps this crate's build short.
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    let tests = root.join("tests").to_string_lossy().replace('\\', "/");
    let text = text.replacen(
        "[dependencies]\n",
        &format!("[dependencies]\ncanvasc-tests = {{ path = \"{tests}\" }}\n"),
        1,
    ) + "\n[profile.dev]\ndebug = 0\n\n[profile.dev.package.\"*\"]\nopt-level = 1\n";
    build::write_if_changed(&manifest, &text).map_err(|e| e.to_string())?;
    build::write_if_changed(
        &dir.join("src/main.rs"),
        "//! Runs every fuzz case with its compiled program (`canvasc_tests::fuzz_cases`).\n\
         fn main() -> std::process::ExitCode {\n    \
         canvasc_tests::fuzz_cases::compiled_driver(fuzz_canvases::visit)\n}\n",
    )
    .map_err(|e| e.to_string())?;
    // Its own target directory: sharing the workspace's made each build of one side
    // rebuild the dependencies of the other.
    build::cargo_build_into(dir, "fuzz-canvases", false, &dir.join("target"))
}

/// Run the built crate on `names` (all when empty); returns each case's run, or `None` when
/// the binary had no program for it.
fn run_compiled(
    binary: &Path,
    names: &[String],
) -> Result<BTreeMap<String, Option<CaseRun>>, String> {
    let out = Command::new(binary)
        .arg(cases_dir())
        .args(names)
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            binary.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let strings = |v: Option<&Json>| -> Vec<String> {
        v.and_then(Json::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut runs = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Json = serde_json::from_str(line).map_err(|e| format!("driver output: {e}"))?;
        let name = v
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string();
        let run = (v.get("missing").is_none()).then(|| CaseRun {
            lines: strings(v.get("lines")),
            saved: strings(v.get("saved")),
        });
        runs.insert(name, run);
    }
    Ok(runs)
}

#[test]
fn fuzz_cases_match_ragflow_interpreted_and_compiled() {
    let only: Vec<String> = std::env::var("FUZZ_CASE")
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let interpreted_only = std::env::var_os("FUZZ_INTERPRETED_ONLY").is_some();
    let all = fuzz_cases(&cases_dir());
    let known = known_differences(&workspace_root().join("tests/fuzz/known-differences.txt"));
    let mut runnable = Vec::new();
    for c in &all {
        if !only.is_empty() && !only.contains(&c.name) {
            continue;
        }
        if c.golden.is_none() {
            say(&format!(
                "differential_fuzz: SKIPPED {}: RAGFlow's own output differs between runs (tests/fuzz/cases/unstable.txt)",
                c.name
            ));
            continue;
        }
        runnable.push(c);
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // name → first difference found, per mode.
    let mut differences: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut interpreted: BTreeMap<String, CaseRun> = BTreeMap::new();
    for c in &runnable {
        let run = rt.block_on(run_case_on(&c.case, |a| {
            Arc::new(Interpreter::from_analysis(a))
        }));
        if let Some(diff) = first_difference(&c.expected(), &run.lines) {
            differences
                .entry(c.name.clone())
                .or_default()
                .push(format!("interpreted vs RAGFlow: {diff}"));
        }
        interpreted.insert(c.name.clone(), run);
    }

    let mut compiled_ran = 0;
    if interpreted_only {
        say("differential_fuzz: compiled runs SKIPPED (FUZZ_INTERPRETED_ONLY is set)");
    } else {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace_root().join("target"));
        let dir = target.join("canvasc-tests/fuzz-canvases");
        std::fs::create_dir_all(&dir).expect("build dir");
        let started = std::time::Instant::now();
        let binary =
            build_fuzz_crate(&runnable, &dir).unwrap_or_else(|e| panic!("fuzz crate: {e}"));
        say(&format!(
            "differential_fuzz: built {} canvases in {:.0?}",
            runnable.len(),
            started.elapsed()
        ));
        let names: Vec<String> = runnable.iter().map(|c| c.name.clone()).collect();
        let runs = run_compiled(&binary, if only.is_empty() { &[] } else { &names })
            .unwrap_or_else(|e| panic!("{e}"));
        for c in &runnable {
            let entry = differences.entry(c.name.clone()).or_default();
            let Some(Some(got)) = runs.get(&c.name) else {
                entry.push("compiled: no compiled program has this canvas's fingerprint".into());
                continue;
            };
            compiled_ran += 1;
            if let Some(diff) = first_difference(&c.expected(), &got.lines) {
                entry.push(format!("compiled vs RAGFlow: {diff}"));
            }
            if let Some(i) = interpreted.get(&c.name) {
                if let Some(diff) = first_difference(&i.lines, &got.lines) {
                    entry.push(format!("compiled vs interpreted (stream): {diff}"));
                }
                if let Some(diff) = first_difference(&i.saved, &got.saved) {
                    entry.push(format!("compiled vs interpreted (saved session): {diff}"));
                }
            }
        }
        differences.retain(|_, v| !v.is_empty());
    }

    // Reconcile with the list of known differences.
    let ran: BTreeSet<&str> = runnable.iter().map(|c| c.name.as_str()).collect();
    let mut per_class: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    for k in &known {
        if !ran.contains(k.name.as_str()) {
            continue;
        }
        if differences.contains_key(&k.name) {
            *per_class.entry(k.class.as_str()).or_default() += 1;
            say(&format!(
                "differential_fuzz: known difference {} [{}] {}",
                k.name, k.class, k.note
            ));
        } else {
            fixed.push(format!("{} [{}]", k.name, k.class));
        }
    }
    for (name, diffs) in &differences {
        if !known.iter().any(|k| &k.name == name) {
            unexpected.push(format!("{name}:\n  {}", diffs.join("\n  ")));
        }
    }
    if let Ok(path) = std::env::var("FUZZ_REPORT") {
        // Every difference in full, for classifying a new run.
        let report: Vec<String> = differences
            .iter()
            .map(|(n, d)| format!("== {n}\n{}", d.join("\n")))
            .collect();
        let _ = std::fs::write(path, report.join("\n"));
    }
    say(&format!(
        "differential_fuzz: {} cases ran ({} compiled), {} differ: {} known ({}), {} unexpected, {} listed but now identical",
        runnable.len(),
        compiled_ran,
        differences.len(),
        differences.len() - unexpected.len(),
        per_class
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        unexpected.len(),
        fixed.len()
    ));
    if only.is_empty() {
        assert!(
            runnable.len() >= MIN_CASES,
            "only {} fuzz cases have a golden (tests/fuzz/cases), expected at least {MIN_CASES}",
            runnable.len()
        );
        if !interpreted_only {
            assert_eq!(compiled_ran, runnable.len(), "every case runs compiled");
        }
    }
    assert!(
        unexpected.is_empty(),
        "{} case(s) differ and are not in tests/fuzz/known-differences.txt:\n{}",
        unexpected.len(),
        unexpected.join("\n\n")
    );
    assert!(
        fixed.is_empty(),
        "{} case(s) in tests/fuzz/known-differences.txt no longer differ; remove them from the list: {}",
        fixed.len(),
        fixed.join(", ")
    );
}
