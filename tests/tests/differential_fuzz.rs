//! Differential fuzzing against RAGFlow's engine: every generated canvas of `tests/fuzz/cases`
//! (see `tests/fuzz/README.md`) runs interpreted in-process and compiled (all of them built
//! into one crate under the target directory), and must give RAGFlow's stream line for line;
//! the compiled run must also give the interpreter's stream and saved sessions.
//!
//! Cases listed in `tests/fuzz/known-differences.txt` are expected to differ (a known class
//! of difference being fixed elsewhere): the test fails when a case not on the list differs,
//! and when a listed case no longer differs, so the list can only shrink.
//!
//! Each case is its own test (`cargo test -p canvasc-tests --test differential_fuzz -- 0042`); the
//! crate is built once, by the first test that needs it, with every case's canvas, and run on
//! the cases the command line selects. `FUZZ_CASE=0042,0043` makes only those cases tests;
//! `FUZZ_INTERPRETED_ONLY=1` skips building the compiled crate (both for local investigation;
//! CI runs everything).

use canvasc::build;
use canvasc::codegen::{self, UniqueNames};
use canvasc_engine::interp::Interpreter;
use canvasc_frontend::analyze;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_tests::fuzz_cases::{
    canvas_text, cases_dir, fuzz_cases, known_differences, FuzzCase, KnownDifference,
};
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{first_difference, run_case_on, CaseRun};
use canvasc_tests::workspace_root;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::runtime::Runtime;

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

/// Each case's compiled run, by name (`None`: no program has its fingerprint).
type CompiledRuns = BTreeMap<String, Option<CaseRun>>;

/// What the suite's tests share.
struct Shared {
    rt: Runtime,
    /// The cases with a golden: the crate holds their canvases.
    runnable: Vec<FuzzCase>,
    /// The cases the command line selects (empty: all), which the crate's binary runs.
    selected: Vec<String>,
    interpreted_only: bool,
    /// Built and run once, by the first test that needs it.
    compiled: OnceLock<Result<CompiledRuns, String>>,
    /// Every case that ran, with its differences, for the summary and `FUZZ_REPORT`.
    found: Mutex<BTreeMap<String, Vec<String>>>,
}

