//! Component implementations, one file per component. Each takes its typed parameters
//! ([`Spec`]) and a [`NodeCx`]; the interpreter and generated programs call them alike.

pub mod begin;
pub mod data_operations;
mod html_text;
pub mod invoke;
pub mod iteration;
pub mod list_operations;
pub mod loop_;
pub mod message;
pub mod py_json;
pub mod string_transform;
pub mod switch;
pub mod userfillup;
pub mod variable_aggregator;
pub mod variable_assigner;

use super::render::{element_str, elements_from_text, elements_of, in_iteration, string_format};
use super::{NodeCx, RunError};
use crate::frontend::catalog::Kind;
use crate::frontend::ir::{Ir, Node};
use crate::frontend::refs::template_refs;
use crate::value::{py, Json, Map, Val};

/// A node's parameters, typed for its component.
#[derive(Clone, Debug)]
pub enum Spec {
    Begin,
    UserFillUp(userfillup::Spec),
    Message(message::Spec),
    Iteration(iteration::Spec),
    IterationItem,
    Loop(loop_::Spec),
    LoopItem,
    ExitLoop,
    Switch(switch::Spec),
    VariableAggregator(variable_aggregator::Spec),
    VariableAssigner(variable_assigner::Spec),
    StringTransform(string_transform::Spec),
    ListOperations(Box<list_operations::Spec>),
    DataOperations(Box<data_operations::Spec>),
    Invoke(Box<invoke::Spec>),
    /// A kind this build cannot run yet; running it fails with a clear error.
    Unsupported(Kind),
}

impl Spec {
    /// Type a node's parameters.
    pub fn build(node: &Node, ir: &Ir) -> Spec {
        let _ = ir;
        let p = &node.params;
        match node.kind {
            Kind::Begin => Spec::Begin,
            Kind::UserFillUp => Spec::UserFillUp(userfillup::Spec::from_params(p)),
            Kind::Message => Spec::Message(message::Spec::from_params(p)),
            Kind::Iteration => Spec::Iteration(iteration::Spec::from_params(p)),
            Kind::IterationItem => Spec::IterationItem,
            Kind::Loop => Spec::Loop(loop_::Spec::from_params(p)),
            Kind::LoopItem => Spec::LoopItem,
            Kind::ExitLoop => Spec::ExitLoop,
            Kind::Switch => Spec::Switch(switch::Spec::from_params(p)),
            Kind::VariableAggregator => {
                Spec::VariableAggregator(variable_aggregator::Spec::from_params(p))
            }
            Kind::VariableAssigner => {
                Spec::VariableAssigner(variable_assigner::Spec::from_params(p))
            }
            Kind::StringTransform => Spec::StringTransform(string_transform::Spec::from_params(p)),
            Kind::ListOperations => {
                Spec::ListOperations(Box::new(list_operations::Spec::from_params(p)))
            }
            Kind::DataOperations => {
                Spec::DataOperations(Box::new(data_operations::Spec::from_params(p)))
            }
            Kind::Invoke => Spec::Invoke(Box::new(invoke::Spec::from_params(p))),
            other => Spec::Unsupported(other),
        }
    }

    pub async fn body(&self, cx: &NodeCx<'_>) -> Result<(), RunError> {
        match self {
            Spec::Begin => begin::body(cx).await,
            Spec::UserFillUp(s) => userfillup::body(s, cx).await,
            Spec::Message(s) => message::body(s, cx).await,
            Spec::Iteration(s) => iteration::body(s, cx),
            Spec::IterationItem => iteration::item_body(cx),
            Spec::Loop(s) => loop_::body(s, cx),
            Spec::LoopItem => loop_::item_body(cx),
            Spec::ExitLoop => Ok(()),
            Spec::Switch(s) => switch::body(s, cx),
            Spec::VariableAggregator(s) => variable_aggregator::body(s, cx),
            Spec::VariableAssigner(s) => variable_assigner::body(s, cx).await,
            Spec::StringTransform(s) => string_transform::body(s, cx).await,
            Spec::ListOperations(s) => list_operations::body(s, cx),
            Spec::DataOperations(s) => data_operations::body(s, cx).await,
            Spec::Invoke(s) => invoke::body(s, cx).await,
            Spec::Unsupported(kind) => Err(RunError::msg(format!(
                "canvasc cannot run {kind} components yet (component `{}`)",
                cx.meta().id
            ))),
        }
    }

