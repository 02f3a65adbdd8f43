//! File names of generated documents, as RAGFlow's `sanitize_filename` and
//! `_build_output_filename` make them.

/// RAGFlow's `sanitize_filename(name, extension)`: path, control and shell characters become
/// spaces, runs of whitespace one space, spaces and dots trimmed from both ends, the existing
/// extension dropped, the base cut to 180 characters (then trailing spaces), `file` when
/// nothing is left.
pub fn sanitize(name: &str, extension: &str) -> String {
    let name = py_strip(name);
    let replaced: String = name
        .chars()
        .map(|c| {
            if matches!(
                c,
                '\\' | '/' | '?' | '#' | '%' | '*' | ':' | '|' | '<' | '>' | '"'
            ) || (c as u32) < 0x20
            {
                ' '
            } else {
                c
            }
        })
        .collect();
    let collapsed = collapse_whitespace(&replaced);
    let trimmed = collapsed.trim_matches([' ', '.']);
    if trimmed.is_empty() {
        return format!("file.{extension}");
    }
    let base = splitext_base(trimmed);
    let base: String = base.chars().take(180).collect();
    let base = base.trim_end_matches(py_is_space);
    let base = if base.is_empty() { "file" } else { base };
    format!("{base}.{extension}")
}

/// `document_<YYYYmmdd_HHMMSS>_<8 hex>.<ext>`: the name when no `filename` is given.
pub fn default_name(now: chrono::NaiveDateTime, extension: &str) -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!(
        "document_{}_{}.{extension}",
        now.format("%Y%m%d_%H%M%S"),
        &hex[..8]
    )
}

fn py_is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

fn py_strip(s: &str) -> &str {
    s.trim_matches(py_is_space)
}

/// `re.sub(r"\s+", " ", s)` (Python's `\s` on str: Unicode whitespace).
fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if py_is_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// `os.path.splitext(name)[0]`: the extension starts at the last dot, unless the name is
/// only dots before it (a leading dot starts no extension).
fn splitext_base(name: &str) -> &str {
    let Some(dot) = name.rfind('.') else {
        return name;
    };
    if name[..dot].chars().all(|c| c == '.') {
        return name;
    }
    &name[..dot]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of `tests/golden/filenames.json` as RAGFlow's own `sanitize_filename` made it
    /// (`tests/golden/filenames.py`).
    #[test]
    fn sanitises_as_ragflow() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/filenames.json");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
        assert!(cases.len() >= 10, "{path} is missing");
        for case in cases {
            let name = case["name"].as_str().unwrap_or_default();
            let ext = case["extension"].as_str().unwrap_or_default();
            assert_eq!(
                sanitize(name, ext),
                case["sanitized"].as_str().unwrap_or_default(),
                "{name:?}"
            );
        }
    }

    #[test]
    fn default_names_carry_time_and_hex() {
        let now = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
            .and_then(|d| d.and_hms_opt(3, 4, 5))
            .unwrap_or_default();
        let name = default_name(now, "pdf");
        assert!(name.starts_with("document_20260102_030405_"), "{name}");
        assert_eq!(name.len(), "document_20260102_030405_".len() + 8 + 4);
    }
}
