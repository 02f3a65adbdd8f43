//! Jinja2's builtin tests (jinja2/tests.py): `x is odd`, `x is divisibleby 3`, …

use super::args::Args;
use super::error::{Error, Result};
use super::ops;
use super::value::{eq, Value};
use canvasc_value::py;

/// `v is name(*args)`.
pub fn apply(name: &str, v: &Value, args: Args) -> Result<bool> {
    let fname = format!("test_{name}");
    let one = |args: &Args| -> Result<Value> {
        let b = args.bind(&fname, &["other"], 1)?;
        b[0].clone().ok_or_else(|| {
            Error::type_error(format!(
                "{fname}() missing 1 required positional argument: 'other'"
            ))
        })
    };
    let compare = |op: &str| -> Result<bool> { ops::compare(op, v, &one(&args)?) };
    match name {
        "boolean" => Ok(matches!(v, Value::Bool(_))),
        "callable" => Ok(matches!(
            v,
            // `Undefined` defines `__call__` (to raise), so Python finds it callable.
            Value::Callable(_) | Value::Loop(_) | Value::Cycler(_) | Value::Undefined(_)
        )),
        "defined" => Ok(!v.is_undefined()),
        "undefined" => Ok(v.is_undefined()),
        "divisibleby" => {
            let b = args.bind(&fname, &["num"], 1)?;
            let num = b[0].clone().unwrap_or(Value::None);
            Ok(eq(&ops::rem(v, &num)?, &Value::Int(0)))
        }
        "eq" | "equalto" | "==" => compare("=="),
        "ne" | "!=" => compare("!="),
        "lt" | "lessthan" | "<" => compare("<"),
        "le" | "<=" => compare("<="),
        "gt" | "greaterthan" | ">" => compare(">"),
        "ge" | ">=" => compare(">="),
        "in" => {
            let seq = one(&args)?;
            ops::contains(&seq, v)
        }
        "escaped" => Ok(matches!(v, Value::Markup(_))),
        "even" | "odd" => {
            let r = ops::rem(v, &Value::Int(2))?;
            Ok(eq(&r, &Value::Int(i64::from(name == "odd"))))
        }
        "false" => Ok(matches!(v, Value::Bool(false))),
        "true" => Ok(matches!(v, Value::Bool(true))),
        "filter" => Ok(v.as_str().is_some_and(super::names::is_filter)),
        "test" => Ok(v.as_str().is_some_and(super::names::is_test)),
        "float" => Ok(matches!(v, Value::Float(_))),
        "integer" => Ok(matches!(v, Value::Int(_))),
        "number" => Ok(v.is_number()),
        "none" => Ok(matches!(v, Value::None)),
        "string" => Ok(v.as_str().is_some()),
        "mapping" => Ok(matches!(v, Value::Dict(_))),
        "iterable" => Ok(v.iterate().is_ok() && !v.is_undefined() || v.is_undefined()),
        "sequence" => Ok(matches!(
            v,
            Value::Str(_)
                | Value::Markup(_)
                | Value::List(_)
                | Value::Tuple(_)
                | Value::Dict(_)
                | Value::Range(..)
        )),
        "lower" => Ok(py_case(&v.to_str(), false)),
        "upper" => Ok(py_case(&v.to_str(), true)),
        "sameas" => {
            let other = one(&args)?;
            Ok(same(v, &other))
        }
        other => Err(Error::new(
            "TemplateAssertionError",
            format!("No test named {}.", py::repr_str(other)),
        )),
    }
}

/// `str.isupper()` / `str.islower()`.
fn py_case(s: &str, upper: bool) -> bool {
    let cased = s.chars().any(|c| c.is_lowercase() || c.is_uppercase());
    cased
        && if upper {
            !s.chars().any(char::is_lowercase)
        } else {
            !s.chars().any(char::is_uppercase)
        }
}

/// Python `is`: identity for containers, value identity for the interned scalars.
fn same(a: &Value, b: &Value) -> bool {
    use std::rc::Rc;
    match (a, b) {
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Rc::ptr_eq(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => Rc::ptr_eq(x, y),
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y && (-5..=256).contains(x),
        (Value::Str(x), Value::Str(y)) => Rc::ptr_eq(x, y) || x == y,
        _ => false,
    }
}
