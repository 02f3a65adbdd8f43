//! Python's `float(x)`.

use super::numeric_text::to_ascii_numeric;
use super::repr::repr_str;
use super::types::type_name;
use super::whitespace::is_ascii_space;
use serde_json::{Number, Value};

/// Python `float(s)` for a string; `None` where Python raises `ValueError`.
///
/// Like CPython: non-ASCII whitespace and Unicode decimal digits (`'١٢'`, `'１２'`) are first
/// mapped to ASCII; `_` is allowed only between two digits; surrounding ASCII whitespace is
/// ignored; `inf`/`infinity`/`nan` are case-insensitive with an optional sign; no hex.
pub fn parse_float(s: &str) -> Option<f64> {
    let ascii = to_ascii_numeric(s);
    let cleaned = strip_digit_underscores(&ascii)?;
    let t = cleaned.trim_matches(is_ascii_space);
    let (negative, body) = split_sign(t);
    let lower = body.to_ascii_lowercase();
    let magnitude = match lower.as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => parse_decimal_float(body)?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Python `float(v)`: numbers and bools convert, strings parse as [`parse_float`]; the error is
/// Python's exact `ValueError`/`TypeError` message.
pub fn to_float(v: &Value) -> Result<f64, String> {
    match v {
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => Ok(number_as_f64(n)),
        Value::String(s) => float_of_str(s),
        _ => Err(float_type_error(type_name(v))),
    }
}

/// Python `float(s)` for a string, with the `ValueError` text.
pub fn float_of_str(s: &str) -> Result<f64, String> {
    parse_float(s).ok_or_else(|| format!("could not convert string to float: {}", repr_str(s)))
}

/// The `TypeError` text of `float(x)` for a value of a type it does not take.
pub fn float_type_error(type_name: &str) -> String {
    format!("float() argument must be a string or a real number, not '{type_name}'")
}

fn number_as_f64(n: &Number) -> f64 {
    if let Some(i) = n.as_i64() {
        i as f64
    } else if let Some(u) = n.as_u64() {
        u as f64
    } else {
        n.as_f64().unwrap_or(f64::NAN)
    }
}

/// `float()`'s underscore rule: every `_` must sit between two ASCII digits. Returns the text
/// without underscores, or `None` if the rule is broken.
fn strip_digit_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut prev = '\0';
    for c in s.chars() {
        if c == '_' {
            if !prev.is_ascii_digit() {
                return None;
            }
        } else {
            if prev == '_' && !c.is_ascii_digit() {
                return None;
            }
            out.push(c);
        }
        prev = c;
    }
    (prev != '_').then_some(out)
}

fn split_sign(t: &str) -> (bool, &str) {
    if let Some(rest) = t.strip_prefix('-') {
        (true, rest)
    } else if let Some(rest) = t.strip_prefix('+') {
        (false, rest)
    } else {
        (false, t)
    }
}

/// Unsigned decimal float: `digits [. [digits]] [e [+-] digits]` or `. digits [...]`, at least
/// one mantissa digit. Validated here so that Rust's parser cannot accept more than Python.
fn parse_decimal_float(body: &str) -> Option<f64> {
    let b = body.as_bytes();
    let mut i = 0;
    let count_digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa_digits = count_digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        mantissa_digits += count_digits(&mut i);
    }
    if mantissa_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if count_digits(&mut i) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    body.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::float_repr;

    /// (input, Python `repr(float(input))` or None for ValueError)
    const PARSE_FLOAT: &[(&str, Option<&str>)] = &[
        ("1", Some("1.0")),
        ("1.5", Some("1.5")),
        (" 1_0 ", Some("10.0")),
        ("1__0", None),
        ("_1", None),
        ("1_", None),
        ("\u{2003} 12\u{3000}", Some("12.0")),
        ("1\u{1c}", None),
        ("+1", Some("1.0")),
        ("-1", Some("-1.0")),
        ("- 1", None),
        ("0x10", None),
        ("00012", Some("12.0")),
        ("", None),
        (" ", None),
        ("1e5", Some("100000.0")),
        ("inf", Some("inf")),
        ("+Infinity", Some("inf")),
        ("-iNF", Some("-inf")),
        ("nan", Some("nan")),
        ("-nan", Some("nan")),
        ("infinit", None),
        (".5", Some("0.5")),
        ("5.", Some("5.0")),
        (".", None),
        ("1e", None),
        ("1.e5", Some("100000.0")),
        ("1_e5", None),
        ("1e1_0", Some("10000000000.0")),
        ("1_0.5", Some("10.5")),
        ("١.٥", Some("1.5")),
        ("١٢", Some("12.0")),
        ("１２", Some("12.0")),
        ("1\u{a0}", Some("1.0")),
        ("12٠", Some("120.0")),
        ("٠x", None),
        ("1 2", None),
        ("\u{85} 1", Some("1.0")),
        ("\u{b}1\u{c}", Some("1.0")),
        ("1\u{0}", None),
        ("1e-400", Some("0.0")),
        ("1e400", Some("inf")),
        ("in_f", None),
        ("1_.5", None),
        ("1._5", None),
        ("0_1", Some("1.0")),
        ("1E+05", Some("100000.0")),
        ("+-1", None),
        ("NaN1", None),
        ("abc", None),
        ("a'b", None),
        ("9223372036854775807", Some("9.223372036854776e+18")),
        ("-9223372036854775808", Some("-9.223372036854776e+18")),
        ("9223372036854775808", Some("9.223372036854776e+18")),
        ("1e99999999999999999999", Some("inf")),
        ("\t-7\n", Some("-7.0")),
        ("٣é", None),
    ];

    #[test]
    fn parse_float_matches_python() {
        for (s, expected) in PARSE_FLOAT {
            let got = parse_float(s).map(float_repr);
            assert_eq!(got.as_deref(), *expected, "float({s:?})");
            let via_value = to_float(&Value::from(*s)).map(float_repr);
            match expected {
                Some(e) => assert_eq!(via_value.as_deref(), Ok(*e)),
                None => assert_eq!(
                    via_value,
                    Err(format!(
                        "could not convert string to float: {}",
                        repr_str(s)
                    ))
                ),
            }
        }
    }
}
