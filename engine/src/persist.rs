//! Saving a session into its DSL and restoring it (RAGFlow's `str(canvas)` and `Canvas(dsl)`),
//! so the next turn — or the answer to a UserFillUp — continues where this one stopped.

use super::state::{Globals, Input, Inputs, NodeState, Nodes, Record, RunState};
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_value::{Json, Map};

/// RAGFlow's default globals when a DSL has none.
fn default_globals(now: &str) -> Globals {
    let mut g = Globals::default();
    g.insert("sys.query".into(), Json::String(String::new()));
    g.insert("sys.user_id".into(), Json::String(String::new()));
    g.insert("sys.conversation_turns".into(), Json::from(0));
    g.insert("sys.files".into(), Json::Array(Vec::new()));
    g.insert("sys.history".into(), Json::Array(Vec::new()));
    g.insert("sys.date".into(), Json::String(now.to_string()));
    g
}

fn now() -> String {
    chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Build the session state a DSL describes (`Canvas(dsl)`): component tables from each
/// component's params, path, history, references, memory and globals.
pub fn state_from_dsl(meta: &CanvasMeta, dsl: &Map<String, Json>) -> RunState {
    state_from_parts(meta, canvas_params(dsl), |key: &str| dsl.get(key))
}

/// The session state `document` ([`state_document`]) describes, on the canvas `dsl`: what
/// [`state_from_dsl`] reads from the session's DSL that `state_to_dsl` wrote with that state.
/// A component the document leaves out keeps the canvas's own values, and so does a
/// top-level key.
pub fn state_from_document<'a>(
    meta: &CanvasMeta,
    dsl: &'a Map<String, Json>,
    document: &'a Map<String, Json>,
) -> RunState {
    let saved = document.get("components").and_then(Json::as_object);
    let canvas = canvas_params(dsl);
    state_from_parts(
        meta,
        |id: &str| match saved.and_then(|c| c.get(id)) {
            Some(params) => params.as_object(),
            None => canvas(id),
        },
        |key: &str| document.get(key).or_else(|| dsl.get(key)),
    )
}

/// A component's params in the canvas `dsl`, by id (RAGFlow's lookup: exact, then any case).
fn canvas_params<'a>(
    dsl: &'a Map<String, Json>,
) -> impl Fn(&str) -> Option<&'a Map<String, Json>> + 'a {
    let components = dsl.get("components").and_then(Json::as_object);
    move |id| {
        components
            .and_then(|c| {
                c.get(id).or_else(|| {
                    c.iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(id))
                        .map(|(_, e)| e)
                })
            })
            .and_then(|e| e.pointer("/obj/params").or_else(|| e.get("params")))
            .and_then(Json::as_object)
    }
}

