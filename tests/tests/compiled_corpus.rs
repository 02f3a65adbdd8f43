//! Every corpus canvas compiles with `canvasc build` (corpus files cannot be checked in, so the
//! crate is written and built here), and the built binary gives the same stream and the same
//! saved session compiled as interpreted, turn by turn, for every reference case. Each case is
//! its own test (`cargo test -p canvasc-tests --test compiled_corpus -- <case>`); the crate is
//! built once, by the first test that runs.

use canvasc::build;
use canvasc::codegen::{self, UniqueNames};
use canvasc_frontend::analyze;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{first_difference, normalize, Case};
use canvasc_tests::{corpus_files, display_path, reference_cases, shared_dir, workspace_root};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::{Arc, OnceLock};

/// Build one crate with every corpus canvas and every canvas a reference case runs (a corpus
/// file with the case's patches: filled `llm_id`s, `--set` edits), in draft mode (the corpus's
/// real defects fail at run time, as in RAGFlow). Returns the binary and how many canvases it
/// holds.
fn build_corpus(shared: &Path, dir: &Path) -> (PathBuf, usize) {
    let mut modules = Vec::new();
    let mut seen = Vec::new();
    let mut names = UniqueNames::default();
    let files = corpus_files(shared).into_iter().map(|path| {
        let text = std::fs::read_to_string(&path).expect("corpus file reads");
        (display_path(&path), text)
    });
    let cases = reference_cases(shared)
        .into_iter()
        .map(|(name, case, _)| (format!("{name}.json"), case.load_dsl().to_string()));
    for (name, text) in files.chain(cases) {
        let analysis = analyze(&text).expect("corpus canvas loads");
        let fp = fingerprint(&analysis.document);
        if seen.contains(&fp) {
            continue;
        }
        seen.push(fp);
        let module = codegen::module_name(&name, &mut names);
        let code = codegen::format(codegen::canvas_module(&name, &analysis))
            .unwrap_or_else(|e| panic!("{name}: generated code does not parse: {e}"));
        modules.push((module, code));
    }
    let source = build::canvasc_source(Some(&workspace_root())).expect("source tree");
    build::write_crate(dir, "corpus-canvases", &source, &modules).expect("crate written");
    let binary = build::cargo_build(dir, "corpus-canvases", false).expect("corpus crate builds");
    (binary, modules.len())
}

/// One turn through the built binary; returns the normalised stream.
fn turn(binary: &Path, case: &Case, dir: &Path, i: usize, interpret: bool) -> Vec<String> {
    let canvas = dir.join("canvas.json");
    std::fs::write(&canvas, case.load_dsl().to_string()).expect("canvas written");
    let state = dir.join(if interpret {
        "state-i.json"
    } else {
        "state-c.json"
    });
    if i == 0 {
        let _ = std::fs::remove_file(&state);
    }
    let t = &case.turns[i];
    let mut cmd = Command::new(binary);
    cmd.arg("run")
        .arg(&canvas)
        .arg("--query")
        .arg(&t.query)
        .arg("--inputs")
        .arg(t.inputs.to_string())
        .arg("--state")
        .arg(&state)
        .arg("--seed")
        .arg("0")
        .arg("--user-id")
        .arg("user-ref");
    if let Some(llm) = case.script.as_ref().and_then(|s| s.get("llm")) {
        let script = dir.join("llm.json");
        std::fs::write(&script, llm.to_string()).expect("script written");
        cmd.arg("--llm-script").arg(script);
    }
    if interpret {
        cmd.arg("--interpret");
    }
    for (k, v) in &case.env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !interpret {
        assert!(
            stderr.contains("running the compiled program"),
            "{} did not run compiled: {stderr}",
            canvas.display()
        );
    }
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Json = serde_json::from_str(l).unwrap_or(Json::String(l.to_string()));
            normalize(&v).to_string()
        })
        .collect();
    lines.push(format!("exit {:?}", out.status.code()));
    let saved: Json = std::fs::read_to_string(&state)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Json::Null);
    lines.push(normalize(&saved).to_string());
    lines
}

/// Compiled and interpreted turns of one case through the built binary, in its own directory;
/// stops at the first turn that differs.
fn compare(binary: &Path, name: &str, case: &Case, work: &Path) -> Result<(), String> {
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    for i in 0..case.turns.len() {
        let compiled = turn(binary, case, work, i, false);
        let interpreted = turn(binary, case, work, i, true);
        if let Some(diff) = first_difference(&interpreted, &compiled) {
            return Err(format!(
                "{name} turn {i} differs between compiled and interpreted: {diff}"
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    const SUITE: &str = "corpus_builds_and_compiled_runs_match_interpreted";
    let mut suite = Suite::from_args();
    let Some(shared) = shared_dir(SUITE) else {
        suite.not_run(
            SUITE,
            "no shared corpus (set CANVASC_SHARED to its location)",
        );
        return suite.run();
    };
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = target.join("canvasc-tests/corpus-canvases");
    let cases = reference_cases(&shared);
    let turns: usize = cases.iter().map(|(_, c, _)| c.turns.len()).sum();
    assert!(turns >= 40, "only {turns} turns");
    // Built once, by the first test that runs; a failed build fails every test with its text.
    let built: Arc<OnceLock<Result<PathBuf, String>>> = Arc::new(OnceLock::new());
    for (name, case, _) in cases {
        let (built, shared, dir) = (Arc::clone(&built), shared.clone(), dir.clone());
        let test = name.clone();
        suite.case(&test, move || {
            let binary = built
                .get_or_init(|| {
                    std::panic::catch_unwind(|| {
                        std::fs::create_dir_all(&dir).expect("build dir");
                        let (binary, canvases) = build_corpus(&shared, &dir);
                        assert!(canvases >= 30, "only {canvases} canvases compiled");
                        binary
                    })
                    .map_err(|_| "the corpus crate did not build (its panic is above)".to_string())
                })
                .as_ref()
                .map_err(Clone::clone)?;
            compare(binary, &name, &case, &dir.join("runs").join(&name))
        });
    }
    suite.run()
}
