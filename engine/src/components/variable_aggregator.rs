//! VariableAggregator: per group, the first truthy value among its selectors
//! (components.md §18, `agent/component/variable_aggregator.py`).

use super::{exp_str, py_get, py_getitem, py_iter, truthy, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::sharing::{mutable, Place};
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Spec {
    pub groups: Json,
    /// Per group, per selector: the binding of its `value`.
    pub bound: Vec<Vec<Option<Bound>>>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            groups: p.get("groups").cloned().unwrap_or(Json::Array(Vec::new())),
            bound: Vec::new(),
        }
    }

    fn binding(&self, group: usize, selector: usize) -> Option<&Bound> {
        self.bound.get(group)?.get(selector)?.as_ref()
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx)
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed(
            "Aggregating variables from canvas and grouping as configured.",
        ))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        let selectors = |group: &Json| -> Vec<Option<Bound>> {
            group
                .get("variables")
                .and_then(Json::as_array)
                .map(|sel| {
                    sel.iter()
                        .map(|s| match s.get("value") {
                            Some(Json::String(exp)) => r.resolve(exp),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        self.bound = match &self.groups {
            Json::Array(groups) => groups.iter().map(selectors).collect(),
            _ => Vec::new(),
        };
    }
}

fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    for (g, group) in py_iter(&spec.groups)?.into_iter().enumerate() {
        // An f-string and a dict key: a missing name reads `None`.
        let gname = match py_get(&group, "group_name")? {
            Some(Json::String(s)) => s.clone(),
            Some(other) => py::str_of(other),
            None => "None".to_string(),
        };
        let selectors = match py_get(&group, "variables")? {
            Some(v) => py_iter(v)?,
            None => Vec::new(),
        };
        cx.set_input_value(
            &format!("{gname}.variables"),
            Json::Array(selectors.clone()),
        );
        for (i, selector) in selectors.iter().enumerate() {
            let exp = exp_str(py_getitem(selector, "value")?)?;
            let v = cx.read(spec.binding(g, i), exp)?;
            if truthy(&v) {
                // The output is the very object the reference names, so a later in-place edit
                // of either (VariableAssigner `append`) shows through both, as in RAGFlow.
                let shares = matches!(&v, Val::Json(j) if mutable(j));
                cx.set_output(&gname, v);
                if shares {
                    if let Some(source) = Place::of_reference(&cx.shared.meta, exp) {
                        cx.state().share(Place::Output(cx.node, &gname), source);
                    }
                }
                break;
            }
        }
    }
    Ok(())
}
