//! Running one case the way its expectation was produced: RAGFlow's engine (the reference
//! oracle) on `begin → X:T`, with `env.*` globals, optional extra components and display
//! names, reporting X:T's `node_finished` (timings dropped) and the final `env.*`. Moved from
//! the engine's unit-test `testkit`; it names only the engine's public API.

use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, RunOutcome, Services, Session, Settings};
use canvasc_value::{Json, Map};
use serde_json::json;
use std::sync::{Arc, Mutex};

fn vtype(v: &Json) -> &'static str {
    match v {
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::Object(_) => "object",
        Json::Array(_) => "array<any>",
        _ => "string",
    }
}

/// The canvas of a case: `{"kind", "params", "env"?, "extra"?, "names"?, "down"?, "query"?}`.
fn dsl_of(case: &Json) -> Json {
    let mut comps = json!({
        "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["X:T"], "upstream": []},
        "X:T": {"obj": {"component_name": case["kind"], "params": case["params"]},
                "downstream": case.get("down").cloned().unwrap_or(json!([])), "upstream": ["begin"]},
        "Dummy:N": {"obj": {"component_name": "VariableAggregator", "params": {
            "groups": [{"group_name": "none", "variables": [{"value": "env.zz"}]}],
            "outputs": {"none": {"value": "x", "type": "string"}}}}, "downstream": [], "upstream": []},
    });
    if let (Some(Json::Object(extra)), Json::Object(c)) = (case.get("extra"), &mut comps) {
        for (k, v) in extra {
            c.insert(k.clone(), v.clone());
        }
    }
    let mut globals = json!({"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0,
        "sys.files": [], "sys.history": []});
    let mut variables = Map::new();
    if let Some(Json::Object(env)) = case.get("env") {
        for (k, v) in env {
            globals[format!("env.{k}")] = v.clone();
            variables.insert(k.clone(), json!({"name": k, "type": vtype(v), "value": v}));
        }
    }
    let nodes: Vec<Json> = case
        .get("names")
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .map(|(id, n)| json!({"id": id, "data": {"name": n}}))
                .collect()
        })
        .unwrap_or_default();
    json!({"components": comps, "globals": globals, "variables": variables,
           "graph": {"nodes": nodes, "edges": []}, "history": [], "path": [], "retrieval": []})
}

/// A case run by the interpreter, reading references by name, or with every reference
/// bound as a compiled program binds it.
pub async fn run_case(case: &Json, settings: Settings, bound: bool) -> Json {
    let dsl = dsl_of(case);
    let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("canvas loads");
    let mut interpreter = Interpreter::from_analysis(&analysis);
    if bound {
        interpreter = interpreter.bound(&analysis.ir);
    }
    let program = Arc::new(interpreter);
    let services = Services {
        settings,
        ..Services::default()
    };
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let map = analysis.document.dsl.clone();
    let session = Session::new(program, map, services, rng, true);
    let input = RunInput {
        query: Some(case.get("query").cloned().unwrap_or(json!(""))),
        user_id: Some(json!("user-ref")),
        inputs: Some(json!({})),
        ..RunInput::default()
    };
    let mut events: Vec<Json> = Vec::new();
    let outcome = session.run(input, &mut events).await;
    let mut res = Map::new();
    res.insert("name".into(), case["name"].clone());
    let finished = events
        .iter()
        .rev()
        .find(|e| e["event"] == "node_finished" && e["data"]["component_id"] == "X:T");
    if let Some(f) = finished {
        let d = &f["data"];
        let mut outs = Map::new();
        if let Some(o) = d["outputs"].as_object() {
            for (k, v) in o {
                if k != "_created_time" && k != "_elapsed_time" {
                    outs.insert(k.clone(), v.clone());
                }
            }
        }
        res.insert("inputs".into(), d["inputs"].clone());
        res.insert("outputs".into(), Json::Object(outs));
        res.insert("error".into(), d["error"].clone());
    }
    if let RunOutcome::Aborted(e) = outcome {
        res.insert(
            "exception".into(),
            json!({"type": e.class(), "message": e.to_string()}),
        );
    }
    let started = events
        .iter()
        .find(|e| e["event"] == "node_started" && e["data"]["component_id"] == "X:T");
    if let Some(st) = started {
        res.insert("thoughts".into(), st["data"]["thoughts"].clone());
    }
    let s = session.shared.state();
    let meta = &session.shared.meta;
    if let Some(dummy) = meta.find("Dummy:N") {
        let outs: Map<String, Json> = s
            .node(dummy)
            .outputs_map()
            .into_iter()
            .map(|(k, v)| (k, v.to_event_json()))
            .collect();
        let outs = Json::Object(outs);
        if outs != json!({"none": null}) {
            res.insert("dummy".into(), outs);
        }
    }
    let env: Map<String, Json> = s
        .globals
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("env.").map(|n| (n.to_string(), v.clone())))
        .collect();
    if Some(&Json::Object(env.clone())) != case.get("env").or(Some(&json!({}))) {
        res.insert("env".into(), Json::Object(env));
    }
    Json::Object(res)
}
