//! Snapshot tests of the checker on the project's own fixtures: rendered (rustc style) and JSON
//! diagnostics for every broken fixture, and no errors on any valid one.

use canvasc_runtime::frontend::{analyze, Code, Severity};
use canvasc_tests::{display_path, fixture_files};
use std::collections::BTreeSet;

#[test]
fn valid_fixtures_have_no_errors() {
    let files = fixture_files("valid");
    assert!(
        files.len() >= 20,
        "expected the valid fixtures, found {}",
        files.len()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let analysis = analyze(&text).expect("a canvas");
        let errors: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", display_path(&path));
    }
}

#[test]
fn broken_fixtures_snapshot_rendered_and_json() {
    let files = fixture_files("broken");
    assert!(
        files.len() >= 14,
        "expected the broken fixtures, found {}",
        files.len()
    );
    let mut codes = BTreeSet::new();
    for path in files {
        let name = display_path(&path);
        let text = std::fs::read_to_string(&path).expect("readable");
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
        codes.extend(analysis.diagnostics.iter().map(|d| d.code));
        let rendered = canvasc::report::human(&name, &text, &analysis.diagnostics, false);
        let json = canvasc::report::json(&[(name.clone(), analysis.diagnostics.clone())]);
        insta::with_settings!({snapshot_suffix => stem.clone(), prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!("rendered", rendered);
            insta::assert_snapshot!("json", json);
        });
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !codes.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(missing.is_empty(), "no broken fixture triggers {missing:?}");
}
