//! Iteration and IterationItem: run the body once per element of an array, collecting declared
//! outputs (components.md §8–9).

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::read_bound::ReadBound;
use crate::state::RunState;
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_frontend::catalog::SHARED_OUTPUTS;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::CanvasMeta;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::sync::OnceLock;

/// The slots of IterationItem's fixed outputs, which follow the shared ones in catalogue
/// order: the item is set by slot once per pass.
const ITEM: u16 = SHARED_OUTPUTS.len() as u16;
const RESULT: u16 = ITEM + 1;
const INDEX: u16 = ITEM + 2;

/// The Iteration's `items_ref`, which its IterationItem reads too.
#[derive(Clone, Debug, Default)]
pub struct Items {
    pub exp: String,
    pub bound: Option<Bound>,
}

impl Items {
    fn from_params(p: &Map<String, Json>) -> Self {
        Items {
            exp: p
                .get("items_ref")
                .map(|v| match v {
                    Json::String(s) => s.clone(),
                    other => py::str_of(other),
                })
                .unwrap_or_default(),
            bound: None,
        }
    }

    /// Lend the value (see [`RunState::with_variable_value`]).
    fn with<R>(&self, cx: &NodeCx<'_>, f: impl FnOnce(Option<&Json>) -> R) -> Result<R, RunError> {
        self.with_in(cx, &cx.state(), f)
    }

    /// [`Items::with`] in a state the caller has locked.
    fn with_in<R>(
        &self,
        cx: &NodeCx<'_>,
        s: &RunState,
        f: impl FnOnce(Option<&Json>) -> R,
    ) -> Result<R, RunError> {
        match &self.bound {
            Some(b) => b.with_value(s, f),
            None => s.with_variable_value(&cx.shared.meta, &self.exp, f),
        }
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.bound = r.resolve(&self.exp);
    }
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub items: Items,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            items: Items::from_params(p),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        super::run_now(self, cx)
    }

    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
        Some(body(self, cx, s))
    }

    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        thoughts(self, cx).map(Cow::Owned)
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.items.bind(r);
    }
}

/// The IterationItem, with its Iteration's `items_ref` (parameters of the parent).
#[derive(Clone, Debug)]
pub struct ItemSpec {
    pub items: Items,
    /// What `output_collation` appends after each pass, worked out from the canvas once.
    collation: OnceLock<Vec<Collated>>,
}

/// One declared output of the Iteration and the body output it collects.
#[derive(Clone, Debug)]
struct Collated {
    body: NodeId,
    var: String,
    key: String,
    /// The slots of `var` among the body node's declared outputs and of `key` among the
    /// Iteration's, when declared: collation runs once per pass.
    var_slot: Option<u16>,
    key_slot: Option<u16>,
}

impl ItemSpec {
    /// From the parent Iteration's parameters.
    pub fn from_params(parent: &Map<String, Json>) -> Self {
        ItemSpec {
            items: Items::from_params(parent),
            collation: OnceLock::new(),
        }
    }

    /// For each body component in document order, each declared output whose `ref` names it.
    fn collation(&self, meta: &CanvasMeta, iteration: NodeId) -> &[Collated] {
        self.collation.get_or_init(|| {
            let Some(Json::Object(decls)) = meta.node(iteration).params.get("outputs") else {
                return Vec::new();
            };
            let mut plan = Vec::new();
            for (i, node) in meta.nodes.iter().enumerate() {
                if node.parent != Some(iteration) {
                    continue;
                }
                for (k, decl) in decls {
                    let Some(r) = decl.get("ref").and_then(Json::as_str) else {
                        continue;
                    };
                    match r.split_once('@') {
                        Some((cid, var)) if cid == node.id => plan.push(Collated {
                            body: NodeId(i as u32),
                            var: var.to_string(),
                            key: k.clone(),
                            var_slot: node.slot(var),
                            key_slot: meta.node(iteration).slot(k),
                        }),
                        _ => {}
                    }
                }
            }
            plan
        })
    }
}

impl Component for ItemSpec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        super::run_now(self, cx)
    }

    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
        Some(item_body(self, cx, s))
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Next turn..."))
    }

    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        Ok(cx.state().node(cx.node).counter == -1)
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.items.bind(r);
    }
}

fn not_an_array(items_ref: &str, v: &Val) -> String {
    let class = match v {
        Val::Json(j) => py::class_repr(j),
        Val::Stream(_) => "<class 'functools.partial'>".into(),
    };
    format!("{items_ref} must be an array, but its type is {class}")
}

fn body(spec: &Spec, cx: &NodeCx<'_>, s: &mut RunState) -> Result<(), RunError> {
    if cx.check_canceled_in(s) {
        return Ok(());
    }
    let arr = cx.read_in(s, spec.items.bound.as_ref(), &spec.items.exp)?;
    if !matches!(arr, Val::Json(Json::Array(_))) {
        let error = Json::String(not_an_array(&spec.items.exp, &arr));
        s.node_mut(cx.node).set_output("_ERROR", Val::Json(error));
    }
    Ok(())
}

