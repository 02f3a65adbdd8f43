//! VariableAssigner: rewrite globals and component outputs in place
//! (components.md §19, `agent/component/variable_assigner.py`).

use super::{exp_str, py_get, value_with_variable_json, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::{value_with_template, Template};
use crate::sharing::{mutable, Place};
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_frontend::refs::strip_like_python;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Spec {
    pub variables: Json,
    /// Per item of `variables`, its bindings.
    pub bound: Vec<ItemBinding>,
}

/// The bindings of one assignment.
#[derive(Clone, Debug, Default)]
pub struct ItemBinding {
    /// The assigned expression.
    pub variable: Option<Bound>,
    /// A `parameter` read as an expression (`overwrite`, `append`, `extend`).
    pub parameter: Option<Bound>,
    /// A `parameter` rendered as text (`set`).
    pub text: Option<Template>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            variables: p
                .get("variables")
                .cloned()
                .unwrap_or(Json::Array(Vec::new())),
            bound: Vec::new(),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx).await
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Assign variables from canvas."))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        let Json::Array(items) = &self.variables else {
            return;
        };
        self.bound = items
            .iter()
            .map(|item| {
                let exp = |key: &str| match item.get(key) {
                    Some(Json::String(e)) => r.resolve(e),
                    _ => None,
                };
                let text = match (item.get("operator"), item.get("parameter")) {
                    (Some(Json::String(op)), Some(Json::String(t))) if op == "set" => {
                        let mut tpl = Template::new(t.clone());
                        tpl.bind(r);
                        Some(tpl)
                    }
                    _ => None,
                };
                // Only these operators read `parameter` as an expression; `set` renders it
                // as text and the arithmetic ones take it as a value.
                let reads_expression = matches!(
                    item.get("operator").and_then(Json::as_str),
                    Some("overwrite" | "append" | "extend")
                );
                ItemBinding {
                    variable: exp("variable"),
                    parameter: if reads_expression {
                        exp("parameter")
                    } else {
                        None
                    },
                    text,
                }
            })
            .collect();
    }
}

/// Operators that take no parameter.
const NO_PARAMETER: &[&str] = &["clear", "remove_first", "remove_last"];

const NOT_LIST: &str = "ERROR:VARIABLE_NOT_LIST";
const NOT_NUMBER: &str = "ERROR:VARIABLE_NOT_NUMBER or PARAMETER_NOT_NUMBER";

fn incomplete() -> RunError {
    RunError::value_error("Variable is not complete.")
}

async fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    // A non-list `variables` makes the node a no-op.
    let Json::Array(items) = &spec.variables else {
        return Ok(());
    };
    let unbound = ItemBinding::default();
    for (i, item) in items.iter().enumerate() {
        let b = spec.bound.get(i).unwrap_or(&unbound);
        let variable = py_get(item, "variable")?.cloned().unwrap_or(Json::Null);
        let operator = py_get(item, "operator")?.cloned().unwrap_or(Json::Null);
        let parameter = py_get(item, "parameter")?.cloned().unwrap_or(Json::Null);
        if !py::truthy(&variable) || !py::truthy(&operator) {
            return Err(incomplete());
        }
        let op = match &operator {
            Json::String(s) => s.as_str(),
            Json::Array(_) | Json::Object(_) => {
                return Err(RunError::type_error(format!(
                    "unhashable type: '{}'",
                    py::type_name(&operator)
                )))
            }
            // Another scalar is a valid set member that matches no operator.
            _ => "",
        };
        if !NO_PARAMETER.contains(&op) && parameter.is_null() {
            return Err(incomplete());
        }
        let exp = exp_str(&variable)?;
        let current = match cx.read(b.variable.as_ref(), exp)? {
            Val::Json(j) => Some(j),
            // An unconsumed stream is an opaque object to every operator.
            Val::Stream(_) => None,
        };
        // `append` to a list edits that list in place (Python's `list.append`).
        let appends_in_place = op == "append" && matches!(current, Some(Json::Array(_)));
        let new = operate(cx, b, current, op, &parameter).await?;
        let in_place = appends_in_place && matches!(new, Val::Json(Json::Array(_)));
        let overwrites_with_object =
            op == "overwrite" && matches!(&new, Val::Json(j) if mutable(j));
        // The appended dict or list is itself the new element: editing it edits the list.
        let appended_object = match &new {
            Val::Json(Json::Array(items)) if op == "append" => items
                .last()
                .filter(|last| mutable(last))
                .map(|_| items.len() - 1),
            _ => None,
        };
        assign(cx, exp, new, in_place)?;
        if let Some(index) = appended_object {
            let meta = &cx.shared.meta;
            if let (Some(list), Some(element)) = (
                Place::of_reference(meta, exp),
                Place::of_reference(meta, exp_str(&parameter)?),
            ) {
                cx.state().share_element(list, index, element);
            }
        }
        if overwrites_with_object {
            // `overwrite` stores the parameter's own object: both names now hold it.
            let meta = &cx.shared.meta;
            let source = exp_str(&parameter)?;
            if let (Some(holder), Some(source)) = (
                Place::of_reference(meta, exp),
                Place::of_reference(meta, source),
            ) {
                cx.state().share(holder, source);
            }
        }
    }
    Ok(())
}

/// `set_variable_value(exp, value)`. A stream can only be stored as a component's whole output;
/// anywhere else it has no JSON form and is stored as `None`.
fn assign(cx: &NodeCx<'_>, exp: &str, value: Val, in_place: bool) -> Result<(), RunError> {
    let meta = &cx.shared.meta;
    match value {
        Val::Json(j) if in_place => cx.state().set_variable_value_in_place(meta, exp, j),
        Val::Json(j) => cx.state().set_variable_value(meta, exp, j),
        Val::Stream(s) => {
            let stripped = strip_like_python(exp);
            if let Some((cpn, var)) = stripped.split_once('@') {
                if let (Some(node), false) = (meta.find(cpn), var.contains('.')) {
                    cx.state().node_mut(node).set_output(var, Val::Stream(s));
                    return Ok(());
                }
            }
            cx.state().set_variable_value(meta, exp, Json::Null)
        }
    }
}

