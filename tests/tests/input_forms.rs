//! Component input forms against RAGFlow's own (`tests/golden/input_forms/`): for every
//! component of every canvas `regen.py` asked RAGFlow about (and one id no canvas has), the
//! answer of `GET /agents/{id}/components/{cid}/input-form` as RAGFlow's API gives it: the
//! form, the exception RAGFlow raises building the canvas (`construct.rs`), or the one its
//! `get_input_form` raises (`input_form.rs`). Each answer is its own test
//! (`cargo test -p canvasc-tests --test input_forms -- <canvas>/<component>`); the server's
//! endpoint answers with the same functions (`server/tests/http_api/endpoints.rs`).

use canvasc_frontend::input_form::input_form;
use canvasc_tests::harness::Suite;
use canvasc_tests::{shared_dir, workspace_root};
use serde_json::{json, Value};
use std::process::ExitCode;

/// Answers in `expected.json`; update when the goldens change.
const ANSWERS: usize = 440;

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The answer canvasc's endpoint gives for `cid` of `dsl`.
fn answer(dsl: &Value, cid: &str) -> Value {
    match input_form(dsl, cid) {
        Ok(form) => json!({"code": 0, "message": "success", "data": form}),
        Err(repr) => json!({"code": 100, "message": repr, "data": null}),
    }
}

/// As `regen.py` asks RAGFlow: an empty `llm_id` names the tenant's default model (canvasc's
/// decision, `construct.rs`), written out so RAGFlow's check passes.
fn default_models(dsl: &mut Value) {
    fn fill(params: Option<&mut Value>) {
        let Some(Value::Object(params)) = params else {
            return;
        };
        if params.get("llm_id").is_some_and(|id| id == "") {
            params.insert("llm_id".into(), json!("default"));
        }
        if let Some(Value::Array(tools)) = params.get_mut("tools") {
            for tool in tools {
                fill(tool.get_mut("params"));
            }
        }
    }
    let components = dsl.get_mut("components").and_then(Value::as_object_mut);
    for component in components.into_iter().flat_map(|c| c.values_mut()) {
        fill(component.pointer_mut("/obj/params"));
    }
}

fn main() -> ExitCode {
    let mut suite = Suite::from_args();
    let Some(shared) = shared_dir("input_forms") else {
        suite.not_run("input_forms", "no shared corpus");
        return suite.run();
    };
    let expected = read_json(&workspace_root().join("tests/golden/input_forms/expected.json"));
    let mut answers = 0;
    for (rel, by_component) in expected.as_object().cloned().unwrap_or_default() {
        let path = match rel.strip_prefix("corpus/") {
            Some(_) => shared.join(&rel),
            None => workspace_root().join(&rel),
        };
        let doc = read_json(&path);
        // A template file holds its DSL under `dsl` (as `regen.py` reads it).
        let mut dsl = match doc.get("components") {
            Some(_) => doc,
            None => doc.get("dsl").cloned().unwrap_or(doc),
        };
        default_models(&mut dsl);
        let stem = rel.trim_end_matches(".json").to_string();
        for (cid, theirs) in by_component.as_object().cloned().unwrap_or_default() {
            answers += 1;
            let dsl = dsl.clone();
            suite.case(&format!("{stem}/{cid}"), move || {
                let ours = answer(&dsl, &cid);
                if ours == theirs {
                    Ok(())
                } else {
                    Err(format!("RAGFlow answers {theirs}\ncanvasc answers {ours}"))
                }
            });
        }
    }
    assert_eq!(
        answers, ANSWERS,
        "tests/golden/input_forms/expected.json: answers"
    );
    suite.run()
}
