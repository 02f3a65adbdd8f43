//! The components suite (`harness = false`, libtest-mimic): RAGFlow's behaviour of the pure
//! components, one named test per case, so `cargo test -p canvasc-engine --test components --
//! switch::<case>` runs one and a failure names its case. Every `<component>/<case>.json` holds
//! `{"case": …, "expected": …}`: the canvas a case runs (see [`runner`]) and what RAGFlow's
//! engine reported for it (provenance in `README.md`). The suite checks its number of cases per
//! component before any runs, so a case file that disappears fails it.
//!
//! An integration test rather than the unit tests the cases used to be: the runner needs only
//! the engine's public API, and a test target of its own is what lets each case be a test.

mod by_hand;
mod invoke_server;
mod runner;

use canvasc_engine::Settings;
use canvasc_value::{py, Json, Map};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How a component's cases run, as their expectations were produced.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Default settings; interpreted and bound (as a compiled program binds references), both
    /// compared with the whole report.
    Pure,
    /// Against [`invoke_server::serve`] (`{PORT}` in the parameters), `ALLOW_ANY_HOST` as the
    /// case's `allow_any_host` says, interpreted; the oracle's record of these cases has only
    /// `name`, `inputs`, `outputs`, `error` and `exception`, so only those are compared.
    Invoke,
}

/// Every component directory, its number of cases and how they run. The numbers are the cases
/// the `CASES` strings in `engine/src/components/*.rs` held when they moved here.
const COMPONENTS: [(&str, usize, Mode); 7] = [
    ("data_operations", 19, Mode::Pure),
    ("invoke", 26, Mode::Invoke),
    ("list_operations", 36, Mode::Pure),
    ("string_transform", 20, Mode::Pure),
    ("switch", 30, Mode::Pure),
    ("variable_aggregator", 8, Mode::Pure),
    ("variable_assigner", 32, Mode::Pure),
];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/components");
    let found: Vec<String> = sorted(&root)
        .into_iter()
        .filter(|p| p.is_dir())
        .map(|p| file_name(&p))
        .collect();
    let known: Vec<&str> = COMPONENTS.iter().map(|(c, ..)| *c).collect();
    assert_eq!(
        found,
        known,
        "the component directories under {}",
        root.display()
    );

    let mut trials = Vec::new();
    for (component, count, mode) in COMPONENTS {
        let files: Vec<PathBuf> = sorted(&root.join(component))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        assert_eq!(files.len(), count, "{component}: cases");
        for path in files {
            let (case, expected) = load(&path);
            let name = format!("{component}::{}", case["name"].as_str().unwrap_or_default());
            trials.push(Trial::test(name, move || {
                run(mode, case, &expected).map_err(Failed::from)
            }));
        }
    }
    trials.extend(by_hand::trials());
    libtest_mimic::run(&args, trials).exit_code()
}

/// The entries of `dir`, in name order.
fn sorted(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    paths
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A case file: exactly `case` and `expected`, both named after the file, so a case's test name
/// is its file's and a file cannot pair one case with another's expectation.
fn load(path: &Path) -> (Json, Json) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: Json =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let keys: Vec<&str> = file
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(keys, ["case", "expected"], "{}: keys", path.display());
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    for part in ["case", "expected"] {
        assert_eq!(
            file[part]["name"].as_str(),
            Some(&*stem),
            "{}: {part}.name",
            path.display()
        );
    }
    (file["case"].clone(), file["expected"].clone())
}

/// Runs one case and compares its report with the expectation as Python's `json.dumps` renders
/// both, so key order counts, as it does in RAGFlow's output.
fn run(mode: Mode, mut case: Json, want: &Json) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut failures = Vec::new();
    let mut compare = |label: &str, got: &Json| {
        if py::json_dumps(got) != py::json_dumps(want) {
            failures.push(format!(
                "{label}\n  want: {}\n  got:  {}",
                py::json_dumps(want),
                py::json_dumps(got)
            ));
        }
    };
    match mode {
        Mode::Pure => {
            for bound in [false, true] {
                let got = rt.block_on(runner::run_case(&case, Settings::default(), bound));
                compare(if bound { "bound" } else { "interpreted" }, &got);
            }
        }
        Mode::Invoke => {
            let port = invoke_server::serve();
            case["params"] = invoke_server::with_port(&case["params"], port);
            let settings = Settings {
                allow_any_host: case.get("allow_any_host").is_some_and(py::truthy),
                ..Settings::default()
            };
            let got = rt.block_on(runner::run_case(&case, settings, false));
            let kept: Map<String, Json> = got
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| {
                    ["name", "inputs", "outputs", "error", "exception"].contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            compare("interpreted", &Json::Object(kept));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
