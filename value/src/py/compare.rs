//! Python's `==` and ordering between values (`1 == 1.0 == True`, `'a' < 1` a `TypeError`).

use super::types::type_name;
use serde_json::Value;
use std::cmp::Ordering;

/// A Python real number: bools are ints (`True == 1`).
#[derive(Clone, Copy)]
enum Real {
    Int(i128),
    Float(f64),
}

fn as_real(v: &Value) -> Option<Real> {
    match v {
        Value::Bool(b) => Some(Real::Int(i128::from(*b))),
        Value::Number(n) => Some(if let Some(i) = n.as_i64() {
            Real::Int(i128::from(i))
        } else if let Some(u) = n.as_u64() {
            Real::Int(i128::from(u))
        } else {
            Real::Float(n.as_f64().unwrap_or(f64::NAN))
        }),
        _ => None,
    }
}

/// Python compares ints and floats exactly (`2**53 + 1 != 2.0**53`), never by rounding the int.
/// `None` only for NaN, which a `Value` cannot hold.
fn real_cmp(a: Real, b: Real) -> Option<Ordering> {
    match (a, b) {
        (Real::Int(x), Real::Int(y)) => Some(x.cmp(&y)),
        (Real::Float(x), Real::Float(y)) => x.partial_cmp(&y),
        (Real::Int(x), Real::Float(y)) => int_float_cmp(x, y),
        (Real::Float(x), Real::Int(y)) => int_float_cmp(y, x).map(Ordering::reverse),
    }
}

fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    // 2^127: beyond every i128 (and every int a `Value` can hold).
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f.is_nan() {
        return None;
    }
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    let whole = f.trunc();
    Some(i.cmp(&(whole as i128)).then_with(|| {
        let frac = f - whole;
        if frac > 0.0 {
            Ordering::Less
        } else if frac < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }))
}

/// Python `a == b`: numbers (and bools) by exact numeric value, strings by content, lists
/// element-wise, dicts as unordered key/value sets; values of different kinds are unequal.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (as_real(a), as_real(b)) {
        return real_cmp(x, y) == Some(Ordering::Equal);
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| py_eq(p, q)))
        }
        _ => false,
    }
}