impl Shared {
    fn compiled_runs(&self) -> Result<&CompiledRuns, String> {
        self.compiled
            .get_or_init(|| {
                let target = std::env::var_os("CARGO_TARGET_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| workspace_root().join("target"));
                let dir = target.join("canvasc-tests/fuzz-canvases");
                std::fs::create_dir_all(&dir).map_err(|e| format!("build dir: {e}"))?;
                let started = std::time::Instant::now();
                let cases: Vec<&FuzzCase> = self.runnable.iter().collect();
                let binary =
                    build_fuzz_crate(&cases, &dir).map_err(|e| format!("fuzz crate: {e}"))?;
                say(&format!(
                    "differential_fuzz: built {} canvases in {:.0?}",
                    cases.len(),
                    started.elapsed()
                ));
                run_compiled(&binary, &self.selected)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// How one case differs: interpreted vs RAGFlow, and (unless interpreted only) compiled vs
    /// RAGFlow and vs the interpreter, stream and saved sessions.
    fn differences(&self, c: &FuzzCase) -> Result<Vec<String>, String> {
        let mut found = Vec::new();
        let interpreted = self.rt.block_on(run_case_on(&c.case, |a| {
            Arc::new(Interpreter::from_analysis(a))
        }));
        if let Some(diff) = first_difference(&c.expected(), &interpreted.lines) {
            found.push(format!("interpreted vs RAGFlow: {diff}"));
        }
        if self.interpreted_only {
            return Ok(found);
        }
        let Some(Some(got)) = self.compiled_runs()?.get(&c.name) else {
            return Err(format!(
                "{}: compiled: no compiled program has this canvas's fingerprint",
                c.name
            ));
        };
        if let Some(diff) = first_difference(&c.expected(), &got.lines) {
            found.push(format!("compiled vs RAGFlow: {diff}"));
        }
        if let Some(diff) = first_difference(&interpreted.lines, &got.lines) {
            found.push(format!("compiled vs interpreted (stream): {diff}"));
        }
        if let Some(diff) = first_difference(&interpreted.saved, &got.saved) {
            found.push(format!("compiled vs interpreted (saved session): {diff}"));
        }
        Ok(found)
    }

    /// One case's test: it must match, unless the list of known differences names it, and then
    /// it must still differ (the list can only shrink).
    fn check(&self, c: &FuzzCase, known: Option<&KnownDifference>) -> Result<(), String> {
        let found = self.differences(c)?;
        if let Ok(mut all) = self.found.lock() {
            all.insert(c.name.clone(), found.clone());
        }
        match known {
            None if found.is_empty() => Ok(()),
            None => Err(format!(
                "{} differs and is not in tests/fuzz/known-differences.txt:\n  {}",
                c.name,
                found.join("\n  ")
            )),
            Some(k) if found.is_empty() => Err(format!(
                "{} [{}] is in tests/fuzz/known-differences.txt but no longer differs; remove it from the list",
                k.name, k.class
            )),
            Some(k) => {
                say(&format!(
                    "differential_fuzz: known difference {} [{}] {}",
                    k.name, k.class, k.note
                ));
                Ok(())
            }
        }
    }

    /// The closing line, and every difference in full in `FUZZ_REPORT` (for classifying a new
    /// run).
    fn summarize(&self, known: &[KnownDifference]) {
        let Ok(found) = self.found.lock() else {
            return;
        };
        let differing: BTreeMap<&String, &Vec<String>> =
            found.iter().filter(|(_, d)| !d.is_empty()).collect();
        let mut per_class: BTreeMap<&str, usize> = BTreeMap::new();
        let mut fixed = 0;
        for k in known.iter().filter(|k| found.contains_key(&k.name)) {
            if differing.contains_key(&k.name) {
                *per_class.entry(k.class.as_str()).or_default() += 1;
            } else {
                fixed += 1;
            }
        }
        let listed: BTreeSet<&str> = known.iter().map(|k| k.name.as_str()).collect();
        let unexpected = differing
            .keys()
            .filter(|n| !listed.contains(n.as_str()))
            .count();
        if let Ok(path) = std::env::var("FUZZ_REPORT") {
            let report: Vec<String> = differing
                .iter()
                .map(|(n, d)| format!("== {n}\n{}", d.join("\n")))
                .collect();
            let _ = std::fs::write(path, report.join("\n"));
        }
        say(&format!(
            "differential_fuzz: {} cases ran ({} compiled), {} differ: {} known ({}), {} unexpected, {} listed but now identical",
            found.len(),
            if self.interpreted_only { 0 } else { found.len() },
            differing.len(),
            differing.len() - unexpected,
            per_class
                .iter()
                .map(|(c, n)| format!("{c}: {n}"))
                .collect::<Vec<_>>()
                .join(", "),
            unexpected,
            fixed
        ));
    }
}

fn main() -> ExitCode {
    let only: Vec<String> = std::env::var("FUZZ_CASE")
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let interpreted_only = std::env::var_os("FUZZ_INTERPRETED_ONLY").is_some();
    if interpreted_only {
        say("differential_fuzz: compiled runs SKIPPED (FUZZ_INTERPRETED_ONLY is set)");
    }
    let mut suite = Suite::from_args();
    let cases: Vec<FuzzCase> = fuzz_cases(&cases_dir())
        .into_iter()
        .filter(|c| only.is_empty() || only.contains(&c.name))
        .collect();
    let (runnable, unstable): (Vec<FuzzCase>, Vec<FuzzCase>) =
        cases.into_iter().partition(|c| c.golden.is_some());
    if only.is_empty() {
        assert!(
            runnable.len() >= MIN_CASES,
            "only {} fuzz cases have a golden (tests/fuzz/cases), expected at least {MIN_CASES}",
            runnable.len()
        );
    }
    let selected: Vec<String> = runnable
        .iter()
        .map(|c| c.name.clone())
        .filter(|n| suite.selects(n))
        .collect();
    let shared = Arc::new(Shared {
        rt: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime"),
        selected: if selected.len() == runnable.len() {
            Vec::new()
        } else {
            selected
        },
        runnable,
        interpreted_only,
        compiled: OnceLock::new(),
        found: Mutex::new(BTreeMap::new()),
    });
    let known = known_differences(&workspace_root().join("tests/fuzz/known-differences.txt"));
    for c in unstable {
        let why = format!("{}: no golden", c.name);
        suite.skip(
            &c.name,
            "RAGFlow's own output differs between runs (tests/fuzz/cases/unstable.txt)",
            move || Err(why),
        );
    }
    for c in shared.runnable.iter().cloned() {
        let shared = Arc::clone(&shared);
        let k = known.iter().find(|k| k.name == c.name).cloned();
        suite.case(&c.name.clone(), move || shared.check(&c, k.as_ref()));
    }
    let code = suite.run();
    shared.summarize(&known);
    code
}
