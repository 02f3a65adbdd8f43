//! Every diagnostic renders on any input: one-line documents of up to 1 MB, with multi-byte
//! and wide characters before, inside and after the span, through every renderer (human with
//! and without colour, JSON, and the `compile_error!` text of the `canvas!` macro). miette's
//! padding panicked past column 65,535; a panic here fails the property.

use canvasc::{plain, report};
use canvasc_frontend::{analyze, Code, Diagnostic};
use proptest::prelude::*;

/// Pieces the long text is built from: ASCII, JSON escapes, two- to four-byte UTF-8, East Asian
/// wide characters, a combining mark, a tab and an emoji with a variation selector.
const PIECES: &[&str] = &[
    "a",
    " ",
    "\\\"",
    "\\n",
    "é",
    "ß",
    "中",
    "文",
    "ｗ",
    "e\u{301}",
    "\t",
    "😀",
    "❤\u{fe0f}",
    "{",
    "}",
];

/// A text of about `bytes` bytes made of `unit` repeated (building 1 MB character by
/// character would make each case slow).
fn long_text(unit: &[usize], bytes: usize) -> String {
    let unit: String = unit.iter().map(|&i| PIECES[i % PIECES.len()]).collect();
    let unit = if unit.is_empty() {
        "x".to_string()
    } else {
        unit
    };
    unit.repeat(bytes / unit.len() + 1)
}

/// A one-line canvas whose Message names a missing component between `before` and `after`.
fn one_line_canvas(before: &str, after: &str) -> String {
    let content = format!("{before}{{Agent:Gone@content}}{after}");
    let canvas = serde_json::json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["Message:Reply"], "upstream": []},
            "Message:Reply": {"obj": {"component_name": "Message", "params": {"content": [content]}},
                              "downstream": [], "upstream": ["begin"]}
        },
        "history": [], "path": [], "retrieval": []
    });
    // `to_string` writes one line and keeps non-ASCII characters as they are; the pieces'
    // backslashes come out escaped, so raw and decoded offsets differ as well.
    serde_json::to_string(&canvas).unwrap_or_default()
}

fn render_everywhere(file: &str, text: &str, diags: &[Diagnostic]) {
    for color in [false, true] {
        let human = report::human(file, text, diags, color);
        assert!(
            human.len() < 64 * 1024 * diags.len().max(1),
            "the report shows an excerpt"
        );
    }
    let json = report::json(&[(file.to_string(), diags.to_vec())]);
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    let source: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    for d in diags {
        let message = plain::diagnostic(file, d, &source);
        let tokens = quote::quote!(compile_error!(#message));
        assert!(tokens.to_string().starts_with("compile_error !"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// The checker's own diagnostics on a long one-line canvas.
    #[test]
    fn checker_diagnostics_render_on_long_lines(
        unit in proptest::collection::vec(0..PIECES.len(), 0..8),
        before in 0usize..1_000_000,
        after in 0usize..200_000,
    ) {
        let text = one_line_canvas(&long_text(&unit, before), &long_text(&unit, after));
        let diags = analyze(&text).map(|a| a.diagnostics).unwrap_or_default();
        prop_assert!(diags.iter().any(|d| d.code == Code::UnknownComponent));
        render_everywhere("one-line.json", &text, &diags);
    }

    /// Diagnostics with any pointer and span, valid or not for the document.
    #[test]
    fn any_span_renders(
        unit in proptest::collection::vec(0..PIECES.len(), 1..8),
        before in 0usize..300_000,
        pointer in prop_oneof![
            Just(String::new()),
            Just("/components/Message:Reply/obj/params/content/0".to_string()),
            Just("/components/Message:Reply/obj/params".to_string()),
            "(/[a-zA-Z:0-9é中]{0,6}){0,5}",
        ],
        span in proptest::option::of((0usize..2_000_000, 0usize..2_000_000)),
    ) {
        let text = one_line_canvas(&long_text(&unit, before), "");
        let mut d = Diagnostic::new(Code::Structural, long_text(&unit, 300))
            .component("Message:Reply")
            .at(pointer)
            .help(long_text(&unit, 200));
        d.span = span;
        render_everywhere("any-span.json", &text, &[d]);
    }
}