/// Python ordering for `<`, `<=`, `>`, `>=`: numbers (bools included) numerically, strings by code
/// point, lists lexicographically (first unequal item decides, else the shorter list is smaller).
/// Everything else (None, dicts, mixed kinds) is Python's `TypeError`, whose message names the
/// operator `op` the caller is evaluating: `'<' not supported between instances of 'str' and
/// 'int'`. Use [`py_eq`] for `==`/`!=`.
pub fn py_cmp(a: &Value, b: &Value, op: &str) -> Result<Ordering, String> {
    if let (Some(x), Some(y)) = (as_real(a), as_real(b)) {
        // NaN never reaches here (a `Value` cannot hold it).
        return Ok(real_cmp(x, y).unwrap_or(Ordering::Equal));
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q, op);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        _ => Err(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            type_name(a),
            type_name(b)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::v;
    use std::cmp::Ordering::{Equal, Greater, Less};

    /// (a, b, Python `a == b`), both as JSON
    const EQ: &[(&str, &str, bool)] = &[
        ("1", "1.0", true),
        ("true", "1", true),
        ("false", "0", true),
        ("true", "1.0", true),
        ("0", "-0.0", true),
        ("9007199254740993", "9007199254740992.0", false),
        ("9223372036854775808", "9.223372036854776e+18", true),
        ("\"1\"", "1", false),
        ("\"a\"", "\"a\"", true),
        ("null", "null", true),
        ("null", "0", false),
        ("[1, 2]", "[1.0, 2]", true),
        ("[1]", "[1, 2]", false),
        ("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1.0}", true),
        ("{\"a\": 1}", "{\"a\": 2}", false),
        ("{}", "[]", false),
        ("\"\"", "null", false),
        ("[]", "[]", true),
        ("\"a\"", "\"b\"", false),
        ("\"b\"", "\"a\"", false),
        ("\"\\u00e9\"", "\"z\"", false),
        ("\"Z\"", "\"a\"", false),
        ("\"\\ud83d\\ude00\"", "\"\\uffff\"", false),
        ("1", "2.5", false),
        ("-1", "-1.5", false),
        ("18446744073709551615", "1.8446744073709552e+19", false),
        ("0.1", "0", false),
        ("[1, \"a\"]", "[1, \"b\"]", false),
        ("[1, \"a\"]", "[1, 2]", false),
        ("[1]", "[]", false),
        ("[{}]", "[{}]", true),
        ("[{}]", "[{\"a\": 1}]", false),
        ("null", "1", false),
        ("{}", "{}", true),
        ("\"1\"", "\"10\"", false),
        ("[]", "[null]", false),
        ("[null]", "[null, 1]", false),
        ("[true]", "[2]", false),
        ("false", "\"a\"", false),
        ("1", "[1]", false),
    ];

    #[test]
    fn py_eq_matches_python() {
        for (a, b, expected) in EQ {
            assert_eq!(py_eq(&v(a), &v(b)), *expected, "{a} == {b}");
            assert_eq!(py_eq(&v(b), &v(a)), *expected, "{b} == {a}");
        }
    }

    /// (a, b, Python `a < b` / `a > b` as an ordering, or the TypeError text)
    #[rustfmt::skip]
    const CMP: &[(&str, &str, Result<Ordering, &str>)] = &[
        ("1", "1.0", Ok(Equal)),
        ("true", "1", Ok(Equal)),
        ("false", "0", Ok(Equal)),
        ("true", "1.0", Ok(Equal)),
        ("0", "-0.0", Ok(Equal)),
        ("9007199254740993", "9007199254740992.0", Ok(Greater)),
        ("9223372036854775808", "9.223372036854776e+18", Ok(Equal)),
        ("\"1\"", "1", Err("'<' not supported between instances of 'str' and 'int'")),
        ("\"a\"", "\"a\"", Ok(Equal)),
        ("null", "null", Err("'<' not supported between instances of 'NoneType' and 'NoneType'")),
        ("null", "0", Err("'<' not supported between instances of 'NoneType' and 'int'")),
        ("[1, 2]", "[1.0, 2]", Ok(Equal)),
        ("[1]", "[1, 2]", Ok(Less)),
        ("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1.0}", Err("'<' not supported between instances of 'dict' and 'dict'")),
        ("{\"a\": 1}", "{\"a\": 2}", Err("'<' not supported between instances of 'dict' and 'dict'")),
        ("{}", "[]", Err("'<' not supported between instances of 'dict' and 'list'")),
        ("\"\"", "null", Err("'<' not supported between instances of 'str' and 'NoneType'")),
        ("[]", "[]", Ok(Equal)),
        ("\"a\"", "\"b\"", Ok(Less)),
        ("\"b\"", "\"a\"", Ok(Greater)),
        ("\"\\u00e9\"", "\"z\"", Ok(Greater)),
        ("\"Z\"", "\"a\"", Ok(Less)),
        ("\"\\ud83d\\ude00\"", "\"\\uffff\"", Ok(Greater)),
        ("1", "2.5", Ok(Less)),
        ("-1", "-1.5", Ok(Greater)),
        ("18446744073709551615", "1.8446744073709552e+19", Ok(Less)),
        ("0.1", "0", Ok(Greater)),
        ("[1, \"a\"]", "[1, \"b\"]", Ok(Less)),
        ("[1, \"a\"]", "[1, 2]", Err("'<' not supported between instances of 'str' and 'int'")),
        ("[1]", "[]", Ok(Greater)),
        ("[{}]", "[{}]", Ok(Equal)),
        ("[{}]", "[{\"a\": 1}]", Err("'<' not supported between instances of 'dict' and 'dict'")),
        ("null", "1", Err("'<' not supported between instances of 'NoneType' and 'int'")),
        ("{}", "{}", Err("'<' not supported between instances of 'dict' and 'dict'")),
        ("\"1\"", "\"10\"", Ok(Less)),
        ("[]", "[null]", Ok(Less)),
        ("[null]", "[null, 1]", Ok(Less)),
        ("[true]", "[2]", Ok(Less)),
        ("false", "\"a\"", Err("'<' not supported between instances of 'bool' and 'str'")),
        ("1", "[1]", Err("'<' not supported between instances of 'int' and 'list'")),
    ];

    #[test]
    fn py_cmp_matches_python() {
        for (a, b, expected) in CMP {
            let got = py_cmp(&v(a), &v(b), "<");
            assert_eq!(got, expected.map_err(str::to_string), "{a} < {b}");
        }
        assert_eq!(
            py_cmp(&v("\"a\""), &v("1"), ">="),
            Err("'>=' not supported between instances of 'str' and 'int'".to_string())
        );
    }
}
