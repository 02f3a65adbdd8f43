//! Switch: route to the first case whose conditions hold, else to the ELSE targets
//! (components.md §6, `agent/component/switch.py`).

use super::{exp_str, py_get, py_getitem, py_iter, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct Spec {
    pub conditions: Json,
    pub end_cpn_ids: Json,
    /// Per condition, per item: the binding of its `cpn_id`.
    pub bound: Vec<Vec<Option<Bound>>>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            conditions: p
                .get("conditions")
                .cloned()
                .unwrap_or(Json::Array(Vec::new())),
            end_cpn_ids: p
                .get("end_cpn_ids")
                .cloned()
                .unwrap_or(Json::Array(Vec::new())),
            bound: Vec::new(),
        }
    }

    fn binding(&self, cond: usize, item: usize) -> Option<&Bound> {
        self.bound.get(cond)?.get(item)?.as_ref()
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx)
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed(
            "I’m weighing a few options and will pick the next step shortly.",
        ))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        let items = |cond: &Json| -> Vec<Option<Bound>> {
            cond.get("items")
                .and_then(Json::as_array)
                .map(|items| {
                    items
                        .iter()
                        .map(|item| match item.get("cpn_id") {
                            Some(Json::String(exp)) if !exp.is_empty() => r.resolve(exp),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        self.bound = match &self.conditions {
            Json::Array(conds) => conds.iter().map(items).collect(),
            _ => Vec::new(),
        };
    }
}

/// The left-hand value: JSON, or an unconsumed stream (Python's `functools.partial`, a truthy
/// object that is neither a number nor a string).
enum Left {
    Json(Json),
    Stream,
}

/// The operand after Python's `float(operatee)` (numeric left values only) or as written.
/// `float()` can yield `inf`/`nan`, which a JSON number cannot hold.
#[derive(Clone, Debug)]
enum Operand {
    Json(Json),
    Float(f64),
}

impl Operand {
    fn as_str(&self) -> String {
        match self {
            Operand::Json(Json::Null) => String::new(),
            Operand::Json(v) => py::str_of(v),
            Operand::Float(f) => py::float_repr(*f),
        }
    }

    fn to_float(&self) -> Result<f64, String> {
        match self {
            Operand::Json(v) => py::to_float(v),
            Operand::Float(f) => Ok(*f),
        }
    }
}

fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    for (c, cond) in py_iter(&spec.conditions)?.into_iter().enumerate() {
        if cx.check_canceled() {
            return Ok(());
        }
        let mut res: Vec<bool> = Vec::new();
        for (i, item) in py_iter(py_getitem(&cond, "items")?)?
            .into_iter()
            .enumerate()
        {
            if cx.check_canceled() {
                return Ok(());
            }
            let cpn_id = py_getitem(&item, "cpn_id")?;
            if !py::truthy(cpn_id) {
                continue;
            }
            let key = exp_str(cpn_id)?;
            let left = match cx.read(spec.binding(c, i), key)? {
                Val::Json(j) => Left::Json(j),
                Val::Stream(_) => Left::Stream,
            };
            let recorded = match &left {
                Left::Json(j) => j.clone(),
                Left::Stream => Json::Null,
            };
            cx.set_input_value(key, recorded);
            let raw = py_get(&item, "value")?
                .cloned()
                .unwrap_or(Json::String(String::new()));
            // `isinstance(cpn_v, numbers.Number)` holds for ints, floats and booleans.
            let operand = match &left {
                Left::Json(Json::Number(_) | Json::Bool(_)) => {
                    Operand::Float(py::to_float(&raw).map_err(float_error(&raw))?)
                }
                _ => Operand::Json(raw),
            };
            let operator = py_getitem(&item, "operator")?;
            res.push(process_operator(&left, operator, &operand)?);
            let logical = py_getitem(&cond, "logical_operator")?;
            if logical != &Json::String("and".into()) && res.iter().any(|r| *r) {
                return route(cx, py_getitem(&cond, "to")?);
            }
        }
        if !res.is_empty() && res.iter().all(|r| *r) {
            return route(cx, py_getitem(&cond, "to")?);
        }
    }
    route(cx, &spec.end_cpn_ids)
}

/// `float(x)` fails with `ValueError` for strings and `TypeError` for other types.
fn float_error(raw: &Json) -> impl FnOnce(String) -> RunError + '_ {
    move |m| match raw {
        Json::String(_) => RunError::value_error(m),
        _ => RunError::type_error(m),
    }
}

/// `next` = the targets' display names (`""` for unknown ids), `_next` = the targets as written.
fn route(cx: &NodeCx<'_>, to: &Json) -> Result<(), RunError> {
    let names: Vec<Json> = py_iter(to)?
        .iter()
        .map(|id| match id {
            Json::String(id) => Json::String(cx.shared.meta.display_name(id)),
            _ => Json::String(String::new()),
        })
        .collect();
    cx.set_output("next", Json::Array(names));
    cx.set_output("_next", to.clone());
    Ok(())
}

/// `Switch.process_operator`.
fn process_operator(left: &Left, operator: &Json, value: &Operand) -> Result<bool, RunError> {
    let op = match operator {
        Json::String(s) => s.as_str(),
        _ => "",
    };
    let text = |l: &Left| match l {
        Left::Json(Json::Null) => String::new(),
        Left::Json(v) => py::str_of(v),
        // `str(partial)` names a memory address; it contains no user text.
        Left::Stream => String::new(),
    };
    match op {
        "contains" => {
            return Ok(text(left)
                .to_lowercase()
                .contains(&value.as_str().to_lowercase()))
        }
        "not contains" => {
            return Ok(!text(left)
                .to_lowercase()
                .contains(&value.as_str().to_lowercase()))
        }
        "start with" => {
            return Ok(text(left)
                .to_lowercase()
                .starts_with(&value.as_str().to_lowercase()))
        }
        "end with" => {
            return Ok(text(left)
                .to_lowercase()
                .ends_with(&value.as_str().to_lowercase()))
        }
        _ => {}
    }
    let truthy = match left {
        Left::Json(v) => py::truthy(v),
        Left::Stream => true,
    };
    match op {
        "empty" => Ok(!truthy),
        "not empty" => Ok(truthy),
        "=" => Ok(equal(left, value)),
        "≠" => Ok(!equal(left, value)),
        ">" => compare(left, value, ">"),
        "<" => compare(left, value, "<"),
        "≥" => compare(left, value, ">="),
        "≤" => compare(left, value, "<="),
        _ => Err(RunError::value_error(format!(
            "Not supported operator: {}",
            py::str_of(operator)
        ))),
    }
}

fn equal(left: &Left, value: &Operand) -> bool {
    let Left::Json(l) = left else { return false };
    match value {
        Operand::Json(v) => py::py_eq(l, v),
        Operand::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(n) => py::py_eq(l, &Json::Number(n)),
            // A number never equals `nan`, and no int or finite float equals `±inf`.
            None => false,
        },
    }
}

/// `float(l) <op> float(r)`, or `l <op> r` when either conversion fails.
fn compare(left: &Left, value: &Operand, op: &str) -> Result<bool, RunError> {
    let Left::Json(l) = left else {
        // `float(partial)` fails, and `partial <op> x` is unsupported for any operand.
        let r = match value {
            Operand::Json(v) => py::type_name(v),
            Operand::Float(_) => "float",
        };
        return Err(RunError::type_error(format!(
            "'{op}' not supported between instances of 'partial' and '{r}'"
        )));
    };
    if let (Ok(a), Ok(b)) = (py::to_float(l), value.to_float()) {
        return Ok(match op {
            ">" => a > b,
            "<" => a < b,
            ">=" => a >= b,
            _ => a <= b,
        });
    }
    let Operand::Json(r) = value else {
        // A float operand only exists when the left value is a number, which always converts.
        return Ok(false);
    };
    let ord = py::py_cmp(l, r, op).map_err(RunError::type_error)?;
    Ok(match op {
        ">" => ord == Ordering::Greater,
        "<" => ord == Ordering::Less,
        ">=" => ord != Ordering::Less,
        _ => ord != Ordering::Greater,
    })
}
