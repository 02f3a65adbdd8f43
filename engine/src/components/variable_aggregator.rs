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

#[cfg(test)]
mod tests {
    /// Each case runs `begin → X:T` (see `testkit`); each expected line is what RAGFlow's engine
    /// (the reference oracle) reported for it: X:T's `node_finished` inputs, outputs and error,
    /// an aborted run's exception, and `env.*` when it changed.
    const CASES: &str = r###"[
{"name": "first_truthy_skips_falsy", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "env.e"}, {"value": "env.z"}, {"value": "env.l"}, {"value": "env.o"}, {"value": "env.f"}, {"value": "env.a"}, {"value": "env.n"}]}], "outputs": {"g": {"type": "string"}}}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "none_truthy_leaves_declared_output", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "env.e"}, {"value": "Dummy:N@none"}]}], "outputs": {"g": {"type": "string"}}}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "none_truthy_undeclared_absent", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "env.z"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "several_groups", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "one", "variables": [{"value": "env.n"}]}, {"group_name": "two", "variables": [{"value": "{env.lst}"}, {"value": "env.a"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "unknown_global_fails", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "env.e"}, {"value": "env.nope"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "stops_at_first_truthy", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "env.a"}, {"value": "env.nope"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "selector_without_value", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"ref": "env.a"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}},
{"name": "unknown_component_fails", "kind": "VariableAggregator", "params": {"groups": [{"group_name": "g", "variables": [{"value": "Nope:X@y"}]}]}, "env": {"e": "", "z": 0, "l": [], "o": {}, "f": false, "a": "A", "n": 7, "lst": [1]}}
]"###;

    const EXPECTED: &str = r###"
{"name": "first_truthy_skips_falsy", "inputs": {"g.variables": [{"value": "env.e"}, {"value": "env.z"}, {"value": "env.l"}, {"value": "env.o"}, {"value": "env.f"}, {"value": "env.a"}, {"value": "env.n"}]}, "outputs": {"g": "A"}, "error": null, "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "none_truthy_leaves_declared_output", "inputs": {"g.variables": [{"value": "env.e"}, {"value": "Dummy:N@none"}]}, "outputs": {"g": null}, "error": null, "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "none_truthy_undeclared_absent", "inputs": {"g.variables": [{"value": "env.z"}]}, "outputs": {}, "error": null, "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "several_groups", "inputs": {"one.variables": [{"value": "env.n"}], "two.variables": [{"value": "{env.lst}"}, {"value": "env.a"}]}, "outputs": {"one": 7, "two": [1]}, "error": null, "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "unknown_global_fails", "inputs": {"g.variables": [{"value": "env.e"}, {"value": "env.nope"}]}, "outputs": {"_ERROR": "'env.nope'"}, "error": "'env.nope'", "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "stops_at_first_truthy", "inputs": {"g.variables": [{"value": "env.a"}, {"value": "env.nope"}]}, "outputs": {"g": "A"}, "error": null, "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "selector_without_value", "inputs": {"g.variables": [{"ref": "env.a"}]}, "outputs": {"_ERROR": "'value'"}, "error": "'value'", "thoughts": "Aggregating variables from canvas and grouping as configured."}
{"name": "unknown_component_fails", "inputs": {"g.variables": [{"value": "Nope:X@y"}]}, "outputs": {"_ERROR": "Can't find variable: 'Nope:X@y'"}, "error": "Can't find variable: 'Nope:X@y'", "thoughts": "Aggregating variables from canvas and grouping as configured."}
"###;

    #[test]
    fn behaves_like_ragflow() {
        super::super::testkit::check_cases(CASES, EXPECTED);
    }
}