    pub fn thoughts(&self, cx: &NodeCx<'_>) -> Result<String, RunError> {
        Ok(match self {
            Spec::Begin | Spec::Message(_) | Spec::ExitLoop => String::new(),
            Spec::UserFillUp(_) => "Waiting for your input...".into(),
            Spec::Iteration(s) => iteration::thoughts(s, cx)?,
            Spec::IterationItem | Spec::LoopItem => "Next turn...".into(),
            Spec::Loop(_) => "Loop from canvas.".into(),
            Spec::Switch(_) => {
                "I’m weighing a few options and will pick the next step shortly.".into()
            }
            Spec::VariableAggregator(_) => {
                "Aggregating variables from canvas and grouping as configured.".into()
            }
            Spec::VariableAssigner(_) => "Assign variables from canvas.".into(),
            Spec::StringTransform(s) => string_transform::thoughts(s),
            Spec::ListOperations(_) => "ListOperation in progress".into(),
            Spec::DataOperations(_) => "DataOperation in progress".into(),
            Spec::Invoke(_) => "Waiting for the server respond...".into(),
            Spec::Unsupported(kind) => default_thoughts(*kind, cx),
        })
    }

    /// `_cpn_id`s of the input elements (only text-driven components have any).
    pub fn input_dependencies(&self, cx: &NodeCx<'_>) -> Result<Vec<String>, RunError> {
        match self {
            Spec::Message(s) => Ok(elements_of(cx, &s.elements)?
                .into_iter()
                .map(|e| e.cpn_id)
                .collect()),
            Spec::StringTransform(s) => Ok(elements_of(cx, &s.script)?
                .into_iter()
                .map(|e| e.cpn_id)
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    pub fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        match self {
            // Text-driven components' elements are expressions, never params: `{}`.
            Spec::Message(_) | Spec::StringTransform(_) => Ok(Map::new()),
            _ => generic_get_input(cx),
        }
    }

    pub fn input_values(&self, cx: &NodeCx<'_>) -> Json {
        match self {
            Spec::Message(s) => input_values_for(cx, s.elements.keys(in_iteration(cx))),
            Spec::StringTransform(s) => input_values_for(cx, string_transform::element_keys(s, cx)),
            _ => {
                let keys: Vec<String> = cx.state().node(cx.node).inputs.keys().cloned().collect();
                input_values_for(cx, keys)
            }
        }
    }

    pub fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        match self {
            Spec::IterationItem => Ok(cx.state().node(cx.node).counter == -1),
            Spec::LoopItem => loop_::item_ended(cx),
            _ => Ok(false),
        }
    }
}

/// `get_input_values()`: `{var: get_input_value(var)}` over the element keys, deduplicated.
fn input_values_for(cx: &NodeCx<'_>, keys: Vec<String>) -> Json {
    let s = cx.state();
    let st = s.node(cx.node);
    let mut m = Map::new();
    for k in keys {
        if !m.contains_key(&k) {
            m.insert(k.clone(), st.get_input_value(&k));
        }
    }
    Json::Object(m)
}

/// Tools' default `thoughts()`: `<display name> is running...`.
fn default_thoughts(kind: Kind, cx: &NodeCx<'_>) -> String {
    if kind.is_tool() {
        format!("{} is running...", cx.meta().display_name)
    } else {
        String::new()
    }
}

/// `ComponentBase.get_input()` over the param `inputs` table: each element's param value is
/// resolved when it names a global or component, string-formatted when it contains references,
/// and used literally otherwise.
pub fn generic_get_input(cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
    let keys: Vec<String> = cx.state().node(cx.node).inputs.keys().cloned().collect();
    let mut res = Map::new();
    for var in keys {
        let Some(v) = cx.param(&var).cloned() else {
            continue;
        };
        if v.is_null() {
            continue;
        }
        let value = match &v {
            Json::String(s) if is_reff(cx, s) => match cx.value(s)? {
                Val::Json(j) => j,
                // A stream passed to a tool is read as its text (what the body would consume).
                Val::Stream(_) => Json::Null,
            },
            Json::String(s) if !template_refs(s).is_empty() => {
                let elements = elements_from_text(cx, s)?;
                let kv: Vec<(String, Json)> = elements
                    .iter()
                    .map(|e| (e.exp.clone(), element_str(&e.value)))
                    .collect();
                Json::String(string_format(s, &kv))
            }
            other => other.clone(),
        };
        cx.set_input_value(&var, value.clone());
        res.insert(var, value);
    }
    Ok(res)
}

/// `Canvas.is_reff(exp)`.
pub fn is_reff(cx: &NodeCx<'_>, exp: &str) -> bool {
    let exp = exp.trim_matches('{').trim_matches('}');
    match exp.split_once('@') {
        None => cx.state().globals.contains_key(exp),
        Some((cpn, rest)) => !rest.contains('@') && cx.shared.meta.find(cpn).is_some(),
    }
}

/// Python truthiness of a value read from state (an unconsumed stream is a truthy object).
pub fn truthy(v: &Val) -> bool {
    match v {
        Val::Json(j) => py::truthy(j),
        Val::Stream(_) => true,
    }
}

/// A resolved value as plain JSON: an unconsumed stream has no JSON form and reads as `None`
/// where a component only records or inspects it.
pub fn json_of(v: Val) -> Json {
    match v {
        Val::Json(j) => j,
        Val::Stream(_) => Json::Null,
    }
}

/// The expression a parameter names, for `get_variable_value(v)`: Python strips it first, so a
/// non-string fails with an `AttributeError`.
pub fn exp_str(v: &Json) -> Result<&str, RunError> {
    match v {
        Json::String(s) => Ok(s),
        other => Err(no_attribute(other, "strip")),
    }
}

/// Python's `AttributeError` for a method missing on a JSON value's type.
pub fn no_attribute(v: &Json, attr: &str) -> RunError {
    RunError::raised(
        "AttributeError",
        format!("'{}' object has no attribute '{attr}'", py::type_name(v)),
    )
}

/// Python `v.get(key)` on what should be a dict.
pub fn py_get<'a>(v: &'a Json, key: &str) -> Result<Option<&'a Json>, RunError> {
    match v {
        Json::Object(m) => Ok(m.get(key)),
        other => Err(no_attribute(other, "get")),
    }
}

