//! Loop and LoopItem: repeat the body while the termination condition does not hold, at most
//! `maximum_loop_count` times (components.md §10–11).

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::sharing::{mutable, Place, LOOP_VARIABLES};
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct Spec {
    pub loop_variables: Vec<Json>,
    /// Per variable: the binding of its `value` in `variable` input mode.
    pub bound: Vec<Option<Bound>>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let loop_variables: Vec<Json> = p
            .get("loop_variables")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        Spec {
            bound: vec![None; loop_variables.len()],
            loop_variables,
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx)
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Loop from canvas."))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.bound = self
            .loop_variables
            .iter()
            .map(|item| match item.get("input_mode").and_then(Json::as_str) {
                Some("variable") => item.get("value").map(text).and_then(|e| r.resolve(&e)),
                _ => None,
            })
            .collect();
    }
}

/// The LoopItem, with its Loop's termination settings (parameters of the parent).
#[derive(Clone, Debug)]
pub struct ItemSpec {
    pub maximum_loop_count: Json,
    pub logical_operator: Json,
    pub conditions: Vec<Json>,
    /// Per condition: the bindings of `variable` and of a `variable`-mode `value`.
    pub bound: Vec<(Option<Bound>, Option<Bound>)>,
}

impl ItemSpec {
    /// From the parent Loop's parameters.
    pub fn from_params(parent: &Map<String, Json>) -> Self {
        let conditions: Vec<Json> = parent
            .get("loop_termination_condition")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        ItemSpec {
            maximum_loop_count: parent
                .get("maximum_loop_count")
                .cloned()
                .unwrap_or(Json::from(0)),
            logical_operator: parent
                .get("logical_operator")
                .cloned()
                .unwrap_or(Json::String("and".into())),
            bound: vec![(None, None); conditions.len()],
            conditions,
        }
    }
}

impl Component for ItemSpec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        item_body(self, cx)
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Next turn..."))
    }

    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        item_ended(self, cx)
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.bound = self
            .conditions
            .iter()
            .map(|item| {
                let variable = item
                    .get("variable")
                    .filter(|v| py::truthy(v))
                    .and_then(|v| r.resolve(&py::str_of(v)));
                let value = match item.get("input_mode").and_then(Json::as_str) {
                    Some("variable") => item.get("value").and_then(|v| r.resolve(&py::str_of(v))),
                    _ => None,
                };
                (variable, value)
            })
            .collect();
    }
}

/// ExitLoop: its effect is the scheduler's (the path continues after the Loop).
#[derive(Clone, Copy, Debug)]
pub struct ExitSpec;

impl Component for ExitSpec {
    async fn body<'a>(&'a self, _cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        Ok(())
    }
}

fn text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => py::str_of(other),
    }
}

fn missing(v: Option<&Json>) -> bool {
    matches!(v, None | Some(Json::Null)) || v == Some(&Json::String(String::new()))
}

/// Loop: (re)initialise the loop variables as outputs. Each variable holds the very object
/// its constant or its reference holds ([`crate::sharing`]); a constant edited in place
/// by an earlier run is read from the params that run saved.
fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let saved = cx
        .state()
        .node(cx.node)
        .param_overrides
        .get(LOOP_VARIABLES)
        .and_then(Json::as_array)
        .cloned();
    let loop_variables = saved.as_deref().unwrap_or(&spec.loop_variables);
    for (i, item) in loop_variables.iter().enumerate() {
        let incomplete = missing(item.get("variable"))
            || missing(item.get("input_mode"))
            || missing(item.get("type"))
            || match item.get("input_mode").and_then(Json::as_str) {
                Some("variable") => missing(item.get("value")),
                Some("constant") => matches!(item.get("value"), None | Some(Json::Null)),
                _ => true,
            };
        if incomplete {
            return Err(RunError::value_error("Loop Variable is not complete."));
        }
        let name = item.get("variable").map(text).unwrap_or_default();
        let value = item.get("value").cloned().unwrap_or(Json::Null);
        if item.get("input_mode").and_then(Json::as_str) == Some("variable") {
            let exp = text(&value);
            let v = cx.read(spec.bound.get(i).and_then(Option::as_ref), &exp)?;
            let shares = matches!(&v, Val::Json(j) if mutable(j));
            cx.set_output(&name, v);
            if shares {
                if let Some(source) = Place::of_reference(&cx.shared.meta, &exp) {
                    cx.state().share(Place::Output(cx.node, &name), source);
                }
            }
        } else {
            let shares = mutable(&value);
            cx.set_output(&name, value);
            if shares {
                let mut s = cx.state();
                let overrides = &mut s.node_mut(cx.node).param_overrides;
                if !overrides.contains_key(LOOP_VARIABLES) {
                    overrides.insert(LOOP_VARIABLES.into(), Json::Array(loop_variables.to_vec()));
                }
                s.share(
                    Place::Output(cx.node, &name),
                    Place::LoopConstant(cx.node, i),
                );
            }
        }
    }
    Ok(())
}

/// LoopItem: count passes; past `maximum_loop_count` the loop ends.
fn item_body(spec: &ItemSpec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    if cx.meta().parent.is_none() {
        return Err(RunError::raised(
            "AttributeError",
            "'NoneType' object has no attribute '_param'",
        ));
    }
    let mut s = cx.state();
    let st = s.node_mut(cx.node);
    let idx = Json::from(st.counter);
    let reached =
        py::py_cmp(&idx, &spec.maximum_loop_count, ">=").map_err(RunError::msg)? != Ordering::Less;
    if reached {
        st.counter = -1;
    } else {
        st.counter += 1;
    }
    Ok(())
}

