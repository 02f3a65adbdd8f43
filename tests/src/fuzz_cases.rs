//! The checked-in fuzz cases (`tests/fuzz/cases`): generated canvases, their turns and the
//! streams RAGFlow's engine produced for them; the list of cases known to differ; and the
//! driver a crate of compiled fuzz canvases runs (`tests/tests/differential_fuzz.rs` builds it).

use crate::reference::{run_case_on, Case, CaseRun, Turn};
use crate::workspace_root;
use canvasc_engine::{Program, ProgramVisitor};
use canvasc_frontend::analyze;
use canvasc_frontend::fingerprint::fingerprint;
use serde_json::{json, Map, Value as Json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One generated case.
#[derive(Clone, Debug)]
pub struct FuzzCase {
    /// The file stem, `NNNN`.
    pub name: String,
    pub case: Case,
    /// RAGFlow's stream, when the oracle produced a deterministic one.
    pub golden: Option<PathBuf>,
}

impl FuzzCase {
    pub fn expected(&self) -> Vec<String> {
        self.golden
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// `tests/fuzz/cases`.
pub fn cases_dir() -> PathBuf {
    workspace_root().join("tests/fuzz/cases")
}

/// Every case under `dir` (`NNNN.case.json` beside `NNNN.json`), sorted by name.
pub fn fuzz_cases(dir: &Path) -> Vec<FuzzCase> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().to_string();
                    name.strip_suffix(".case.json").map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| fuzz_case(dir, &name))
        .collect()
}

fn fuzz_case(dir: &Path, name: &str) -> Option<FuzzCase> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.case.json"))).ok()?;
    let spec: Json = serde_json::from_str(&text).ok()?;
    let turns = spec
        .get("turns")?
        .as_array()?
        .iter()
        .map(Turn::from_json)
        .collect();
    let golden = dir.join(format!("{name}.jsonl"));
    Some(FuzzCase {
        name: name.to_string(),
        case: Case {
            dsl: dir
                .join(format!("{name}.json"))
                .to_string_lossy()
                .to_string(),
            turns,
            ..Case::default()
        },
        golden: golden.is_file().then_some(golden),
    })
}

/// A case known to differ from RAGFlow, with the class of the difference.
#[derive(Clone, Debug)]
pub struct KnownDifference {
    pub name: String,
    pub class: String,
    pub note: String,
}

/// `tests/fuzz/known-differences.txt`: `NNNN class note…` per line, `#` comments.
pub fn known_differences(path: &Path) -> Vec<KnownDifference> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, char::is_whitespace);
            KnownDifference {
                name: parts.next().unwrap_or("").to_string(),
                class: parts.next().unwrap_or("").to_string(),
                note: parts.next().unwrap_or("").trim().to_string(),
            }
        })
        .collect()
}

/// Runs one case with the program a crate of compiled canvases hands over.
pub struct RunCompiled {
    pub case: Case,
    pub rt: Arc<tokio::runtime::Runtime>,
}

impl ProgramVisitor for RunCompiled {
    type Output = CaseRun;

    fn visit<P: Program>(self, program: Arc<P>) -> CaseRun {
        self.rt
            .block_on(run_case_on(&self.case, |_| Arc::clone(&program)))
    }
}

/// The canvas text a case runs (the DSL as the oracle loads it), which is what the fuzz crate
/// compiles and what its fingerprint is taken of.
pub fn canvas_text(case: &Case) -> String {
    case.load_dsl().to_string()
}

/// `main` of the crate of compiled fuzz canvases: `BINARY DIR [NAME…]` runs each case of `DIR`
/// with its compiled program and prints one JSON line per case:
/// `{"name", "lines", "saved"}`, or `{"name", "missing": true}` when no program has its
/// fingerprint.
pub fn compiled_driver(visit: fn(&str, RunCompiled) -> Option<CaseRun>) -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: BINARY CASES_DIR [NAME...]");
        return std::process::ExitCode::from(2);
    };
    let only = &args[1..];
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => Arc::new(rt),
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for c in fuzz_cases(Path::new(dir)) {
        if !only.is_empty() && !only.contains(&c.name) {
            continue;
        }
        let fp = analyze(&canvas_text(&c.case))
            .map(|a| fingerprint(&a.document))
            .unwrap_or_default();
        let run = visit(
            &fp,
            RunCompiled {
                case: c.case.clone(),
                rt: Arc::clone(&rt),
            },
        );
        let mut line = Map::new();
        line.insert("name".into(), json!(c.name));
        match run {
            Some(run) => {
                line.insert("lines".into(), json!(run.lines));
                line.insert("saved".into(), json!(run.saved));
            }
            None => {
                line.insert("missing".into(), json!(true));
            }
        }
        if writeln!(out, "{}", Json::Object(line)).is_err() {
            return std::process::ExitCode::from(1);
        }
    }
    std::process::ExitCode::SUCCESS
}