/// The session state from where it is saved: each component's saved params (`params_of(id)`:
/// its run-time tables and edits) and the session's top-level keys (`top(key)`).
fn state_from_parts<'a>(
    meta: &CanvasMeta,
    params_of: impl Fn(&str) -> Option<&'a Map<String, Json>>,
    top: impl Fn(&str) -> Option<&'a Json>,
) -> RunState {
    let mut nodes = Nodes::with_capacity(meta.len());
    for node in &meta.nodes {
        // A saved state carries run-time values in its own params; otherwise the program's.
        let saved = params_of(&node.id);
        let params = saved.unwrap_or(&node.params);
        let mut st = NodeState::with_slots(node.outputs.clone());
        if let Some(Json::Object(outputs)) = params.get("outputs") {
            for (k, rec) in outputs {
                let record = match rec {
                    Json::Object(m) => Record::from_map(m),
                    other => Record::with_value(other.clone()),
                };
                st.insert_record(k, record);
            }
        }
        if let Some(Json::Object(inputs)) = params.get("inputs") {
            st.inputs = inputs
                .iter()
                .map(|(k, v)| (k.clone(), Input::Dict(v.clone())))
                .collect::<Inputs>();
        }
        if let Some(saved) = saved {
            // Run-time edits RAGFlow saves with the params: an Agent tool's prompts, a Loop's
            // constants edited in place (`super::sharing`).
            for key in EDITABLE_PARAMS {
                if let (Some(v), Some(orig)) = (saved.get(key), node.params.get(key)) {
                    if v != orig {
                        st.param_overrides.insert(key.to_string(), v.clone());
                    }
                }
            }
        }
        nodes.push(st);
    }
    let now = now();
    let (mut globals, globals_in_dsl) = match top("globals") {
        Some(Json::Object(g)) => (
            g.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            true,
        ),
        _ => (default_globals(&now), false),
    };
    globals
        .entry("sys.history".to_string())
        .or_insert_with(|| Json::Array(Vec::new()));
    globals
        .entry("sys.date".to_string())
        .or_insert_with(|| Json::String(now.clone()));
    let list = |key: &str| match top(key) {
        Some(Json::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let path = list("path")
        .iter()
        .map(|id| {
            let id = match id {
                Json::String(s) => s.clone(),
                other => canvasc_value::py::str_of(other),
            };
            match meta.find(&id) {
                Some(n) => Target::Node(n),
                None => Target::Missing(id),
            }
        })
        .collect();
    RunState {
        globals,
        variables: top("variables")
            .cloned()
            .unwrap_or(Json::Object(Map::new())),
        history: list("history"),
        retrieval: list("retrieval"),
        memory: list("memory"),
        path,
        nodes,
        task_id: top("task_id")
            .and_then(Json::as_str)
            .map(str::to_string)
            .unwrap_or_else(new_task_id),
        error: String::new(),
        usage: Default::default(),
        globals_in_dsl,
        sharing: Default::default(),
    }
}

/// Params a run may edit in place, saved with the component (`state_from_parts` reads them
/// back as overrides when they differ from the canvas's).
const EDITABLE_PARAMS: [&str; 3] = ["prompts", "sys_prompt", super::sharing::LOOP_VARIABLES];

/// The task id a DSL names, if any (a new session otherwise gets its own).
pub fn written_task_id(dsl: &Map<String, Json>) -> Option<String> {
    dsl.get("task_id")
        .and_then(Json::as_str)
        .map(str::to_string)
}

/// A task id of RAGFlow's shape (a uuid4 as 32 hex digits).
pub fn new_task_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The state a new session of this DSL starts from: `Canvas(dsl)`, then `reset()`.
pub fn fresh_state(meta: &CanvasMeta, dsl: &Map<String, Json>) -> RunState {
    let mut state = state_from_dsl(meta, dsl);
    reset(meta, &mut state);
    state
}

/// `Canvas.reset()`: a new session (BS §16.3).
pub fn reset(meta: &CanvasMeta, state: &mut RunState) {
    state.path.clear();
    debug_assert_eq!(meta.len(), state.nodes.len());
    for node in state.nodes.iter_mut() {
        node.reset(false);
    }
    state.history.clear();
    state.retrieval.clear();
    state.memory.clear();
    let variables = state.variables.clone();
    canvasc_frontend::reset::reset_globals(&mut state.globals, Some(&variables));
}

/// `str(canvas)`: the DSL with every component's params carrying its run-time tables, and the
/// session's path, history, references, memory, task id and globals.
pub fn state_to_dsl(meta: &CanvasMeta, state: &RunState, original: &Map<String, Json>) -> Json {
    let mut components = Map::new();
    for (i, node) in meta.nodes.iter().enumerate() {
        let mut params = node.params.clone();
        params.extend(run_params(&state.nodes[i]));
        let mut obj = Map::new();
        obj.insert(
            "component_name".into(),
            Json::String(node.component_name.clone()),
        );
        obj.insert("params".into(), Json::Object(params));
        let mut entry = Map::new();
        entry.insert("obj".into(), Json::Object(obj));
        entry.insert(
            "downstream".into(),
            Json::Array(
                node.downstream
                    .iter()
                    .map(|t| Json::String(target_id(meta, t)))
                    .collect(),
            ),
        );
        entry.insert(
            "upstream".into(),
            Json::Array(node.upstream.iter().cloned().map(Json::String).collect()),
        );
        if let Some(p) = node.parent {
            entry.insert("parent_id".into(), Json::String(meta.node(p).id.clone()));
        }
        for (k, v) in &node.entry_extra {
            entry.insert(k.clone(), v.clone());
        }
        components.insert(node.id.clone(), Json::Object(entry));
    }
    let mut out = Map::new();
    out.insert("components".into(), Json::Object(components));
    for (k, v) in original {
        if k != "components" {
            out.insert(k.clone(), v.clone());
        }
    }
    session_keys(meta, state, &mut out);
    if !out.contains_key("variables") {
        if let Json::Object(v) = &state.variables {
            if !v.is_empty() {
                out.insert("variables".into(), state.variables.clone());
            }
        }
    }
    Json::Object(out)
}

/// The session's state as a document apart from its canvas: what `state_to_dsl` writes that
/// a run can change (each component's run-time params, the path, history, references,
/// memory, task id, globals and variables), and nothing of the canvas itself.
/// [`state_from_document`] reads it back on the same canvas.
///
/// Why: a session stored this way grows with what its runs did, not with its canvas, and a
/// turn reads and writes it without rebuilding or comparing the whole DSL.
pub fn state_document(meta: &CanvasMeta, state: &RunState) -> Json {
    let mut components = Map::new();
    for (node, st) in meta.nodes.iter().zip(state.nodes.iter()) {
        components.insert(node.id.clone(), Json::Object(run_params(st)));
    }
    let mut out = Map::new();
    out.insert("components".into(), Json::Object(components));
    session_keys(meta, state, &mut out);
    if let Json::Object(v) = &state.variables {
        if !v.is_empty() {
            out.insert("variables".into(), state.variables.clone());
        }
    }
    Json::Object(out)
}

/// A component's params a run sets: its edits in place, its input and output tables.
fn run_params(st: &NodeState) -> Map<String, Json> {
    let mut params = st.param_overrides.clone();
    params.insert(
        "inputs".into(),
        Json::Object(
            st.inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_json()))
                .collect(),
        ),
    );
    let mut outputs = Map::new();
    for (k, r) in st.outputs() {
        outputs.insert(k.to_string(), Json::Object(r.to_map()));
    }
    params.insert("outputs".into(), Json::Object(outputs));
    params
}

/// The session's top-level keys: path, history, references, memory, task id and globals.
fn session_keys(meta: &CanvasMeta, state: &RunState, out: &mut Map<String, Json>) {
    out.insert("history".into(), Json::Array(state.history.clone()));
    out.insert("retrieval".into(), Json::Array(state.retrieval.clone()));
    out.insert("memory".into(), Json::Array(state.memory.clone()));
    out.insert(
        "path".into(),
        Json::Array(
            state
                .path
                .iter()
                .map(|t| Json::String(target_id(meta, t)))
                .collect(),
        ),
    );
    out.insert("task_id".into(), Json::String(state.task_id.clone()));
    if state.globals_in_dsl {
        out.insert("globals".into(), globals_json(&state.globals));
    }
}

/// The globals as the DSL saves them.
pub fn globals_json(globals: &Globals) -> Json {
    Json::Object(
        globals
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

pub(crate) fn target_id(meta: &CanvasMeta, t: &Target) -> String {
    match t {
        Target::Node(n) => meta.node(*n).id.clone(),
        Target::Missing(id) => id.clone(),
    }
}