/// `LoopItem.end()`: evaluated before every pass; errors abort the run.
fn item_ended(spec: &ItemSpec, cx: &NodeCx<'_>) -> Result<bool, RunError> {
    if cx.state().node(cx.node).counter == -1 {
        return Ok(true);
    }
    if cx.meta().parent.is_none() {
        return Err(RunError::raised(
            "AttributeError",
            "'NoneType' object has no attribute '_param'",
        ));
    }
    let mut results = Vec::with_capacity(spec.conditions.len());
    for (i, item) in spec.conditions.iter().enumerate() {
        let variable = item.get("variable").filter(|v| py::truthy(v));
        let operator = item.get("operator").filter(|v| py::truthy(v));
        let (Some(variable), Some(operator)) = (variable, operator) else {
            return Err(RunError::value_error("Loop condition is incomplete."));
        };
        let (var_bound, value_bound) = spec.bound.get(i).cloned().unwrap_or_default();
        let var = match cx.read(var_bound.as_ref(), &py::str_of(variable))? {
            Val::Json(j) => j,
            Val::Stream(_) => Json::Null,
        };
        let value = match item
            .get("input_mode")
            .and_then(Json::as_str)
            .unwrap_or("constant")
        {
            "variable" => {
                let exp = item.get("value").map(py::str_of).unwrap_or_default();
                match cx.read(value_bound.as_ref(), &exp)? {
                    Val::Json(j) => j,
                    Val::Stream(_) => Json::Null,
                }
            }
            "constant" => item
                .get("value")
                .cloned()
                .unwrap_or(Json::String(String::new())),
            _ => return Err(RunError::value_error("Invalid input mode.")),
        };
        results.push(evaluate(&var, &py::str_of(operator), &value)?);
    }
    let should_end = match spec.logical_operator.as_str() {
        Some("and") => results.iter().all(|r| *r),
        Some("or") => results.iter().any(|r| *r),
        _ => {
            return Err(RunError::msg(
                "Invalid logical operator,should be 'and' or 'or'.",
            ))
        }
    };
    if should_end {
        cx.state().node_mut(cx.node).counter = -1;
    }
    Ok(should_end)
}

/// `LoopItem.evaluate_condition`, by the runtime type of the variable.
fn evaluate(var: &Json, op: &str, value: &Json) -> Result<bool, RunError> {
    let cmp = |o: &str| py::py_cmp(var, value, o).map_err(RunError::msg);
    let contains = |hay: &str, needle: &Json| -> Result<bool, RunError> {
        match needle {
            Json::String(n) => Ok(hay.contains(n.as_str())),
            other => Err(RunError::msg(format!(
                "'in <string>' requires string as left operand, not {}",
                py::type_name(other)
            ))),
        }
    };
    match var {
        Json::String(s) => match op {
            "contains" => contains(s, value),
            "not contains" => contains(s, value).map(|b| !b),
            "start with" => match value {
                Json::String(v) => Ok(s.starts_with(v.as_str())),
                other => Err(RunError::msg(format!(
                    "startswith first arg must be str or a tuple of str, not {}",
                    py::type_name(other)
                ))),
            },
            "end with" => match value {
                Json::String(v) => Ok(s.ends_with(v.as_str())),
                other => Err(RunError::msg(format!(
                    "endswith first arg must be str or a tuple of str, not {}",
                    py::type_name(other)
                ))),
            },
            "is" => Ok(py::py_eq(var, value)),
            "is not" => Ok(!py::py_eq(var, value)),
            "empty" => Ok(s.is_empty()),
            "not empty" => Ok(!s.is_empty()),
            _ => Err(RunError::msg(format!("Invalid operator: {op}"))),
        },
        Json::Bool(b) => match op {
            // `var is value`: identity holds only between the same boolean.
            "is" => Ok(value == &Json::Bool(*b)),
            "is not" => Ok(value != &Json::Bool(*b)),
            "empty" => Ok(false),
            "not empty" => Ok(true),
            _ => Err(RunError::msg(format!("Invalid operator: {op}"))),
        },
        Json::Number(_) => match op {
            "=" => Ok(py::py_eq(var, value)),
            "≠" => Ok(!py::py_eq(var, value)),
            ">" => Ok(cmp(">")? == Ordering::Greater),
            "<" => Ok(cmp("<")? == Ordering::Less),
            "≥" => Ok(cmp(">=")? != Ordering::Less),
            "≤" => Ok(cmp("<=")? != Ordering::Greater),
            "empty" => Ok(false),
            "not empty" => Ok(true),
            _ => Err(RunError::msg(format!("Invalid operator: {op}"))),
        },
        Json::Object(m) => match op {
            "empty" => Ok(m.is_empty()),
            "not empty" => Ok(!m.is_empty()),
            _ => Err(RunError::msg(format!("Invalid operator: {op}"))),
        },
        Json::Array(a) => match op {
            "contains" => Ok(a.iter().any(|x| py::py_eq(x, value))),
            "not contains" => Ok(!a.iter().any(|x| py::py_eq(x, value))),
            "is" => Ok(py::py_eq(var, value)),
            "is not" => Ok(!py::py_eq(var, value)),
            "empty" => Ok(a.is_empty()),
            "not empty" => Ok(!a.is_empty()),
            _ => Err(RunError::msg(format!("Invalid operator: {op}"))),
        },
        Json::Null => Ok(op == "empty"),
    }
}
