//! Python's `int`: conversion (`int(x)`) and base-10 parsing, with ints of any size where a
//! caller needs them (the front-end's checks compare `int("1" * 50)` with a bound).

use super::numeric_text::to_ascii_numeric;
use super::repr::repr_str;
use super::types::type_name;
use super::whitespace::is_ascii_space;
use serde_json::Value;
use std::cmp::Ordering;
use std::fmt;

/// Python's `int()` refuses decimal strings longer than this (`sys.get_int_max_str_digits()`).
pub(super) const INT_MAX_STR_DIGITS: usize = 4300;

const TOO_LARGE: &str = "Python int too large to convert to i64";

/// A Python int. `Big` only arises from `int()` of a long digit string or of a huge float.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PyInt {
    Small(i128),
    Big { negative: bool, digits: String },
}

impl PyInt {
    /// The int written by these decimal digits (leading zeros allowed).
    fn from_digits(negative: bool, digits: &str) -> PyInt {
        let digits = digits.trim_start_matches('0');
        if digits.is_empty() {
            return PyInt::Small(0);
        }
        if digits.len() <= 38 {
            if let Ok(v) = digits.parse::<i128>() {
                return PyInt::Small(if negative { -v } else { v });
            }
        }
        PyInt::Big {
            negative,
            digits: digits.to_string(),
        }
    }

    /// Python `int(f)`: truncation toward zero, exact however large.
    pub fn from_float(f: f64) -> Result<PyInt, String> {
        if f.is_nan() {
            return Err("cannot convert float NaN to integer".into());
        }
        if f.is_infinite() {
            return Err("cannot convert float infinity to integer".into());
        }
        let t = f.trunc();
        if t.abs() < 1e38 {
            return Ok(PyInt::Small(t as i128));
        }
        // Exact decimal expansion of mantissa * 2^exponent.
        let bits = t.abs().to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
        let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        let mut digits: Vec<u8> = mantissa
            .to_string()
            .bytes()
            .rev()
            .map(|b| b - b'0')
            .collect();
        for _ in 0..exponent.max(0) {
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * 2 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                digits.push(carry);
            }
        }
        let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
        Ok(PyInt::from_digits(t < 0.0, &text))
    }

    pub fn cmp_i64(&self, x: i64) -> Ordering {
        match self {
            PyInt::Small(v) => v.cmp(&i128::from(x)),
            PyInt::Big { negative: true, .. } => Ordering::Less,
            PyInt::Big {
                negative: false, ..
            } => Ordering::Greater,
        }
    }

    /// Python `float(i)`: correctly rounded, `OverflowError` beyond the float range.
    pub fn to_f64(&self) -> Result<f64, String> {
        match self {
            PyInt::Small(i) => Ok(*i as f64),
            big => big
                .to_string()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .ok_or_else(|| "int too large to convert to float".to_string()),
        }
    }

    /// The int as an `i64`, or (an approximation of an unbounded int) the overflow message.
    pub fn to_i64(&self) -> Result<i64, String> {
        match self {
            PyInt::Small(v) => i64::try_from(*v).map_err(|_| TOO_LARGE.to_string()),
            PyInt::Big { .. } => Err(TOO_LARGE.to_string()),
        }
    }
}

impl fmt::Display for PyInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PyInt::Small(v) => write!(f, "{v}"),
            PyInt::Big { negative, digits } => {
                write!(f, "{}{digits}", if *negative { "-" } else { "" })
            }
        }
    }
}

/// Python `int(v)`: ints as-is, floats truncate toward zero, bools 1/0, strings in base 10 (see
/// [`parse_int`]); errors carry Python's exact message.
///
/// Approximation: Python ints are unbounded; a result outside `i64` is reported as an error
/// (`Python int too large to convert to i64`) instead of returning a big int.
pub fn to_int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i)
            } else if n.as_u64().is_some() {
                Err(TOO_LARGE.to_string())
            } else {
                PyInt::from_float(n.as_f64().unwrap_or(f64::NAN))?.to_i64()
            }
        }
        Value::String(s) => parse_int(s),
        _ => Err(int_type_error(type_name(v))),
    }
}

/// The `TypeError` text of `int(x)` for a value of a type it does not take.
pub fn int_type_error(type_name: &str) -> String {
    format!(
        "int() argument must be a string, a bytes-like object or a real number, not '{type_name}'"
    )
}

/// [`parse_int_big`] as an `i64` (an approximation: beyond it, the overflow message).
pub fn parse_int(s: &str) -> Result<i64, String> {
    parse_int_big(s)?.to_i64()
}

