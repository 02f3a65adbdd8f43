//! Python's operators on template values: `+ - * / // % **`, unary minus, `~`, `in`.
//! Mixed types raise the `TypeError` Python raises; ints are checked, never wrapped.

use super::error::{Error, Result};
use super::format::percent_format;
use super::limits::MAX_OUTPUT;
use super::value::{cmp, eq, undefined_error, Value, ViewKind};

fn unsupported(op: &str, a: &Value, b: &Value) -> Error {
    Error::type_error(format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        a.type_name(),
        b.type_name()
    ))
}

fn check_undefined(a: &Value, b: &Value) -> Result<()> {
    for v in [a, b] {
        if v.is_undefined() {
            return Err(undefined_error(v));
        }
    }
    Ok(())
}

/// Integer or float arithmetic on two numbers, `None` when either is no number.
fn numeric(
    a: &Value,
    b: &Value,
    int: impl Fn(i64, i64) -> Result<Value>,
    float: impl Fn(f64, f64) -> Result<Value>,
) -> Option<Result<Value>> {
    if !a.is_number() || !b.is_number() {
        return None;
    }
    Some(match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => int(x, y),
        _ => float(a.as_f64()?, b.as_f64()?),
    })
}

fn checked(v: Option<i64>) -> Result<Value> {
    v.map(Value::Int).ok_or_else(Error::overflow)
}

pub fn add(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    if let Some(r) = numeric(
        a,
        b,
        |x, y| checked(x.checked_add(y)),
        |x, y| Ok(Value::Float(x + y)),
    ) {
        return r;
    }
    match (a, b) {
        (x, y) if x.as_str().is_some() && y.as_str().is_some() => {
            let (x, y) = (x.as_str().unwrap_or(""), y.as_str().unwrap_or(""));
            Ok(Value::str(format!("{x}{y}")))
        }
        (Value::List(x), Value::List(y)) => {
            let mut items = x.borrow().clone();
            items.extend(y.borrow().iter().cloned());
            Ok(Value::list(items))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            Ok(Value::tuple(x.iter().chain(y.iter()).cloned().collect()))
        }
        (Value::Str(_) | Value::Markup(_) | Value::List(_) | Value::Tuple(_), y) => {
            Err(Error::type_error(format!(
                "can only concatenate {} (not \"{}\") to {}",
                a.type_name(),
                y.type_name(),
                a.type_name()
            )))
        }
        _ => Err(unsupported("+", a, b)),
    }
}

pub fn sub(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    numeric(
        a,
        b,
        |x, y| checked(x.checked_sub(y)),
        |x, y| Ok(Value::Float(x - y)),
    )
    .unwrap_or_else(|| Err(unsupported("-", a, b)))
}

pub fn mul(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    if let Some(r) = numeric(
        a,
        b,
        |x, y| checked(x.checked_mul(y)),
        |x, y| Ok(Value::Float(x * y)),
    ) {
        return r;
    }
    let (seq, n) = match (a, b) {
        (s, n) if n.as_int().is_some() && !s.is_number() => (s, n.as_int().unwrap_or(0)),
        (n, s) if n.as_int().is_some() && !s.is_number() => (s, n.as_int().unwrap_or(0)),
        _ => {
            let seq_side = [a, b]
                .into_iter()
                .find(|v| matches!(v, Value::Str(_) | Value::List(_) | Value::Tuple(_)));
            return Err(match seq_side {
                Some(_) => {
                    let other = if seq_side.is_some_and(|s| std::ptr::eq(s, a)) {
                        b
                    } else {
                        a
                    };
                    Error::type_error(format!(
                        "can't multiply sequence by non-int of type '{}'",
                        other.type_name()
                    ))
                }
                None => unsupported("*", a, b),
            });
        }
    };
    let n = usize::try_from(n).unwrap_or(0);
    let guard = |len: usize| {
        if len.saturating_mul(n) > MAX_OUTPUT {
            Err(Error::new("MemoryError", ""))
        } else {
            Ok(())
        }
    };
    match seq {
        Value::Str(s) | Value::Markup(s) => {
            guard(s.len())?;
            Ok(Value::str(s.repeat(n)))
        }
        Value::List(l) => {
            let l = l.borrow();
            guard(l.len())?;
            Ok(Value::list(repeat(&l, n)))
        }
        Value::Tuple(t) => {
            guard(t.len())?;
            Ok(Value::tuple(repeat(t, n)))
        }
        _ => Err(unsupported("*", a, b)),
    }
}

fn repeat(items: &[Value], n: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(items.len() * n);
    for _ in 0..n {
        out.extend(items.iter().cloned());
    }
    out
}

pub fn div(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    if !a.is_number() || !b.is_number() {
        return Err(unsupported("/", a, b));
    }
    let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
    if y == 0.0 {
        let both_int = a.as_int().is_some() && b.as_int().is_some();
        return Err(zero(if both_int {
            "division by zero"
        } else {
            "float division by zero"
        }));
    }
    Ok(Value::Float(x / y))
}

fn zero(message: &str) -> Error {
    Error::new("ZeroDivisionError", message)
}

