//! Every case of `tests/golden/jinja/expected.json`, rendered by Jinja2 3.1.6 itself
//! (`tests/golden/jinja/regen.py`), must render to the same text here, or fail in the same
//! phase (compile or render) with the same exception class. Messages are compared too; a case
//! whose message differs says so on stderr, but only text, phase and class fail. Each case is
//! its own test (`cargo test -p canvasc-tests --test jinja_goldens -- <case>`).

use canvasc_engine::jinja::{render, RenderError};
use canvasc_tests::harness::Suite;
use canvasc_tests::workspace_root;
use serde_json::Value as Json;
use std::io::Write;
use std::process::ExitCode;

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

/// The cases of `expected.json`. Update when cases are added.
const CASES: usize = 531;

/// Renders one case and compares it with what Jinja2 gave.
fn check(name: &str, case: &Json) -> Result<(), String> {
    let template = case["template"].as_str().unwrap_or_default();
    let kwargs: Vec<(&str, String)> = case["kwargs"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let got = render(template, &kwargs);
    match (&case["result"], &case["error"], got) {
        (Json::String(want), _, Ok(text)) if *want == text => Ok(()),
        (Json::String(want), _, Ok(text)) => Err(format!("{name}: want {want:?}, got {text:?}")),
        (_, Json::Object(err), got) => {
            let phase = err["phase"].as_str().unwrap_or_default();
            let class = err["class"].as_str().unwrap_or_default();
            let message = err["message"].as_str().unwrap_or_default();
            let (got_phase, e) = match got {
                Ok(text) => {
                    return Err(format!(
                        "{name}: want {phase} {class}: {message}, got text {text:?}"
                    ))
                }
                Err(RenderError::Compile(e)) => ("compile", e),
                Err(RenderError::Render(e)) => ("render", e),
            };
            if got_phase != phase || e.class != class {
                return Err(format!(
                    "{name}: want {phase} {class}: {message}, got {got_phase} {}: {}",
                    e.class, e.message
                ));
            }
            if e.message != message {
                // Straight to the process's stderr, so it is seen whether or not libtest
                // captures output.
                let _ = writeln!(
                    std::io::stderr(),
                    "jinja golden: message: {name}: want {message:?}, got {:?}",
                    e.message
                );
            }
            Ok(())
        }
        (_, _, got) => Err(format!("{name}: malformed case, got {got:?}")),
    }
}

fn main() -> ExitCode {
    let path = workspace_root().join("tests/golden/jinja/expected.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: Json = serde_json::from_str(&text).expect("expected.json parses");
    let cases = doc["cases"].as_array().expect("cases");
    let mut suite = Suite::from_args();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let run = {
            let (name, case) = (name.clone(), case.clone());
            move || check(&name, &case)
        };
        match KNOWN_DEVIATIONS.iter().find(|(n, _)| *n == name) {
            Some((_, reason)) => suite.skip(&name, reason, run),
            None => suite.case(&name, run),
        }
    }
    suite.assert_counts(
        "tests/golden/jinja/expected.json",
        CASES,
        KNOWN_DEVIATIONS.len(),
    );
    suite.run()
}
