//! Loop and LoopItem: repeat the body while the termination condition does not hold, at most
//! `maximum_loop_count` times (components.md §10–11).

use crate::exec::{NodeCx, RunError};
use crate::value::{py, Json, Map, Val};
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct Spec {
    pub loop_variables: Vec<Json>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            loop_variables: p
                .get("loop_variables")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default(),
        }
    }
}

fn missing(v: Option<&Json>) -> bool {
    matches!(v, None | Some(Json::Null)) || v == Some(&Json::String(String::new()))
}

/// Loop: (re)initialise the loop variables as outputs.
pub fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    for item in &spec.loop_variables {
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
        let name = match item.get("variable") {
            Some(Json::String(s)) => s.clone(),
            Some(other) => py::str_of(other),
            None => String::new(),
        };
        let value = item.get("value").cloned().unwrap_or(Json::Null);
        if item.get("input_mode").and_then(Json::as_str) == Some("variable") {
            let exp = match &value {
                Json::String(s) => s.clone(),
                other => py::str_of(other),
            };
            let v = cx.value(&exp)?;
            cx.set_output(&name, v);
        } else {
            cx.set_output(&name, value);
        }
    }
    Ok(())
}

/// LoopItem: count passes; past `maximum_loop_count` the loop ends.
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
    let max = meta
        .node(parent)
        .params
        .get("maximum_loop_count")
        .cloned()
        .unwrap_or(Json::from(0));
    let mut s = cx.state();
    let st = s.node_mut(cx.node);
    let idx = Json::from(st.counter);
    let reached = py::py_cmp(&idx, &max, ">=").map_err(RunError::msg)? != Ordering::Less;
    if reached {
        st.counter = -1;
    } else {
        st.counter += 1;
    }
    Ok(())
}

/// `LoopItem.end()`: evaluated before every pass; errors abort the run.
pub fn item_ended(cx: &NodeCx<'_>) -> Result<bool, RunError> {
    if cx.state().node(cx.node).counter == -1 {
        return Ok(true);
    }
    let meta = &cx.shared.meta;
    let parent = cx.meta().parent.ok_or_else(|| {
        RunError::raised(
            "AttributeError",
            "'NoneType' object has no attribute '_param'",
        )
    })?;
    let p = &meta.node(parent).params;
    let logical = p
        .get("logical_operator")
        .cloned()
        .unwrap_or(Json::String("and".into()));
    let conditions = p
        .get("loop_termination_condition")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    let mut results = Vec::with_capacity(conditions.len());
    for item in &conditions {
        let variable = item.get("variable").filter(|v| py::truthy(v));
        let operator = item.get("operator").filter(|v| py::truthy(v));
        let (Some(variable), Some(operator)) = (variable, operator) else {
            return Err(RunError::value_error("Loop condition is incomplete."));
        };
        let var = cx.value(&py::str_of(variable))?;
        let var = match var {
            Val::Json(j) => j,
            Val::Stream(_) => Json::Null,
        };
        let value = match item
            .get("input_mode")
            .and_then(Json::as_str)
            .unwrap_or("constant")
        {
            "variable" => match cx.value(&item.get("value").map(py::str_of).unwrap_or_default())? {
                Val::Json(j) => j,
                Val::Stream(_) => Json::Null,
            },
            "constant" => item
                .get("value")
                .cloned()
                .unwrap_or(Json::String(String::new())),
            _ => return Err(RunError::value_error("Invalid input mode.")),
        };
        results.push(evaluate(&var, &py::str_of(operator), &value)?);
    }
    let should_end = match logical.as_str() {
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