/// Python `v[key]` with a string key, failing with Python's `KeyError`/`TypeError`.
pub fn py_getitem<'a>(v: &'a Json, key: &str) -> Result<&'a Json, RunError> {
    match v {
        Json::Object(m) => m.get(key).ok_or_else(|| RunError::key_error(key)),
        Json::String(_) => Err(RunError::type_error(
            "string indices must be integers, not 'str'",
        )),
        Json::Array(_) => Err(RunError::type_error(
            "list indices must be integers or slices, not str",
        )),
        other => Err(RunError::type_error(format!(
            "'{}' object is not subscriptable",
            py::type_name(other)
        ))),
    }
}

/// Python `for x in v`: lists by item, strings by character, dicts by key.
pub fn py_iter(v: &Json) -> Result<Vec<Json>, RunError> {
    match v {
        Json::Array(a) => Ok(a.clone()),
        Json::String(s) => Ok(s.chars().map(|c| Json::String(c.to_string())).collect()),
        Json::Object(m) => Ok(m.keys().map(|k| Json::String(k.clone())).collect()),
        other => Err(RunError::type_error(format!(
            "'{}' object is not iterable",
            py::type_name(other)
        ))),
    }
}

/// `get_value_with_variable(v)` for a parameter: a non-string fails like Python's `re.finditer`.
pub async fn value_with_variable_json(cx: &NodeCx<'_>, v: &Json) -> Result<String, RunError> {
    match v {
        Json::String(s) => super::render::value_with_variable(cx, s).await,
        other => Err(RunError::type_error(format!(
            "expected string or bytes-like object, got '{}'",
            py::type_name(other)
        ))),
    }
}

/// Python's `str.isspace()` for one character: Unicode whitespace plus the ASCII information
/// separators `\x1c`–`\x1f`, which Rust does not count.
pub fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python `s.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// Running one component the way the unit tests' expected values were produced: RAGFlow's engine
/// (the reference oracle) on `begin → X:T`, with `env.*` globals, optional extra components and
/// display names, reporting X:T's `node_finished` (timings dropped) and the final `env.*`.
#[cfg(test)]
pub(crate) mod testkit {
    use crate::exec::interp::Interpreter;
    use crate::exec::random::PyRandom;
    use crate::exec::{RunInput, RunOutcome, Services, Session, Settings};
    use crate::value::{py, Json, Map};
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
    pub fn dsl_of(case: &Json) -> Json {
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

    pub async fn run_with(case: &Json, settings: Settings) -> Json {
        let dsl = dsl_of(case);
        let analysis = crate::frontend::analyze(&dsl.to_string()).expect("canvas loads");
        let program = Arc::new(Interpreter::from_analysis(&analysis));
        let services = Services {
            llm: None,
            http: reqwest::Client::new(),
            settings,
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

    /// Run every `(case, expected)` pair and compare the renderings (key order included).
    pub fn check_cases(cases: &str, expected: &str) {
        let cases: Vec<Json> = serde_json::from_str(cases).expect("cases are JSON");
        let expected: Vec<Json> = expected
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("expected line is JSON"))
            .collect();
        assert_eq!(cases.len(), expected.len(), "one expectation per case");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let mut failures = Vec::new();
        for (case, want) in cases.iter().zip(&expected) {
            let got = rt.block_on(run_with(case, Settings::default()));
            if py::json_dumps(&got) != py::json_dumps(want) {
                failures.push(format!(
                    "{}\n  want: {}\n  got:  {}",
                    case["name"],
                    py::json_dumps(want),
                    py::json_dumps(&got)
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} case(s) differ:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