/// `Need to process <n> items.`: `len()` of whatever the reference holds (and fails like it).
fn thoughts(spec: &Spec, cx: &NodeCx<'_>) -> Result<String, RunError> {
    let len = spec.items.with(cx, |v| match v {
        Some(Json::Array(a)) => Ok(a.len()),
        Some(Json::String(s)) => Ok(s.chars().count()),
        Some(Json::Object(m)) => Ok(m.len()),
        Some(other) => Err(py::type_name(other).to_string()),
        None => Err("partial".to_string()),
    })?;
    match len {
        Ok(n) => Ok(format!("Need to process {n} items.")),
        Err(ty) => Err(RunError::type_error(format!(
            "object of type '{ty}' has no len()"
        ))),
    }
}

/// IterationItem: collate the previous pass, then emit the next element or end (`_idx == -1`).
fn item_body(spec: &ItemSpec, cx: &NodeCx<'_>, s: &mut RunState) -> Result<(), RunError> {
    if cx.check_canceled_in(s) {
        return Ok(());
    }
    let parent = cx.meta().parent.ok_or_else(|| {
        RunError::raised(
            "AttributeError",
            "'NoneType' object has no attribute '_param'",
        )
    })?;
    let items_ref = &spec.items.exp;
    let idx = s.node(cx.node).counter;
    // Read the length and the one element this pass needs without copying the list.
    let probe = spec.items.with_in(cx, s, |v| match v {
        Some(Json::Array(a)) => {
            let len = a.len() as i64;
            // A counter left at -1 by an earlier end indexes from the back (`arr[-1]`).
            let pos = if idx < 0 { idx + len } else { idx };
            let item = usize::try_from(pos).ok().and_then(|p| a.get(p)).cloned();
            Ok((len, item))
        }
        Some(other) => Err(py::class_repr(other)),
        None => Err("<class 'functools.partial'>".to_string()),
    })?;
    let (len, item) = match probe {
        Ok(found) => found,
        Err(class) => {
            s.node_mut(cx.node).counter = -1;
            return Err(RunError::msg(format!(
                "{items_ref} must be an array, but its type is {class}"
            )));
        }
    };
    if idx > 0 {
        if cx.check_canceled_in(s) {
            return Ok(());
        }
        collate(s, parent, spec.collation(&cx.shared.meta, parent));
    }
    if idx >= len {
        s.node_mut(cx.node).counter = -1;
        return Ok(());
    }
    if cx.check_canceled_in(s) {
        return Ok(());
    }
    let Some(item) = item else {
        return Err(RunError::raised("IndexError", "list index out of range"));
    };
    let st = s.node_mut(cx.node);
    st.set_output_slot(ITEM, Val::Json(item.clone()));
    st.set_output_slot(RESULT, Val::Json(item));
    st.set_output_slot(INDEX, Val::Json(Json::from(idx)));
    st.counter = idx + 1;
    Ok(())
}

/// `output_collation`: append each body component's referenced output to the Iteration's
/// declared collected outputs.
fn collate(s: &mut RunState, iteration: NodeId, plan: &[Collated]) {
    for c in plan {
        let Collated { body, var, key, .. } = c;
        let body = s.node(*body);
        let value = match c.var_slot {
            Some(slot) => body.output_slot(slot),
            None => body.output(var),
        };
        let value = value.to_event_json();
        let st = s.node_mut(iteration);
        let record = match c.key_slot {
            Some(slot) => st.record_at_mut(slot),
            None => st.record_mut(key),
        };
        // Python appends to the same list object in place.
        if let Some(Json::Array(list)) = record.and_then(|r| r.json_mut()) {
            list.push(value);
            continue;
        }
        let list = match st.output(key) {
            Val::Json(v) if py::truthy(&v) => vec![v, value],
            _ => vec![value],
        };
        st.set_output(key, Val::Json(Json::Array(list)));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// The item's outputs are set by slot, so they must sit there whatever outputs the DSL
    /// declares.
    #[test]
    fn item_outputs_follow_the_shared_outputs() {
        let dsl = json!({"components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Iteration:I"]},
            "Iteration:I": {"obj": {"component_name": "Iteration", "params": {"items_ref": "sys.files"}}},
            "IterationItem:S": {"obj": {"component_name": "IterationItem", "params": {
                "outputs": {"extra": {"type": "string"}, "index": {"type": "number"}}}},
                "parent_id": "Iteration:I"}}});
        let names = super::super::testkit::declared_outputs(&dsl, "IterationItem:S");
        let slot = |s: u16| names[usize::from(s)].as_str();
        assert_eq!(
            [slot(super::ITEM), slot(super::RESULT), slot(super::INDEX)],
            ["item", "result", "index"],
            "{names:?}"
        );
    }
}