/// Python `int(s)` (base 10) for a string: optional surrounding whitespace and sign, digits with
/// single `_` between them, Unicode decimal digits accepted. Errors:
/// `invalid literal for int() with base 10: <repr(s) cut to 200 chars>`, or the 4300-digit limit
/// message, which CPython 3.11 raises as soon as it has counted the digits (3.12 first checks
/// that the rest of the text is valid).
pub fn parse_int_big(s: &str) -> Result<PyInt, String> {
    let invalid = || {
        let r: String = repr_str(s).chars().take(200).collect();
        format!("invalid literal for int() with base 10: {r}")
    };
    let ascii = to_ascii_numeric(s);
    let b = ascii.as_bytes();
    let mut i = 0;
    while i < b.len() && is_ascii_space(b[i] as char) {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = b.get(i) {
        if c == b'+' || c == b'-' {
            negative = c == b'-';
            i += 1;
        }
    }
    if b.get(i) == Some(&b'_') {
        return Err(invalid());
    }
    let mut digits = String::new();
    let mut prev = 0u8;
    while let Some(&c) = b.get(i) {
        if c == b'_' {
            if prev == b'_' {
                return Err(invalid());
            }
        } else if c.is_ascii_digit() {
            digits.push(c as char);
        } else {
            break;
        }
        prev = c;
        i += 1;
    }
    if prev == b'_' {
        return Err(invalid());
    }
    if digits.len() > INT_MAX_STR_DIGITS {
        return Err(format!(
            "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion: \
             value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
            digits.len()
        ));
    }
    while i < b.len() && is_ascii_space(b[i] as char) {
        i += 1;
    }
    if digits.is_empty() || i != b.len() {
        return Err(invalid());
    }
    Ok(PyInt::from_digits(negative, &digits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::parse_float;
    use crate::py::to_float;
    use crate::py::v;

    /// (input, Python `int(input)`: value or ValueError text)
    #[rustfmt::skip]
    fn parse_int_cases() -> Vec<(&'static str, Result<i64, String>)> {
        vec![
            ("1", Ok(1)),
            ("1.5", Err("invalid literal for int() with base 10: '1.5'".to_string())),
            (" 1_0 ", Ok(10)),
            ("1__0", Err("invalid literal for int() with base 10: '1__0'".to_string())),
            ("_1", Err("invalid literal for int() with base 10: '_1'".to_string())),
            ("1_", Err("invalid literal for int() with base 10: '1_'".to_string())),
            ("\u{2003} 12\u{3000}", Ok(12)),
            ("1\u{1c}", Err("invalid literal for int() with base 10: '1\\x1c'".to_string())),
            ("+1", Ok(1)),
            ("-1", Ok(-1)),
            ("- 1", Err("invalid literal for int() with base 10: '- 1'".to_string())),
            ("0x10", Err("invalid literal for int() with base 10: '0x10'".to_string())),
            ("00012", Ok(12)),
            ("", Err("invalid literal for int() with base 10: ''".to_string())),
            (" ", Err("invalid literal for int() with base 10: ' '".to_string())),
            ("1e5", Err("invalid literal for int() with base 10: '1e5'".to_string())),
            ("inf", Err("invalid literal for int() with base 10: 'inf'".to_string())),
            ("+Infinity", Err("invalid literal for int() with base 10: '+Infinity'".to_string())),
            ("-iNF", Err("invalid literal for int() with base 10: '-iNF'".to_string())),
            ("nan", Err("invalid literal for int() with base 10: 'nan'".to_string())),
            ("-nan", Err("invalid literal for int() with base 10: '-nan'".to_string())),
            ("infinit", Err("invalid literal for int() with base 10: 'infinit'".to_string())),
            (".5", Err("invalid literal for int() with base 10: '.5'".to_string())),
            ("5.", Err("invalid literal for int() with base 10: '5.'".to_string())),
            (".", Err("invalid literal for int() with base 10: '.'".to_string())),
            ("1e", Err("invalid literal for int() with base 10: '1e'".to_string())),
            ("1.e5", Err("invalid literal for int() with base 10: '1.e5'".to_string())),
            ("1_e5", Err("invalid literal for int() with base 10: '1_e5'".to_string())),
            ("1e1_0", Err("invalid literal for int() with base 10: '1e1_0'".to_string())),
            ("1_0.5", Err("invalid literal for int() with base 10: '1_0.5'".to_string())),
            ("١.٥", Err("invalid literal for int() with base 10: '١.٥'".to_string())),
            ("١٢", Ok(12)),
            ("１２", Ok(12)),
            ("1\u{a0}", Ok(1)),
            ("12٠", Ok(120)),
            ("٠x", Err("invalid literal for int() with base 10: '٠x'".to_string())),
            ("1 2", Err("invalid literal for int() with base 10: '1 2'".to_string())),
            ("\u{85} 1", Ok(1)),
            ("\u{b}1\u{c}", Ok(1)),
            ("1\u{0}", Err("invalid literal for int() with base 10: '1\\x00'".to_string())),
            ("1e-400", Err("invalid literal for int() with base 10: '1e-400'".to_string())),
            ("1e400", Err("invalid literal for int() with base 10: '1e400'".to_string())),
            ("in_f", Err("invalid literal for int() with base 10: 'in_f'".to_string())),
            ("1_.5", Err("invalid literal for int() with base 10: '1_.5'".to_string())),
            ("1._5", Err("invalid literal for int() with base 10: '1._5'".to_string())),
            ("0_1", Ok(1)),
            ("1E+05", Err("invalid literal for int() with base 10: '1E+05'".to_string())),
            ("+-1", Err("invalid literal for int() with base 10: '+-1'".to_string())),
            ("NaN1", Err("invalid literal for int() with base 10: 'NaN1'".to_string())),
            ("abc", Err("invalid literal for int() with base 10: 'abc'".to_string())),
            ("a'b", Err("invalid literal for int() with base 10: \"a'b\"".to_string())),
            ("9223372036854775807", Ok(9223372036854775807)),
            ("-9223372036854775808", Ok(i64::MIN)),
            ("9223372036854775808", Err("Python int too large to convert to i64".to_string())),
            ("1e99999999999999999999", Err("invalid literal for int() with base 10: '1e99999999999999999999'".to_string())),
            ("\t-7\n", Ok(-7)),
            ("٣é", Err("invalid literal for int() with base 10: '٣é'".to_string())),
        ]
    }

    #[test]
    fn parse_int_matches_python() {
        for (s, expected) in parse_int_cases() {
            assert_eq!(parse_int(s), expected, "int({s:?})");
            assert_eq!(to_int(&Value::from(s)), expected, "int({s:?})");
        }
    }

    #[test]
    fn int_and_float_conversion_edges() {
        // Python: the repr in int()'s message is cut to 200 characters; float()'s is not.
        let long = "x".repeat(250);
        let msg = parse_int(&long).expect_err("invalid");
        assert_eq!(
            msg,
            format!(
                "invalid literal for int() with base 10: '{}",
                "x".repeat(199)
            )
        );
        assert_eq!(
            to_float(&Value::from(long.as_str())),
            Err(format!("could not convert string to float: '{long}'"))
        );
        let many = "9".repeat(4301);
        assert_eq!(
            parse_int(&many),
            Err(
                "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 \
                 digits; use sys.set_int_max_str_digits() to increase the limit"
                    .to_string()
            )
        );
        assert_eq!(
            parse_int(&format!("{many}.0")),
            Err(
                "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 \
                 digits; use sys.set_int_max_str_digits() to increase the limit"
                    .to_string()
            )
        );
        assert_eq!(parse_float(&many), Some(f64::INFINITY));

        for (x, f, i) in [
            ("true", Ok(1.0), Ok(1)),
            ("false", Ok(0.0), Ok(0)),
            ("1.5", Ok(1.5), Ok(1)),
            ("-1.5", Ok(-1.5), Ok(-1)),
            ("-0.0", Ok(-0.0), Ok(0)),
            ("3", Ok(3.0), Ok(3)),
            (
                "18446744073709551615",
                Ok(1.8446744073709552e19),
                Err(TOO_LARGE.to_string()),
            ),
            ("1e20", Ok(1e20), Err(TOO_LARGE.to_string())),
            ("-9.2e18", Ok(-9.2e18), Ok(-9_200_000_000_000_000_000)),
        ] {
            assert_eq!(to_float(&v(x)), f, "float({x})");
            assert_eq!(to_int(&v(x)), i, "int({x})");
        }
        for (x, name) in [("null", "NoneType"), ("[1]", "list"), ("{}", "dict")] {
            assert_eq!(
                to_float(&v(x)),
                Err(format!(
                    "float() argument must be a string or a real number, not '{name}'"
                ))
            );
            assert_eq!(
                to_int(&v(x)),
                Err(format!(
                    "int() argument must be a string, a bytes-like object or a real number, \
                     not '{name}'"
                ))
            );
        }
        assert_eq!(
            PyInt::from_float(f64::NAN),
            Err("cannot convert float NaN to integer".to_string())
        );
        assert_eq!(
            PyInt::from_float(f64::NEG_INFINITY),
            Err("cannot convert float infinity to integer".to_string())
        );
        assert!(parse_float("-nan").is_some_and(|f| f.is_nan() && f.is_sign_negative()));
    }

    #[test]
    fn int_and_float_coercion_match_python() {
        let int = |s: &str| parse_int_big(s).map(|i| i.to_string());
        assert_eq!(int(" 1_000 "), Ok("1000".into()));
        assert_eq!(int("\u{663}"), Ok("3".into()));
        assert_eq!(int("-0"), Ok("0".into()));
        assert_eq!(
            int("1__0"),
            Err("invalid literal for int() with base 10: '1__0'".into())
        );
        assert_eq!(
            int("0x10"),
            Err("invalid literal for int() with base 10: '0x10'".into())
        );
        let long = "a".repeat(250);
        let err = int(&long).expect_err("not a number");
        assert_eq!(err.chars().count(), 40 + 200, "repr cut at 200 characters");
        assert_eq!(
            PyInt::from_float(1e300).map(|i| i.to_string()),
            Ok("1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160".into())
        );
        assert_eq!(parse_float("1_0.5"), Some(10.5));
        assert_eq!(parse_float(" -Infinity "), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("\u{a0}5\u{3000}"), Some(5.0));
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("1_"), None);
    }
}