fn text(s: &str) -> Val {
    Val::Json(Json::String(s.to_string()))
}

/// `VariableAssigner._operate`. `current` is `None` for an unconsumed stream.
async fn operate(
    cx: &NodeCx<'_>,
    b: &ItemBinding,
    current: Option<Json>,
    op: &str,
    parameter: &Json,
) -> Result<Val, RunError> {
    let read_parameter = || cx.read(b.parameter.as_ref(), exp_str(parameter)?);
    Ok(match op {
        "overwrite" => read_parameter()?,
        "clear" => Val::Json(match current {
            Some(Json::Array(_)) => Json::Array(Vec::new()),
            Some(Json::String(_)) => Json::String(String::new()),
            Some(Json::Object(_)) => Json::Object(Map::new()),
            Some(Json::Bool(_)) => Json::Bool(false),
            Some(Json::Number(n)) if n.is_f64() => Json::from(0.0),
            Some(Json::Number(_)) => Json::from(0),
            _ => Json::Null,
        }),
        "set" => match current {
            Some(Json::Null | Json::String(_)) => Val::Json(Json::String(match &b.text {
                Some(tpl) => value_with_template(cx, tpl).await?,
                None => value_with_variable_json(cx, parameter).await?,
            })),
            _ => Val::Json(parameter.clone()),
        },
        "append" => {
            let p = read_parameter()?;
            match current {
                Some(Json::Null) => Val::Json(Json::Array(vec![super::json_of(p)])),
                Some(Json::Array(mut list)) => match (&p, list.first()) {
                    (Val::Json(pj), Some(first)) if !is_instance(pj, first) => {
                        text("ERROR:PARAMETER_NOT_LIST_ELEMENT_TYPE")
                    }
                    (Val::Stream(_), Some(_)) => text("ERROR:PARAMETER_NOT_LIST_ELEMENT_TYPE"),
                    _ => {
                        list.push(super::json_of(p));
                        Val::Json(Json::Array(list))
                    }
                },
                _ => text(NOT_LIST),
            }
        }
        "extend" => {
            let p = read_parameter()?;
            let list = match current {
                Some(Json::Null) => Vec::new(),
                Some(Json::Array(list)) => list,
                _ => return Ok(text(NOT_LIST)),
            };
            let Val::Json(Json::Array(more)) = p else {
                return Ok(text("ERROR:PARAMETER_NOT_LIST"));
            };
            if let (Some(first), Some(p0)) = (list.first(), more.first()) {
                if !is_instance(p0, first) {
                    return Ok(text("ERROR:PARAMETER_NOT_LIST_ELEMENT_TYPE"));
                }
            }
            let mut out = list;
            out.extend(more);
            Val::Json(Json::Array(out))
        }
        "remove_first" | "remove_last" => match current {
            Some(Json::Array(mut list)) => {
                if !list.is_empty() {
                    if op == "remove_first" {
                        list.remove(0);
                    } else {
                        list.pop();
                    }
                }
                Val::Json(Json::Array(list))
            }
            _ => text(NOT_LIST),
        },
        "+=" | "-=" | "*=" | "/=" => match current {
            Some(Json::Number(a)) => match parameter {
                Json::Number(b) => arithmetic(&a, b, op),
                _ => text(NOT_NUMBER),
            },
            _ => text(NOT_NUMBER),
        },
        _ => Val::NULL,
    })
}

/// `isinstance(value, type(first))` for JSON types: `bool` is an `int`, an `int` is no `float`.
fn is_instance(value: &Json, first: &Json) -> bool {
    match first {
        Json::Null => value.is_null(),
        Json::Bool(_) => value.is_boolean(),
        Json::Number(n) if n.is_f64() => matches!(value, Json::Number(m) if m.is_f64()),
        Json::Number(_) => value.is_boolean() || matches!(value, Json::Number(m) if !m.is_f64()),
        Json::String(_) => value.is_string(),
        Json::Array(_) => value.is_array(),
        Json::Object(_) => value.is_object(),
    }
}

/// Python arithmetic on two numbers (booleans excluded by the caller): int op int stays an int
/// except for true division; anything with a float is a float.
fn arithmetic(a: &serde_json::Number, b: &serde_json::Number, op: &str) -> Val {
    let int = |n: &serde_json::Number| -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    let fa = a.as_f64().unwrap_or(0.0);
    let fb = b.as_f64().unwrap_or(0.0);
    if op == "/=" && fb == 0.0 {
        return text("ERROR:DIVIDE_BY_ZERO");
    }
    if let (Some(x), Some(y), false) = (int(a), int(b), op == "/=") {
        let r = match op {
            "+=" => x.checked_add(y),
            "-=" => x.checked_sub(y),
            _ => x.checked_mul(y),
        };
        if let Some(r) = r {
            if let Ok(i) = i64::try_from(r) {
                return Val::Json(Json::from(i));
            }
            if let Ok(u) = u64::try_from(r) {
                return Val::Json(Json::from(u));
            }
        }
        // Beyond 64 bits Python keeps an exact big int; a JSON value can only hold a float.
    }
    let r = match op {
        "+=" => fa + fb,
        "-=" => fa - fb,
        "*=" => fa * fb,
        _ => fa / fb,
    };
    // `inf`/`nan` have no JSON form.
    Val::Json(serde_json::Number::from_f64(r).map_or(Json::Null, Json::Number))
}
