//! Iteration and IterationItem: run the body once per element of an array, collecting declared
//! outputs (components.md §8–9).

use crate::exec::{NodeCx, RunError};
use crate::value::{py, Json, Map, Val};

#[derive(Clone, Debug)]
pub struct Spec {
    pub items_ref: String,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            items_ref: p
                .get("items_ref")
                .map(|v| match v {
                    Json::String(s) => s.clone(),
                    other => py::str_of(other),
                })
                .unwrap_or_default(),
        }
    }
}

fn not_an_array(items_ref: &str, v: &Val) -> String {
    let class = match v {
        Val::Json(j) => py::class_repr(j),
        Val::Stream(_) => "<class 'functools.partial'>".into(),
    };
    format!("{items_ref} must be an array, but its type is {class}")
}

pub fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let arr = cx.value(&spec.items_ref)?;
    if !matches!(arr, Val::Json(Json::Array(_))) {
        cx.set_output("_ERROR", Json::String(not_an_array(&spec.items_ref, &arr)));
    }
    Ok(())
}

/// `Need to process <n> items.`: `len()` of whatever the reference holds (and fails like it).
pub fn thoughts(spec: &Spec, cx: &NodeCx<'_>) -> Result<String, RunError> {
    let n = match cx.value(&spec.items_ref)? {
        Val::Json(Json::Array(a)) => a.len(),
        Val::Json(Json::String(s)) => s.chars().count(),
        Val::Json(Json::Object(m)) => m.len(),
        Val::Json(other) => {
            return Err(RunError::type_error(format!(
                "object of type '{}' has no len()",
                py::type_name(&other)
            )))
        }
        Val::Stream(_) => {
            return Err(RunError::type_error(
                "object of type 'partial' has no len()",
            ))
        }
    };
    Ok(format!("Need to process {n} items."))
}

/// IterationItem: collate the previous pass, then emit the next element or end (`_idx == -1`).
pub fn item_body(cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let meta = &cx.shared.meta;
    let parent = cx.meta().parent.ok_or_else(|| {
        RunError::raised(
            "AttributeError",
            "'NoneType' object has no attribute '_param'",
        )
    })?;
    let items_ref = Spec::from_params(&meta.node(parent).params).items_ref;
    let arr = cx.value(&items_ref)?;
    let Val::Json(Json::Array(arr)) = arr else {
        cx.state().node_mut(cx.node).counter = -1;
        return Err(RunError::msg(not_an_array(&items_ref, &arr)));
    };
    let idx = cx.state().node(cx.node).counter;
    if idx > 0 {
        if cx.check_canceled() {
            return Ok(());
        }
        collate(cx, parent);
    }
    // A counter left at -1 by an earlier end indexes from the back, as Python's `arr[-1]` does.
    let len = arr.len() as i64;
    if idx >= len {
        cx.state().node_mut(cx.node).counter = -1;
        return Ok(());
    }
    if cx.check_canceled() {
        return Ok(());
    }
    let pos = if idx < 0 { idx + len } else { idx };
    let Some(item) = usize::try_from(pos).ok().and_then(|p| arr.get(p)).cloned() else {
        return Err(RunError::raised("IndexError", "list index out of range"));
    };
    cx.set_output("item", item.clone());
    cx.set_output("result", item);
    cx.set_output("index", Json::from(idx));
    cx.state().node_mut(cx.node).counter = idx + 1;
    Ok(())
}

/// `output_collation`: append each body component's referenced output to the Iteration's
/// declared collected outputs.
fn collate(cx: &NodeCx<'_>, iteration: crate::frontend::ir::NodeId) {
    let meta = &cx.shared.meta;
    let Some(Json::Object(decls)) = meta.node(iteration).params.get("outputs") else {
        return;
    };
    let mut s = cx.state();
    for (i, node) in meta.nodes.iter().enumerate() {
        if node.parent != Some(iteration) {
            continue;
        }
        for (k, decl) in decls {
            let Some(r) = decl.get("ref").and_then(Json::as_str) else {
                continue;
            };
            let Some((cid, var)) = r.split_once('@') else {
                continue;
            };
            if cid != node.id {
                continue;
            }
            let value = s.nodes[i].output(var).to_event_json();
            let st = s.node_mut(iteration);
            let mut list = match st.output(k) {
                Val::Json(Json::Array(a)) => a,
                Val::Json(v) if py::truthy(&v) => vec![v],
                _ => Vec::new(),
            };
            list.push(value);
            st.set_output(k, Val::Json(Json::Array(list)));
        }
    }
}
