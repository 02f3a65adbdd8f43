//! Attribute and item access as Jinja2's sandbox does it: `x.name` tries the attribute, then
//! the item; `x[key]` tries the item, then the attribute; a miss is an `Undefined`. Names with
//! a leading underscore are unsafe in the sandbox and always miss.

use super::error::{Error, Result};
use super::methods;
use super::value::{Callable, Value};
use std::rc::Rc;

/// `obj.name`.
pub fn get_attr(obj: &Value, name: &str) -> Value {
    if let Some(v) = attribute(obj, name) {
        return v;
    }
    match item(obj, &Value::str(name)) {
        Some(v) => v,
        None => Value::missing_on(obj, Value::str(name)),
    }
}

/// `obj[key]`.
pub fn get_item(obj: &Value, key: &Value) -> Value {
    if let Some(v) = item(obj, key) {
        return v;
    }
    if let Some(name) = key.as_str() {
        if let Some(v) = attribute(obj, name) {
            return v;
        }
    }
    Value::missing_on(obj, key.clone())
}

/// `getattr(obj, name)` alone (the `attr` filter): no item fallback.
pub fn attribute_only(obj: &Value, name: &str) -> Value {
    attribute(obj, name).unwrap_or_else(|| Value::missing_on(obj, Value::str(name)))
}

/// The Python attribute (a method, a loop or namespace field), if any.
fn attribute(obj: &Value, name: &str) -> Option<Value> {
    if name.starts_with('_') {
        return None;
    }
    match obj {
        Value::Loop(state) => state.attr(name),
        Value::Namespace(ns) => ns
            .borrow()
            .iter()
            .find(|(k, _)| k.as_str() == Some(name))
            .map(|(_, v)| v.clone()),
        Value::Cycler(c) if name == "current" => {
            let c = c.borrow();
            c.0.get(c.1).cloned()
        }
        Value::Cycler(c) if name == "items" => Some(Value::list(c.borrow().0.clone())),
        // `groupby` yields `(grouper, list)` named tuples.
        Value::Tuple(t) if t.len() == 2 && matches!(name, "grouper" | "list") => {
            Some(t[usize::from(name == "list")].clone())
        }
        _ => methods::lookup(obj, name)
            .map(|m| Value::Callable(Rc::new(Callable::Method(obj.clone(), m)))),
    }
}

/// Python `obj[key]`, `None` where Python raises (the sandbox turns that into a miss).
fn item(obj: &Value, key: &Value) -> Option<Value> {
    match obj {
        Value::Dict(d) => d
            .borrow()
            .iter()
            .find(|(k, _)| super::value::eq(k, key))
            .map(|(_, v)| v.clone()),
        Value::Str(_) | Value::Markup(_) | Value::List(_) | Value::Tuple(_) | Value::Range(..) => {
            let i = key.as_int()?;
            let items = obj.iterate().ok()?;
            let n = items.len() as i64;
            let i = if i < 0 { i + n } else { i };
            if (0..n).contains(&i) {
                items.into_iter().nth(i as usize)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `obj[start:stop:step]`.
pub fn slice(obj: &Value, start: &Value, stop: &Value, step: &Value) -> Result<Value> {
    let index = |v: &Value| -> Result<Option<i64>> {
        match v {
            Value::None => Ok(None),
            v => v.as_int().map(Some).ok_or_else(|| {
                Error::type_error(
                    "slice indices must be integers or None or have an __index__ method",
                )
            }),
        }
    };
    let (start, stop, step) = (index(start)?, index(stop)?, index(step)?.unwrap_or(1));
    if step == 0 {
        return Err(Error::value_error("slice step cannot be zero"));
    }
    let items = match obj {
        Value::Range(a, _, s) => {
            let len = obj.len()? as i64;
            let (i, j) = slice_bounds(len, start, stop, step);
            return Ok(Value::Range(a + i * s, a + j * s, s * step));
        }
        Value::Str(_) | Value::Markup(_) | Value::List(_) | Value::Tuple(_) => obj.iterate()?,
        Value::Undefined(_) => return Err(super::value::undefined_error(obj)),
        // The sandbox's `getitem` turns the `TypeError` into an undefined value.
        v => return Ok(Value::missing_on(v, Value::None)),
    };
    let picked = slice_indices(items.len() as i64, start, stop, step)
        .into_iter()
        .map(|i| items[i].clone())
        .collect::<Vec<_>>();
    Ok(match obj {
        Value::Str(_) | Value::Markup(_) => {
            Value::str(picked.iter().map(Value::to_str).collect::<String>())
        }
        Value::Tuple(_) => Value::tuple(picked),
        _ => Value::list(picked),
    })
}

/// Python's `slice(start, stop, step).indices(len)`: the start and stop walked.
fn slice_bounds(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> (i64, i64) {
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + len } else { v };
    let (lo, hi) = if step > 0 { (0, len) } else { (-1, len - 1) };
    let start = start.map_or(if step > 0 { lo } else { hi }, |s| clamp(norm(s), lo, hi));
    let stop = stop.map_or(if step > 0 { hi } else { lo }, |s| clamp(norm(s), lo, hi));
    (start, stop)
}

/// The indices Python's `slice(start, stop, step).indices(len)` walks.
pub fn slice_indices(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
    let (start, stop) = slice_bounds(len, start, stop, step);
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    out
}
