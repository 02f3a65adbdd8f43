//! Webhook runs against RAGFlow's own (`tests/golden/webhook/`): for every request of
//! `cases.json` that ran its canvas in RAGFlow, the interpreter runs the canvas on the same
//! `webhook_payload` and must give the same events and final state. The HTTP answers of the
//! same cases are the server's tests (`server/tests/http_api/webhooks.rs`). Each case is its
//! own test (`cargo test -p canvasc-tests --test webhook_goldens -- <case>`).

use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{Published, RunInput, RunOutcome, Services};
use canvasc_frontend::analyze;
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{first_difference, normalize, state_json};
use canvasc_tests::workspace_root;
use canvasc_value::{py, Json};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Requests of `expected.json` that ran a canvas; update when the goldens change.
const RUNS: usize = 18;

fn read_json(rel: &str) -> Json {
    let path = workspace_root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(values: &[Json]) -> Vec<String> {
    values
        .iter()
        .map(|v| py::json_dumps(&normalize(v)))
        .collect()
}

/// The part of a final state `regen.py` records: the path, the error and every output.
fn expected_state(state: &Json) -> Json {
    serde_json::json!({"path": state["path"], "error": state["error"], "outputs": state["outputs"]})
}

async fn replay(canvas: &str, result: &Json) -> Result<(), String> {
    let text = std::fs::read_to_string(workspace_root().join(canvas)).map_err(|e| e.to_string())?;
    let analysis = analyze(&text).map_err(|e| e.to_string())?;
    let program = Arc::new(Interpreter::from_analysis(&analysis));
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let session = Published::new(Arc::clone(&program), analysis.document.dsl.clone())
        .session(Services::default(), rng);
    let payload = match &result["webhook_payload"] {
        Json::Object(p) => p.clone(),
        other => {
            return Err(format!(
                "the golden's webhook_payload is not an object: {other}"
            ))
        }
    };
    let input = RunInput {
        query: Some(Json::String(String::new())),
        user_id: Some(Json::String("tenant-1".into())),
        files: Vec::new(),
        inputs: None,
        chat_template_kwargs: None,
        webhook_payload: Some(payload),
    };
    let mut events: Vec<Json> = Vec::new();
    let outcome = session.run(input, &mut events).await;
    let expected_events = result["events"].as_array().cloned().unwrap_or_default();
    if let Some(diff) = first_difference(&lines(&expected_events), &lines(&events)) {
        return Err(format!("events: {diff}"));
    }
    match (&result["run_exception"], &outcome) {
        (Json::Null, RunOutcome::Aborted(e)) => return Err(format!("the run raised: {e}")),
        (Json::Object(raised), RunOutcome::Aborted(e)) if raised["message"] != e.to_string() => {
            return Err(format!(
                "the run raised `{e}`, RAGFlow's raised {}",
                raised["message"]
            ))
        }
        (Json::Object(raised), outcome) if !matches!(outcome, RunOutcome::Aborted(_)) => {
            return Err(format!(
                "RAGFlow's run raised {}, ours ended {outcome:?}",
                raised["message"]
            ))
        }
        _ => {}
    }
    let state = state_json(&session);
    let ours = expected_state(&state);
    let theirs = expected_state(&result["state"]);
    if let Some(diff) = first_difference(&lines(&[theirs]), &lines(&[ours])) {
        return Err(format!("final state: {diff}"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime"),
    );
    let cases = read_json("tests/golden/webhook/cases.json");
    let expected = read_json("tests/golden/webhook/expected.json");
    let mut suite = Suite::from_args();
    let mut runs = 0;
    for case in cases.as_array().cloned().unwrap_or_default() {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let canvas = case["canvas"].as_str().unwrap_or_default().to_string();
        let results = expected["cases"]
            .as_array()
            .and_then(|all| all.iter().find(|c| c["name"] == name.as_str()))
            .and_then(|c| c["results"].as_array().cloned())
            .unwrap_or_else(|| panic!("expected.json has no case {name}"));
        for (i, result) in results.into_iter().enumerate() {
            if result.get("events").is_none() {
                continue;
            }
            runs += 1;
            let test = match i {
                0 => name.clone(),
                _ => format!("{name}#{}", i + 1),
            };
            let (rt, canvas) = (Arc::clone(&rt), canvas.clone());
            suite.case(&test, move || rt.block_on(replay(&canvas, &result)));
        }
    }
    assert_eq!(
        runs, RUNS,
        "tests/golden/webhook/expected.json: runs to replay"
    );
    suite.run()
}
