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

#[cfg(test)]
mod tests {
    /// Each case runs `begin → X:T` (see `testkit`); each expected line is what RAGFlow's engine
    /// (the reference oracle) reported for it: X:T's `node_finished` inputs, outputs and error,
    /// an aborted run's exception, and `env.*` when it changed.
    const CASES: &str = r###"[
{"name": "contains_ignores_case", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "contains", "value": "WORLD"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "contains_misses", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "contains", "value": "xyz"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "not_contains", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "not contains", "value": "xyz"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "start_with", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "start with", "value": "hello"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "end_with_and", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "end with", "value": "WORLD"}, {"cpn_id": "env.s", "operator": "start with", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "contains_number_as_text", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.f", "operator": "contains", "value": "2.5"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "contains_list_repr", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.l", "operator": "contains", "value": "[1, 2"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "empty_string", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.e", "operator": "empty", "value": ""}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "empty_list_not_empty", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.l", "operator": "not empty", "value": ""}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "empty_number_fails_float", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.n", "operator": "empty", "value": ""}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "eq_string_exact_case", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "=", "value": "hello world"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "ne_string", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "≠", "value": "hello world"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "eq_number_vs_float_text", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.n", "operator": "=", "value": "5"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "eq_bool_is_number", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.t", "operator": "=", "value": "1"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "number_bad_operand", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.n", "operator": ">", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "gt_numeric_strings", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.num", "operator": ">", "value": "9"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "gt_text_lexicographic", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.b", "operator": ">", "value": "a"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "lt_number", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.f", "operator": "<", "value": "3"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "ge_le", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.n", "operator": "≥", "value": "5"}, {"cpn_id": "env.n", "operator": "≤", "value": "5"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "lt_list_vs_str_type_error", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.l", "operator": "<", "value": "3"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "ge_dict_type_error", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.o", "operator": "≥", "value": "a"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "unknown_operator", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "~", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "or_short_circuits", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "contains", "value": "hello"}, {"cpn_id": "env.missing", "operator": "=", "value": "x"}], "logical_operator": "or", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "and_evaluates_all", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "contains", "value": "hello"}, {"cpn_id": "env.missing", "operator": "=", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "skipped_items_never_match", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "", "operator": "=", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "missing_logical_operator", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "contains", "value": "h"}], "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "none_left_value", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "Dummy:N@none", "operator": "empty", "value": "x"}, {"cpn_id": "Dummy:N@none", "operator": "contains", "value": ""}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "default_operand_missing_value", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.e", "operator": "="}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "second_case_matches", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "env.s", "operator": "=", "value": "nope"}], "logical_operator": "and", "to": ["Message:A"]}, {"items": [{"cpn_id": "{env.n}", "operator": "≥", "value": "4.5"}], "logical_operator": "and", "to": ["Message:B", "Message:Gone"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]},
{"name": "unknown_component", "kind": "Switch", "params": {"conditions": [{"items": [{"cpn_id": "Nope:X@y", "operator": "=", "value": "x"}], "logical_operator": "and", "to": ["Message:A"]}], "end_cpn_ids": ["Message:B"]}, "env": {"s": "Hello World", "n": 5, "f": 2.5, "l": [1, 2], "e": "", "t": true, "num": "10", "b": "b", "o": {"k": 1}}, "extra": {"Message:A": {"obj": {"component_name": "Message", "params": {"content": ["a"]}}, "downstream": [], "upstream": ["X:T"]}, "Message:B": {"obj": {"component_name": "Message", "params": {"content": ["b"]}}, "downstream": [], "upstream": ["X:T"]}}, "names": {"Message:A": "Alpha", "Message:B": "Beta", "X:T": "Switch"}, "down": ["Message:A", "Message:B"]}
]"###;

    const EXPECTED: &str = r###"
{"name": "contains_ignores_case", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "contains_misses", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Beta"], "_next": ["Message:B"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "not_contains", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "start_with", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "end_with_and", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Beta"], "_next": ["Message:B"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "contains_number_as_text", "inputs": {"env.f": 2.5}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "contains_list_repr", "inputs": {"env.l": [1, 2]}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "empty_string", "inputs": {"env.e": ""}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "empty_list_not_empty", "inputs": {"env.l": [1, 2]}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "empty_number_fails_float", "inputs": {"env.n": 5}, "outputs": {"_ERROR": "could not convert string to float: ''"}, "error": "could not convert string to float: ''", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "eq_string_exact_case", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Beta"], "_next": ["Message:B"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "ne_string", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "eq_number_vs_float_text", "inputs": {"env.n": 5}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "eq_bool_is_number", "inputs": {"env.t": true}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "number_bad_operand", "inputs": {"env.n": 5}, "outputs": {"_ERROR": "could not convert string to float: 'x'"}, "error": "could not convert string to float: 'x'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "gt_numeric_strings", "inputs": {"env.num": "10"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "gt_text_lexicographic", "inputs": {"env.b": "b"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "lt_number", "inputs": {"env.f": 2.5}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "ge_le", "inputs": {"env.n": 5}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "lt_list_vs_str_type_error", "inputs": {"env.l": [1, 2]}, "outputs": {"_ERROR": "'<' not supported between instances of 'list' and 'str'"}, "error": "'<' not supported between instances of 'list' and 'str'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "ge_dict_type_error", "inputs": {"env.o": {"k": 1}}, "outputs": {"_ERROR": "'>=' not supported between instances of 'dict' and 'str'"}, "error": "'>=' not supported between instances of 'dict' and 'str'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "unknown_operator", "inputs": {"env.s": "Hello World"}, "outputs": {"_ERROR": "Not supported operator: ~"}, "error": "Not supported operator: ~", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "or_short_circuits", "inputs": {"env.s": "Hello World"}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "and_evaluates_all", "inputs": {"env.s": "Hello World"}, "outputs": {"_ERROR": "'env.missing'"}, "error": "'env.missing'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "skipped_items_never_match", "inputs": {}, "outputs": {"next": ["Beta"], "_next": ["Message:B"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "missing_logical_operator", "inputs": {"env.s": "Hello World"}, "outputs": {"_ERROR": "'logical_operator'"}, "error": "'logical_operator'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "none_left_value", "inputs": {"Dummy:N@none": null}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "default_operand_missing_value", "inputs": {"env.e": ""}, "outputs": {"next": ["Alpha"], "_next": ["Message:A"]}, "error": null, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "second_case_matches", "inputs": {"env.s": "Hello World", "{env.n}": 5}, "outputs": {"next": ["Beta", ""], "_next": ["Message:B", "Message:Gone"]}, "error": null, "exception": {"type": "TypeError", "message": "'NoneType' object is not subscriptable"}, "thoughts": "I’m weighing a few options and will pick the next step shortly."}
{"name": "unknown_component", "inputs": {}, "outputs": {"_ERROR": "Can't find variable: 'Nope:X@y'"}, "error": "Can't find variable: 'Nope:X@y'", "thoughts": "I’m weighing a few options and will pick the next step shortly."}
"###;

    #[test]
    fn behaves_like_ragflow() {
        super::super::testkit::check_cases(CASES, EXPECTED);
    }
}
