//! The files `canvasc dataset add` indexes, read as text: plain text and Markdown as they are,
//! HTML as its Markdown rendering (`crate::html`, blocks on lines of their own), PDF as the
//! text of its pages (lopdf, already in the workspace through printpdf).

use std::path::{Path, PathBuf};

/// One document of a dataset.
#[derive(Debug)]
pub struct Document {
    /// The file name (`docnm_kwd`).
    pub name: String,
    pub path: PathBuf,
    pub text: String,
}

/// What a file is, by its extension.
fn kind(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "text" => "text",
        "md" | "markdown" | "mdx" => "markdown",
        "html" | "htm" | "xhtml" => "html",
        "pdf" => "pdf",
        _ => return None,
    })
}

/// Every file under `paths` that can be indexed, in name order within each folder. A file
/// named directly that is of no known type is an error; inside a folder it is skipped (and
/// reported in `skipped`).
pub fn collect(paths: &[PathBuf], skipped: &mut Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if meta.is_dir() {
            walk(path, &mut out, skipped)?;
        } else if kind(path).is_some() {
            out.push(path.clone());
        } else {
            return Err(format!(
                "{}: not a text, Markdown, HTML or PDF file (by its extension)",
                path.display()
            ));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, skipped: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out, skipped)?;
        } else if kind(&path).is_some() {
            out.push(path);
        } else {
            skipped.push(path);
        }
    }
    Ok(())
}

/// The text of one file.
pub fn read(path: &Path) -> Result<Document, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = match kind(path) {
        Some("pdf") => pdf_text(&bytes).map_err(|e| format!("{}: {e}", path.display()))?,
        Some("html") => crate::html::markdown(&String::from_utf8_lossy(&bytes)),
        _ => String::from_utf8_lossy(&bytes).into_owned(),
    };
    Ok(Document {
        name,
        path: path.to_path_buf(),
        text,
    })
}

/// The text of every page, pages separated by a line break.
fn pdf_text(bytes: &[u8]) -> Result<String, String> {
    let doc = lopdf::Document::load_mem(bytes).map_err(|e| format!("not a readable PDF: {e}"))?;
    let mut pages = Vec::new();
    for number in doc.get_pages().keys() {
        // A page whose text cannot be decoded (an unusual font encoding) is left out rather
        // than failing the whole document.
        if let Ok(text) = doc.extract_text(&[*number]) {
            pages.push(text);
        }
    }
    Ok(pages.join("\n"))
}
