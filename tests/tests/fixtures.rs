//! Snapshot tests of the checker on the project's own fixtures: rendered (rustc style) and JSON
//! diagnostics for every broken fixture, and no errors on any valid one. Each fixture is its
//! own test (`cargo test -p canvasc-tests --test fixtures -- <file>`).

use canvasc_frontend::{analyze, Code, Severity};
use canvasc_tests::harness::Suite;
use canvasc_tests::{display_path, fixture_files};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn has_no_errors(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).expect("readable");
    let analysis = analyze(&text).expect("a canvas");
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {errors:#?}", display_path(path)))
    }
}

/// The fixture reports the code its file name starts with; its rendered and JSON diagnostics
/// are snapshots.
fn snapshot_broken(path: &Path) {
    let name = display_path(path);
    let text = std::fs::read_to_string(path).expect("readable");
    let analysis = analyze(&text).expect("a canvas");
    assert!(
        !analysis.diagnostics.is_empty(),
        "{name}: a broken fixture must report something"
    );
    // The file name starts with the code it was written to trigger.
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let intended = Code::ALL
        .iter()
        .copied()
        .filter(|c| stem.starts_with(c.as_str()))
        .max_by_key(|c| c.as_str().len())
        .unwrap_or_else(|| panic!("{name}: name it after the code it triggers"));
    assert!(
        analysis.diagnostics.iter().any(|d| d.code == intended),
        "{name}: expected a `{intended}` diagnostic, got {:#?}",
        analysis.diagnostics
    );
    let rendered = canvasc::report::human(&name, &text, &analysis.diagnostics, false);
    let json = canvasc::report::json(&[(name.clone(), analysis.diagnostics.clone())]);
    insta::with_settings!({snapshot_suffix => stem.clone(), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("rendered", rendered);
        insta::assert_snapshot!("json", json);
    });
}

/// Every diagnostic code is triggered by some broken fixture.
fn every_code_is_triggered(files: &[PathBuf]) -> Result<(), String> {
    let mut codes = BTreeSet::new();
    for path in files {
        let text = std::fs::read_to_string(path).expect("readable");
        let analysis = analyze(&text).expect("a canvas");
        codes.extend(analysis.diagnostics.iter().map(|d| d.code));
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !codes.contains(c))
        .map(|c| c.as_str())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("no broken fixture triggers {missing:?}"))
    }
}

/// What RAGFlow's engine raised building these fixtures (`tests/golden/README.md`, "Fixtures
/// without a golden": the reference oracle's `_exception` lines): the construction error
/// canvasc derives must be the same exception, and the checker must report an error there.
const CONSTRUCTION_ERRORS: &[(&str, &str, &str)] = &[
    ("broken/legacy-kind-generate.json", "AssertionError", "Can't import GenerateParam"),
    ("broken/unknown-kind-misspelt-message.json", "AssertionError", "Can't import MesageParam"),
    ("broken/unknown-kind-bing-tool.json", "AssertionError", "Can't import BingParam"),
    ("broken/unsupported-kind-answer-node.json", "AssertionError", "Can't import AnswerParam"),
    (
        "broken/structural-param-switch-without-else.json",
        "ValueError",
        "Confirm: [Switch] the ELSE/Other destination can not be empty. does not support empty value.",
    ),
    (
        "broken/structural-param-categorize-empty-to.json",
        "ValueError",
        "Intent: [Categorize] 'To' of category other can not be empty!",
    ),
    (
        "broken/structural-param-llm-temperature-and-empty-message.json",
        "ValueError",
        "Answer: [Agent] Temperature 1.5 not supported, should be a float number in range [0, 1]",
    ),
    (
        "broken/structural-graph-categorize-unknown-handle.json",
        "ValueError",
        "Ticket type: [Categorize] 'To' of category technical can not be empty!",
    ),
];

fn raises_at_construction(path: &Path, class: &str, message: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).expect("readable");
    let analysis = analyze(&text).expect("a canvas");
    let got = canvasc_frontend::construct::construction_error(&analysis.document)
        .map(|e| (e.class.to_string(), e.message));
    if got != Some((class.to_string(), message.to_string())) {
        return Err(format!(
            "{}: RAGFlow raises {class}: {message}; canvasc derives {got:?}",
            display_path(path)
        ));
    }
    if !analysis.has_errors() {
        return Err(format!(
            "{}: RAGFlow cannot build it, so the checker must report an error",
            display_path(path)
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut suite = Suite::from_args();
    let valid = fixture_files("valid");
    assert!(
        valid.len() >= 20,
        "expected the valid fixtures, found {}",
        valid.len()
    );
    for path in valid {
        suite.case(&display_path(&path), move || has_no_errors(&path));
    }
    let broken = fixture_files("broken");
    assert!(
        broken.len() >= 14,
        "expected the broken fixtures, found {}",
        broken.len()
    );
    for path in broken.clone() {
        suite.case(&display_path(&path), move || {
            snapshot_broken(&path);
            Ok(())
        });
    }
    for (file, class, message) in CONSTRUCTION_ERRORS {
        let path = canvasc_tests::workspace_root().join("fixtures").join(file);
        suite.case(&format!("construction_error {file}"), move || {
            raises_at_construction(&path, class, message)
        });
    }
    suite.case("valid_fixtures_build_in_ragflow", || {
        let unbuildable: Vec<String> = fixture_files("valid")
            .iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(path).expect("readable");
                let analysis = analyze(&text).expect("a canvas");
                canvasc_frontend::construct::construction_error(&analysis.document)
                    .map(|e| format!("{}: {}: {}", display_path(path), e.class, e.message))
            })
            .collect();
        if unbuildable.is_empty() {
            Ok(())
        } else {
            Err(unbuildable.join("\n"))
        }
    });
    // Webhook canvases read the request through Begin's `query`, `headers` and `body`
    // (`failing.json` refers to a missing component on purpose: its run fails in RAGFlow).
    for path in fixture_files("webhook") {
        if !path.ends_with("failing.json") {
            suite.case(&display_path(&path), move || has_no_errors(&path));
        }
    }
    suite.case("webhook_outputs_are_begins_only_in_webhook_mode", || {
        let path = canvasc_tests::workspace_root().join("fixtures/webhook/json-streaming.json");
        let text = std::fs::read_to_string(&path).expect("readable");
        let conversational = text.replace("\"mode\": \"Webhook\"", "\"mode\": \"conversational\"");
        if conversational == text {
            return Err("the fixture's Begin is not in Webhook mode".into());
        }
        let analysis = analyze(&conversational).expect("a canvas");
        let unknown = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::UnknownOutput && d.message.contains("has no output `body`"))
            .count();
        match unknown {
            0 => Err(format!(
                "no unknown-output for `body`: {:#?}",
                analysis.diagnostics
            )),
            _ => Ok(()),
        }
    });
    suite.case("broken_fixtures_trigger_every_code", move || {
        every_code_is_triggered(&broken)
    });
    suite.run()
}