/// Python's float `divmod`: the floored quotient and a remainder with the divisor's sign.
fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut d = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            d -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    let q = if d != 0.0 {
        let f = d.floor();
        if d - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(x / y)
    };
    (q, m)
}

pub fn floordiv(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    numeric(
        a,
        b,
        |x, y| {
            if y == 0 {
                return Err(zero("integer division or modulo by zero"));
            }
            checked(floor_div_i64(x, y))
        },
        |x, y| {
            if y == 0.0 {
                return Err(zero("float floor division by zero"));
            }
            Ok(Value::Float(float_divmod(x, y).0))
        },
    )
    .unwrap_or_else(|| Err(unsupported("//", a, b)))
}

fn floor_div_i64(x: i64, y: i64) -> Option<i64> {
    let q = x.checked_div(y)?;
    let r = x.checked_rem(y)?;
    Some(if r != 0 && ((r < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

fn floor_mod_i64(x: i64, y: i64) -> Option<i64> {
    let r = x.checked_rem(y)?;
    Some(if r != 0 && ((r < 0) != (y < 0)) {
        r + y
    } else {
        r
    })
}

pub fn rem(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    if let Some(s) = a.as_str() {
        return percent_format(s, b).map(Value::str);
    }
    numeric(
        a,
        b,
        |x, y| {
            if y == 0 {
                return Err(zero("integer modulo by zero"));
            }
            checked(floor_mod_i64(x, y))
        },
        |x, y| {
            if y == 0.0 {
                return Err(zero("float modulo"));
            }
            Ok(Value::Float(float_divmod(x, y).1))
        },
    )
    .unwrap_or_else(|| Err(unsupported("%", a, b)))
}

pub fn pow(a: &Value, b: &Value) -> Result<Value> {
    check_undefined(a, b)?;
    numeric(
        a,
        b,
        |x, y| {
            if y < 0 {
                if x == 0 {
                    return Err(zero("0.0 cannot be raised to a negative power"));
                }
                return Ok(Value::Float((x as f64).powf(y as f64)));
            }
            let e = u32::try_from(y).map_err(|_| Error::overflow())?;
            checked(x.checked_pow(e))
        },
        |x, y| {
            if x == 0.0 && y < 0.0 {
                return Err(zero("0.0 cannot be raised to a negative power"));
            }
            let r = x.powf(y);
            if r.is_nan() && !x.is_nan() && !y.is_nan() {
                // Python returns a complex number here; templates cannot print one faithfully.
                return Err(Error::value_error("math domain error"));
            }
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(Error::new(
                    "OverflowError",
                    "(34, 'Numerical result out of range')",
                ));
            }
            Ok(Value::Float(r))
        },
    )
    .unwrap_or_else(|| Err(unsupported("** or pow()", a, b)))
}

pub fn neg(a: &Value) -> Result<Value> {
    match a {
        Value::Undefined(_) => Err(undefined_error(a)),
        Value::Bool(_) | Value::Int(_) => checked(a.as_int().and_then(i64::checked_neg)),
        Value::Float(f) => Ok(Value::Float(-f)),
        _ => Err(Error::type_error(format!(
            "bad operand type for unary -: '{}'",
            a.type_name()
        ))),
    }
}

/// `a ~ b`: both sides through `str()`.
pub fn concat(a: &Value, b: &Value) -> Value {
    Value::str(format!("{}{}", a.to_str(), b.to_str()))
}

/// Python `needle in haystack`.
pub fn contains(haystack: &Value, needle: &Value) -> Result<bool> {
    match haystack {
        Value::Undefined(_) => Ok(false),
        Value::Str(s) | Value::Markup(s) => match needle.as_str() {
            Some(n) => Ok(s.contains(n)),
            None if needle.is_undefined() => Err(undefined_error(needle)),
            None => Err(Error::type_error(format!(
                "'in <string>' requires string as left operand, not {}",
                needle.type_name()
            ))),
        },
        Value::List(l) => Ok(l.borrow().iter().any(|v| eq(v, needle))),
        Value::Tuple(t) => Ok(t.iter().any(|v| eq(v, needle))),
        Value::Iter(t, _) => Ok(t.iter().any(|v| eq(v, needle))),
        Value::Dict(d) | Value::View(ViewKind::Keys, d) => {
            Ok(d.borrow().iter().any(|(k, _)| eq(k, needle)))
        }
        Value::View(_, _) | Value::Range(..) => {
            Ok(haystack.iterate()?.iter().any(|v| eq(v, needle)))
        }
        v => Err(Error::type_error(format!(
            "argument of type '{}' is not iterable",
            v.type_name()
        ))),
    }
}

/// A comparison operator by its symbol.
pub fn compare(op: &str, a: &Value, b: &Value) -> Result<bool> {
    Ok(match op {
        "==" => eq(a, b),
        "!=" => !eq(a, b),
        "<" => cmp(a, b, op)?.is_lt(),
        "<=" => cmp(a, b, op)?.is_le(),
        ">" => cmp(a, b, op)?.is_gt(),
        ">=" => cmp(a, b, op)?.is_ge(),
        "in" => contains(b, a)?,
        "not in" => !contains(b, a)?,
        _ => return Err(Error::runtime(format!("unknown operator {op}"))),
    })
}
