//! Every case of `tests/golden/jinja/expected.json`, rendered by Jinja2 3.1.6 itself
//! (`tests/golden/jinja/regen.py`), must render to the same text here, or fail in the same
//! phase (compile or render) with the same exception class. Messages are compared too; the
//! cases whose message differs are listed (and counted) but only text, phase and class fail.

use super::{render, RenderError};
use serde_json::Value as Json;

/// Cases where canvasc knowingly differs from Jinja2, and why.
const KNOWN_DEVIATIONS: &[(&str, &str)] = &[
    (
        "b2_int_overflow",
        "Python ints are unbounded; canvasc's are 64-bit and raise OverflowError (the template then falls back to its text)",
    ),
    (
        "b2_wordwrap_hyphen",
        "wordwrap does not break on hyphens (textwrap's break_on_hyphens is not reproduced)",
    ),
];

const EXPECTED: &str = include_str!("../../../../tests/golden/jinja/expected.json");

#[test]
fn jinja_golden_cases() {
    let doc: Json = serde_json::from_str(EXPECTED).expect("expected.json parses");
    let cases = doc["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    let mut message_diffs = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        if KNOWN_DEVIATIONS.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let template = case["template"].as_str().unwrap_or_default();
        let kwargs: Vec<(String, String)> = case["kwargs"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let borrowed: Vec<(&str, String)> = kwargs
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        let got = render(template, &borrowed);
        match (&case["result"], &case["error"], got) {
            (Json::String(want), _, Ok(text)) => {
                if *want != text {
                    failures.push(format!("{name}: want {want:?}, got {text:?}"));
                }
            }
            (_, Json::Object(err), got) => {
                let phase = err["phase"].as_str().unwrap_or_default();
                let class = err["class"].as_str().unwrap_or_default();
                let message = err["message"].as_str().unwrap_or_default();
                let (got_phase, e) = match got {
                    Ok(text) => {
                        failures.push(format!(
                            "{name}: want {phase} {class}: {message}, got text {text:?}"
                        ));
                        continue;
                    }
                    Err(RenderError::Compile(e)) => ("compile", e),
                    Err(RenderError::Render(e)) => ("render", e),
                };
                if got_phase != phase || e.class != class {
                    failures.push(format!(
                        "{name}: want {phase} {class}: {message}, got {got_phase} {}: {}",
                        e.class, e.message
                    ));
                } else if e.message != message {
                    message_diffs.push(format!("{name}: want {message:?}, got {:?}", e.message));
                }
            }
            (_, _, got) => failures.push(format!("{name}: malformed case, got {got:?}")),
        }
    }
    eprintln!(
        "jinja golden: {} cases ({} known deviations skipped), {} failing, {} with a different message",
        cases.len(),
        KNOWN_DEVIATIONS.len(),
        failures.len(),
        message_diffs.len()
    );
    for d in &message_diffs {
        eprintln!("  message: {d}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
