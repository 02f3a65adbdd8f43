//! Shared helpers for the integration tests: where the shared RAGFlow corpus and reference
//! streams are, and how a test says it was not run when they are absent.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The shared folder beside the checkout (`../shared`), or `$CANVASC_SHARED`.
///
/// CI sets `CANVASC_REQUIRE_SHARED=1`: then a missing folder fails the test instead of
/// skipping it. A user's fresh clone has no `../shared`; those tests then say they were not
/// run.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"));
    if dir.join("corpus/ragflow").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CANVASC_REQUIRE_SHARED").is_none(),
        "{test}: the shared corpus is required (CANVASC_REQUIRE_SHARED is set) but {} has no corpus/ragflow",
        dir.display()
    );
    eprintln!(
        "{test}: NOT RUN: no shared corpus at {} (set CANVASC_SHARED to its location)",
        dir.display()
    );
    None
}

/// Every DSL file of the shared RAGFlow corpus, sorted.
pub fn corpus_files(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["dsl_examples", "go_testdata", "templates"] {
        if let Ok(entries) = std::fs::read_dir(shared.join("corpus/ragflow").join(sub)) {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "json") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// The fixture files of this repository under `fixtures/<sub>`, sorted.
pub fn fixture_files(sub: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("fixtures").join(sub))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|x| x == "json"));
    out.sort();
    out
}

/// A path relative to the workspace root, with `/` separators, for stable snapshot names.
pub fn display_path(p: &Path) -> String {
    let root = workspace_root();
    let rel = p.strip_prefix(&root).unwrap_or(p);
    rel.to_string_lossy().replace('\\', "/")
}
