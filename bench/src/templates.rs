//! The corpus templates the benches run: `../shared/corpus/ragflow/templates/` (or
//! `$CANVASC_SHARED`), less those RAGFlow refuses to release.

use std::path::{Path, PathBuf};

/// Corpus templates RAGFlow's checks refuse to release (a Bing tool, an empty API key).
const UNRELEASABLE: &[&str] = &["text2sql_data_expert.json", "web_search_assistant.json"];

/// `named` when given, else every releasable corpus template, sorted.
pub fn releasable(named: &[String]) -> Result<Vec<PathBuf>, String> {
    if !named.is_empty() {
        return Ok(named.iter().map(PathBuf::from).collect());
    }
    let shared = std::env::var("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let dir = shared.join("corpus/ragflow/templates");
    let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            !UNRELEASABLE.contains(&name)
        })
        .collect();
    all.sort();
    Ok(all)
}

/// A template file's canvas DSL (a template wraps it in `dsl`) and its name.
pub fn read(path: &Path) -> Result<(String, serde_json::Value), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let template: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let dsl = template.get("dsl").cloned().unwrap_or(template);
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
    Ok((name.to_string(), dsl))
}
