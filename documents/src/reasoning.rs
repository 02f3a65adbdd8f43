//! RAGFlow's `Message._strip_thinking`, which DocGenerator applies to its content before any
//! writer sees it: a reasoning model's `<think>` blocks must not reach an exported document.

use regex::Regex;
use std::sync::OnceLock;

fn patterns() -> &'static [Regex; 4] {
    static P: OnceLock<[Regex; 4]> = OnceLock::new();
    P.get_or_init(|| {
        // Fixed patterns: compiling them cannot fail.
        let re = |p: &str| Regex::new(p).unwrap_or_else(|_| unreachable!("fixed pattern {p}"));
        [
            re(r"(?s)<think>.*?</think>"),
            re(r"(?s)<think>.*$"),
            re(r"</?think>"),
            re(r"\n{3,}"),
        ]
    })
}

/// Complete `<think>…</think>` blocks removed, then an unclosed `<think>` and all after it,
/// then stray tags; runs of three or more newlines become two; the result stripped.
pub fn strip_thinking(content: &str) -> String {
    if content.is_empty() {
        return String::new();
    }
    let [blocks, unclosed, tags, newlines] = patterns();
    let cleaned = blocks.replace_all(content, "");
    let cleaned = unclosed.replace_all(&cleaned, "");
    let cleaned = tags.replace_all(&cleaned, "");
    let cleaned = newlines.replace_all(&cleaned, "\n\n");
    canvasc_value::py::strip(&cleaned).to_string()
}

#[cfg(test)]
mod tests {
    /// Every text of `tests/golden/strip_thinking.json` as RAGFlow's own `_strip_thinking`
    /// left it (`tests/golden/filenames.py`).
    #[test]
    fn strips_as_ragflow() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/strip_thinking.json"
        );
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_default())
                .unwrap_or_default();
        assert!(cases.len() >= 5, "{path} is missing");
        for case in cases {
            let content = case["content"].as_str().unwrap_or_default();
            assert_eq!(
                super::strip_thinking(content),
                case["stripped"].as_str().unwrap_or_default(),
                "{content:?}"
            );
        }
    }
}
