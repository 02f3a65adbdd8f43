//! Python value semantics for JSON-like values.
//!
//! The reference implementation (RAGFlow's agent canvas) is Python: many observable strings come
//! from `str()`, `repr()` and `json.dumps()`, and many decisions from Python truthiness, `==`,
//! ordering, `float()`/`int()` and `ast.literal_eval`. This module reproduces those on
//! [`serde_json::Value`] (built with `preserve_order`), mapping Python types as follows:
//!
//! | Python        | `Value`                                          |
//! |---------------|--------------------------------------------------|
//! | `None`        | `Null`                                           |
//! | `bool`        | `Bool`                                           |
//! | `int`         | `Number` holding an `i64`/`u64`                  |
//! | `float`       | `Number` holding an `f64` (always finite)        |
//! | `str`         | `String`                                         |
//! | `list`/`tuple`/`set` | `Array` (tuples and sets only arise from `literal_eval`) |
//! | `dict`        | `Object` (string keys, insertion order)          |
//!
//! Expected outputs in the tests were produced by CPython 3.11 (Unicode 14.0).
//!
//! Approximations (each documented at the function that makes it):
//! * Python ints beyond `u64`/`i64` do not exist in `Value`: `literal_eval` turns them into floats,
//!   `to_int` reports an error instead of returning a big int.
//! * `NaN`/`±inf` cannot be stored in a `Value`; `float_repr`/`parse_float` handle them, but
//!   `literal_eval("1e999")` fails instead of returning `inf`.
//! * `literal_eval` fails when its result holds something without a JSON form (bytes, complex,
//!   `...`, tuple dict keys, strings with lone surrogates), and on `\N{...}` escapes and non-ASCII
//!   identifiers.
//! * `repr`'s printability table is Unicode 14.0 (Python 3.11); later Pythons treat characters
//!   assigned since then as printable.
//! * Rendering and comparison recurse once per nesting level, like CPython (which raises
//!   `RecursionError` near 1000 levels); `serde_json` parsing stops at 128.
//!
//! Floats are only as exact as the `Value` holding them: `serde_json` without its `float_roundtrip`
//! feature may parse a long decimal into a neighbouring float, which `float_repr` then shows.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------------
// json.dumps
// ---------------------------------------------------------------------------------------------

/// Options of Python's `json.dumps` that canvas call sites use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonOpts {
    /// `ensure_ascii=True`: escape everything outside `' '..='~'` as `\uXXXX`.
    pub ensure_ascii: bool,
    /// `indent=N`: one item per line; the item separator becomes `","` (no trailing space).
    pub indent: Option<usize>,
    /// `sort_keys=True`: object keys in code-point order.
    pub sort_keys: bool,
    /// `separators=(",", ":")`: no spaces (the HTTP stream's frames).
    pub compact: bool,
}

/// `json.dumps(v, ensure_ascii=False)` — the spec's `py_json`.
pub fn json_dumps(v: &Value) -> String {
    json_dumps_opts(v, JsonOpts::default())
}

/// `json.dumps(v)` with the default `ensure_ascii=True`.
pub fn json_dumps_ascii(v: &Value) -> String {
    json_dumps_opts(
        v,
        JsonOpts {
            ensure_ascii: true,
            ..JsonOpts::default()
        },
    )
}

/// `json.dumps(v, ensure_ascii=False, indent=indent, sort_keys=sort_keys)`.
pub fn json_dumps_indent(v: &Value, indent: usize, sort_keys: bool) -> String {
    json_dumps_opts(
        v,
        JsonOpts {
            indent: Some(indent),
            sort_keys,
            ..JsonOpts::default()
        },
    )
}

/// `json.dumps` with any combination of [`JsonOpts`].
pub fn json_dumps_opts(v: &Value, opts: JsonOpts) -> String {
    let mut out = String::new();
    write_json(&mut out, v, &opts, 0);
    out
}

/// Python's encoder writes `[]`/`{}` for empty containers even when indenting, and puts the
/// newline + indentation *before* every item and before the closing bracket.
fn write_json(out: &mut String, v: &Value, opts: &JsonOpts, level: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_json(n)),
        Value::String(s) => write_json_str(out, s, opts.ensure_ascii),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    item_separator(out, opts);
                }
                newline_indent(out, opts, level + 1);
                write_json(out, item, opts, level + 1);
            }
            newline_indent(out, opts, level);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if opts.sort_keys {
                // `str` ordering is code-point ordering, which UTF-8 byte order preserves.
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    item_separator(out, opts);
                }
                newline_indent(out, opts, level + 1);
                write_json_str(out, k, opts.ensure_ascii);
                out.push_str(if opts.compact { ":" } else { ": " });
                write_json(out, item, opts, level + 1);
            }
            newline_indent(out, opts, level);
            out.push('}');
        }
    }
}

fn item_separator(out: &mut String, opts: &JsonOpts) {
    out.push_str(if opts.indent.is_some() || opts.compact {
        ","
    } else {
        ", "
    });
}

/// `json.dumps(v, ensure_ascii=False, separators=(",", ":"))`: one compact line.
pub fn json_dumps_compact(v: &Value) -> String {
    json_dumps_opts(
        v,
        JsonOpts {
            compact: true,
            ..JsonOpts::default()
        },
    )
}

fn newline_indent(out: &mut String, opts: &JsonOpts, level: usize) {
    if let Some(n) = opts.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n.saturating_mul(level)));
    }
}

/// How `json.dumps` writes a number: ints in decimal, floats via `float.__repr__`
/// (`Infinity`/`NaN` for non-finite values, which a `Value` cannot hold anyway).
fn number_json(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        float_repr(f)
    }
}

/// `json.encoder.(py_)encode_basestring(_ascii)`: only `"`, `\` and C0 controls are escaped
/// without `ensure_ascii` (so `/`, DEL, U+2028 stay raw); with it, everything outside
/// `' '..='~'` becomes lower-case `\uXXXX` (astral characters as surrogate pairs).
fn write_json_str(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => push_u4(out, c as u32),
            c if ascii && (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_u4(out, u32::from(*unit));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_u4(out: &mut String, unit: u32) {
    let _ = write!(out, "\\u{unit:04x}");
}

// ---------------------------------------------------------------------------------------------
// float repr
// ---------------------------------------------------------------------------------------------

/// Python `repr(float)` (also `str(float)`): the shortest digit string that round-trips, in fixed
/// notation when the decimal exponent is in `[-4, 16)` and scientific (`1e-05`, `1.5e+300`)
/// otherwise; integral values keep a `.0`.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0.0");
    }
    let Some((digits, exp)) = shortest_digits(f.abs()) else {
        return format!("{f}");
    };
    let ndigits = digits.len() as i32;
    let mut out = String::from(sign);
    if (-4..16).contains(&exp) {
        // Position of the decimal point relative to the start of `digits`.
        let point = exp + 1;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        } else if point >= ndigits {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (point - ndigits) as usize));
            out.push_str(".0");
        } else {
            let (int_part, frac) = digits.split_at(point as usize);
            out.push_str(int_part);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let esign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "e{esign}{:02}", exp.unsigned_abs());
    }
    out
}

/// Shortest round-trip significant digits (no trailing zeros) and decimal exponent of a positive
/// finite float, as CPython's `repr` picks them.
///
/// Rust's `{:e}` finds the same shortest length, but when the value lies exactly halfway between
/// two shortest candidates (`1359936536649604.25`) it rounds up, while CPython rounds to the even
/// digit (`…604.2`); that case is detected from the exact expansion and redone.
fn shortest_digits(a: f64) -> Option<(String, i32)> {
    let (digits, exp) = sci_parts(&format!("{a:e}"))?;
    let n = digits.len();
    // A tie needs an exact expansion of n+1 significant digits ending in 5; this cheap probe
    // (n+1 correctly rounded digits) rules out most values before the exact expansion.
    let probe = format!("{a:.n$e}");
    if !probe.split('e').next()?.ends_with('5') {
        return Some((digits, exp));
    }
    // 800 fractional digits exceed the longest exact expansion of an f64 (767 digits).
    let (exact, exact_exp) = sci_parts(&format!("{a:.800e}"))?;
    if exact.len() != n + 1 || !exact.ends_with('5') {
        return Some((digits, exp));
    }
    let lower = exact[..n].to_string();
    let upper = decimal_increment(&lower, exact_exp);
    let lower = (lower, exact_exp);
    let lower_even = lower
        .0
        .bytes()
        .last()
        .is_some_and(|d| matches!(d, b'0' | b'2' | b'4' | b'6' | b'8'));
    let (first, second) = if lower_even {
        (lower, upper)
    } else {
        (upper, lower)
    };
    for (cand, cexp) in [first, second] {
        let cand = cand.trim_end_matches('0').to_string();
        if cand.is_empty() {
            continue;
        }
        let text = format!("0.{cand}e{}", cexp + 1);
        if text.parse::<f64>().ok() == Some(a) {
            return Some((cand, cexp));
        }
    }
    Some((digits, exp))
}

/// `d.ddd × 10^exp` digits plus one unit in the last place (`999` → `1000`, one exponent up).
fn decimal_increment(digits: &str, exp: i32) -> (String, i32) {
    let mut bytes = digits.as_bytes().to_vec();
    for b in bytes.iter_mut().rev() {
        if *b == b'9' {
            *b = b'0';
        } else {
            *b += 1;
            return (String::from_utf8_lossy(&bytes).into_owned(), exp);
        }
    }
    bytes.insert(0, b'1');
    bytes.pop();
    (String::from_utf8_lossy(&bytes).into_owned(), exp + 1)
}

/// Splits Rust's `{:e}` output (`1.2345e-5`) into significant digits without trailing zeros
/// (`12345`) and the exponent (`-5`).
fn sci_parts(sci: &str) -> Option<(String, i32)> {
    let (mantissa, exp) = sci.split_once('e')?;
    let exp = exp.parse::<i32>().ok()?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    if digits.is_empty() {
        return None;
    }
    Some((digits.to_string(), exp))
}

// ---------------------------------------------------------------------------------------------
// str / repr / truthiness / type names
// ---------------------------------------------------------------------------------------------

/// Python `str(v)` — the spec's `py_str`: strings as-is, everything else as `repr` (container
/// items are always rendered with `repr`, so strings inside lists/dicts are quoted).
pub fn str_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => repr_of(v),
    }
}

/// Python `repr(v)`.
pub fn repr_of(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v);
    out
}

/// Python `repr(s)` of a string on its own (quotes included).
pub fn repr_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_repr_str(&mut out, s);
    out
}

fn write_repr(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Number(n) => out.push_str(&number_repr(n)),
        Value::String(s) => write_repr_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr_str(out, k);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

/// `repr`/`str` of a Python number: ints in decimal, floats via [`float_repr`].
fn number_repr(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// CPython's `unicode_repr`: single quotes unless the text has `'` and no `"`; escapes the
/// chosen quote, `\`, `\t`, `\n`, `\r`; other ASCII controls and DEL as `\xNN`; non-ASCII
/// characters are kept when printable, otherwise `\xNN`/`\uNNNN`/`\UNNNNNNNN` (lower-case hex).
fn write_repr_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        let u = c as u32;
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if u < 0x20 || u == 0x7f => {
                let _ = write!(out, "\\x{u:02x}");
            }
            _ if u < 0x7f || is_printable(c) => out.push(c),
            _ if u <= 0xff => {
                let _ = write!(out, "\\x{u:02x}");
            }
            _ if u <= 0xffff => {
                let _ = write!(out, "\\u{u:04x}");
            }
            _ => {
                let _ = write!(out, "\\U{u:08x}");
            }
        }
    }
    out.push(quote);
}

/// Python `str.isprintable` for one character: false for categories Cc, Cf, Cs, Co, Cn, Zl, Zp
/// and Zs other than the ASCII space (table: Unicode 14.0, as in Python 3.11).
pub fn is_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < u {
                Ordering::Less
            } else if lo > u {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_err()
}

/// Python truthiness: `None`, `False`, `0`, `0.0`, `""`, `[]`, `{}` are falsy; everything else
/// (including `"0"` and `"false"`) is truthy.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i != 0
            } else if let Some(u) = n.as_u64() {
                u != 0
            } else {
                n.as_f64().is_none_or(|f| f != 0.0)
            }
        }
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python `type(v).__name__`.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python `str(type(v))`, e.g. `<class 'str'>` — the `type` that `set_output` records.
pub fn class_repr(v: &Value) -> String {
    class_repr_static(v).to_string()
}

/// [`class_repr`] without allocating.
pub fn class_repr_static(v: &Value) -> &'static str {
    match v {
        Value::Null => "<class 'NoneType'>",
        Value::Bool(_) => "<class 'bool'>",
        Value::Number(n) if n.is_f64() => "<class 'float'>",
        Value::Number(_) => "<class 'int'>",
        Value::String(_) => "<class 'str'>",
        Value::Array(_) => "<class 'list'>",
        Value::Object(_) => "<class 'dict'>",
    }
}

// ---------------------------------------------------------------------------------------------
// float() / int()
// ---------------------------------------------------------------------------------------------

/// Python's `int()` refuses decimal strings longer than this (`sys.get_int_max_str_digits()`).
const INT_MAX_STR_DIGITS: usize = 4300;

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
        Value::String(s) => parse_float(s)
            .ok_or_else(|| format!("could not convert string to float: {}", repr_str(s))),
        _ => Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            type_name(v)
        )),
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
                float_to_int(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => parse_int(s),
        _ => Err(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            type_name(v)
        )),
    }
}

const TOO_LARGE: &str = "Python int too large to convert to i64";

fn float_to_int(f: f64) -> Result<i64, String> {
    if f.is_nan() {
        return Err("cannot convert float NaN to integer".to_string());
    }
    if f.is_infinite() {
        return Err("cannot convert float infinity to integer".to_string());
    }
    let t = f.trunc();
    // 2^63 is exactly representable; every float in [-2^63, 2^63) fits.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        Ok(t as i64)
    } else {
        Err(TOO_LARGE.to_string())
    }
}

/// Python `int(s)` (base 10) for a string: optional surrounding whitespace and sign, digits with
/// single `_` between them, Unicode decimal digits accepted. Errors:
/// `invalid literal for int() with base 10: <repr(s) cut to 200 chars>`, the 4300-digit limit
/// message, or (approximation) the i64 overflow message of [`to_int`].
pub fn parse_int(s: &str) -> Result<i64, String> {
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
    let magnitude: i128 = match digits.trim_start_matches('0') {
        "" => 0,
        d if d.len() > 20 => return Err(TOO_LARGE.to_string()),
        d => d.parse().map_err(|_| invalid())?,
    };
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).map_err(|_| TOO_LARGE.to_string())
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

/// Python's `Py_ISSPACE` (ASCII whitespace, including `\v` and `\f`).
fn is_ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// Python `str.strip()` (no argument): Python's notion of whitespace, not Rust's.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python `str.isspace` for one character.
fn is_py_space(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return is_ascii_space(c) || (0x1c..=0x1f).contains(&u);
    }
    UNICODE_SPACES.binary_search(&u).is_ok()
}

/// The decimal value of a Unicode Nd digit (`unicodedata.decimal`).
fn unicode_decimal(c: char) -> Option<u8> {
    let u = c as u32;
    if c.is_ascii_digit() {
        return Some((u - u32::from(b'0')) as u8);
    }
    let idx = match DECIMAL_ZEROS.binary_search(&u) {
        Ok(i) => i,
        Err(0) => return None,
        Err(i) => i - 1,
    };
    let zero = DECIMAL_ZEROS[idx];
    (u - zero < 10).then(|| (u - zero) as u8)
}

/// CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`, the first step of `float(str)` and
/// `int(str)`: ASCII is kept, other whitespace becomes `' '`, other decimal digits become their
/// ASCII digit, and anything else ends the text with `'?'` (which then fails to parse).
fn to_ascii_numeric(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if (c as u32) < 127 {
            out.push(c);
        } else if is_py_space(c) {
            out.push(' ');
        } else if let Some(d) = unicode_decimal(c) {
            out.push(char::from(b'0' + d));
        } else {
            out.push('?');
            break;
        }
    }
    out
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

// ---------------------------------------------------------------------------------------------
// == and ordering
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// ast.literal_eval
// ---------------------------------------------------------------------------------------------

/// Python's tokenizer refuses more than this many open brackets (`too many nested parentheses`);
/// it also bounds our recursion.
const MAX_NESTING: usize = 200;

/// Python `ast.literal_eval(s)` for a string, converted to a `Value`.
///
/// Accepts what Python accepts for: strings (`'…'`, `"…"`, triple-quoted, `r`/`u` prefixes,
/// escapes, adjacent-literal concatenation), ints (decimal, `0x`/`0o`/`0b`, `_` separators),
/// floats, `True`/`False`/`None`, one unary `+`/`-` on a number, lists, tuples, dicts, sets and
/// `set()`, with comments, line continuations and a top-level tuple without parentheses
/// (`"1, 2"`). Tuples and sets become arrays (sets keep first-occurrence order; Python's order is
/// hash-dependent). Duplicate dict keys/set items are merged with Python equality
/// (`{1: 'a', True: 'b'}` is `{"1": "b"}`), then keys are rendered like `json.dumps` renders
/// non-string keys: `1`→`"1"`, `1.5`→`"1.5"`, `True`→`"true"`, `None`→`"null"`.
///
/// Fails wherever Python fails (syntax errors, other expressions, unhashable keys, the
/// 4300-digit int limit). Error texts follow Python's (`… (<unknown>, line N)`,
/// `malformed node or string on line N: <ast.Name object>`) without being exact.
///
/// Also fails — unlike Python — when the result holds something without a JSON form: bytes,
/// complex numbers, `...`, strings with lone surrogates (`'\ud800'`), floats that overflow to
/// `inf`, tuple or huge-int dict keys. (Such values are fine where Python discards them, e.g. under
/// a dict key that a later duplicate overrides.) Always fails for `\N{name}` escapes (no name
/// table) and non-ASCII identifiers (Python NFKC-normalises `ｓｅｔ()` to `set()`). Ints outside
/// `i64`/`u64` become (rounded) floats; hexadecimal/octal/binary ones beyond `i128` may be off by
/// a rounding step.
pub fn literal_eval(s: &str) -> Result<Value, String> {
    // `ast.literal_eval` strips leading spaces and tabs only, then parses in "eval" mode.
    let src = s.trim_start_matches([' ', '\t']);
    if src.contains('\0') {
        return Err("source code string cannot contain null bytes".to_string());
    }
    // The tokenizer reads `\r\n` and lone `\r` as `\n`, also inside string literals.
    let chars: Vec<char> = src
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .collect();
    let tokens = Lexer {
        s: chars,
        i: 0,
        line: 1,
        brackets: Vec::new(),
        toks: Vec::new(),
    }
    .run()?;
    let lit = Parser {
        toks: tokens,
        pos: 0,
    }
    .parse_input()?;
    check_hashable(&lit)?;
    lit_to_value(lit)
}

/// A parsed Python literal, before conversion to JSON (tuples and sets still distinct, dict keys
/// still Python values).
#[derive(Clone, Debug)]
enum Lit {
    None,
    Bool(bool),
    Int(i128),
    /// An int beyond `i128`, kept as its nearest float.
    BigInt(f64),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    /// A value Python accepts but JSON cannot hold (bytes, `...`, a str with lone surrogates);
    /// it only fails if it reaches the result. `key` is its hash identity.
    Opaque {
        what: &'static str,
        key: String,
    },
    List(Vec<Lit>),
    Tuple(Vec<Lit>),
    Set(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

#[derive(Clone, Debug)]
enum Tok {
    Num(Lit),
    /// Code points (lone surrogates included) and whether it is a bytes literal.
    Str(Vec<u32>, bool),
    Name(String),
    Ellipsis,
    Op(char),
    Newline,
    End,
}

struct Token {
    tok: Tok,
    line: usize,
}

fn syntax_err(msg: &str, line: usize) -> String {
    format!("{msg} (<unknown>, line {line})")
}

fn malformed(node: &str, line: usize) -> String {
    format!("malformed node or string on line {line}: <ast.{node} object>")
}

fn unsupported(what: &str) -> String {
    format!("literal_eval: {what} has no JSON representation")
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    line: usize,
    brackets: Vec<char>,
    toks: Vec<Token>,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn push(&mut self, tok: Tok) {
        self.toks.push(Token {
            tok,
            line: self.line,
        });
    }

    fn err(&self, msg: &str) -> String {
        syntax_err(msg, self.line)
    }

    /// A backslash that must end the physical line, and not the input.
    fn continuation(&mut self) -> Result<(), String> {
        if self.peek(1) != Some('\n') {
            return Err(self.err("unexpected character after line continuation character"));
        }
        self.i += 2;
        self.line += 1;
        if self.peek(0).is_none() {
            return Err(self.err("unexpected EOF while parsing"));
        }
        Ok(())
    }

    fn skip_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    fn run(mut self) -> Result<Vec<Token>, String> {
        let mut line_start = true;
        loop {
            if line_start && self.brackets.is_empty() {
                // Indentation of a new logical line: blank and comment-only lines are skipped;
                // any other line must start in column 0. A form feed resets the column; line
                // continuations are part of the indentation, the column at the first one counts.
                let mut col = 0usize;
                let mut cont_col = 0usize;
                loop {
                    match self.peek(0) {
                        Some(' ' | '\t') => col += 1,
                        Some('\u{c}') => col = 0,
                        Some('\\') => {
                            if cont_col == 0 {
                                cont_col = col;
                            }
                            self.continuation()?;
                            continue;
                        }
                        _ => break,
                    }
                    self.i += 1;
                }
                let col = if cont_col != 0 { cont_col } else { col };
                match self.peek(0) {
                    None if col > 0 => return Err(self.err("unexpected indent")),
                    None => break,
                    Some('#') => {
                        self.skip_comment();
                        continue;
                    }
                    Some('\n') => {
                        self.i += 1;
                        self.line += 1;
                        continue;
                    }
                    Some(_) if col > 0 => return Err(self.err("unexpected indent")),
                    Some(_) => line_start = false,
                }
            }
            let Some(c) = self.peek(0) else { break };
            match c {
                ' ' | '\t' | '\u{c}' => self.i += 1,
                '#' => self.skip_comment(),
                '\\' => self.continuation()?,
                '\n' => {
                    if self.brackets.is_empty() {
                        self.push(Tok::Newline);
                        line_start = true;
                    }
                    self.i += 1;
                    self.line += 1;
                }
                '(' | '[' | '{' => {
                    if self.brackets.len() >= MAX_NESTING {
                        return Err(self.err("too many nested parentheses"));
                    }
                    self.brackets.push(c);
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
                ')' | ']' | '}' => {
                    let open = match c {
                        ')' => '(',
                        ']' => '[',
                        _ => '{',
                    };
                    match self.brackets.pop() {
                        Some(o) if o == open => {}
                        Some(o) => {
                            return Err(self.err(&format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{o}'"
                            )))
                        }
                        None => return Err(self.err(&format!("unmatched '{c}'"))),
                    }
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
                '0'..='9' => self.lex_number()?,
                '.' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.lex_number()?,
                '.' if self.peek(1) == Some('.') && self.peek(2) == Some('.') => {
                    self.push(Tok::Ellipsis);
                    self.i += 3;
                }
                '\'' | '"' => self.lex_string("")?,
                c if c.is_ascii_alphabetic() || c == '_' => {
                    let start = self.i;
                    while self
                        .peek(0)
                        .is_some_and(|d| d.is_ascii_alphanumeric() || d == '_')
                    {
                        self.i += 1;
                    }
                    let name: String = self.s[start..self.i].iter().collect();
                    match self.peek(0) {
                        Some('\'' | '"') if is_string_prefix(&name) => self.lex_string(&name)?,
                        Some(d) if !d.is_ascii() => {
                            return Err(self.err("non-ASCII identifiers are not supported"))
                        }
                        _ => self.push(Tok::Name(name)),
                    }
                }
                c if !c.is_ascii() || c.is_ascii_control() => {
                    return Err(self.err(&format!("invalid character '{c}' (U+{:04X})", c as u32)))
                }
                c => {
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
            }
        }
        if let Some(o) = self.brackets.last() {
            return Err(self.err(&format!("'{o}' was never closed")));
        }
        self.push(Tok::End);
        Ok(self.toks)
    }

    /// Digits with single underscores between them (`tok_decimal_tail`); at least one digit.
    fn decimal_tail(&mut self, text: &mut String) -> Result<(), String> {
        loop {
            if !self.peek(0).is_some_and(|d| d.is_ascii_digit()) {
                return Err(self.err("invalid decimal literal"));
            }
            while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                text.push(d);
                self.i += 1;
            }
            if self.peek(0) != Some('_') {
                return Ok(());
            }
            self.i += 1;
        }
    }

    fn lex_number(&mut self) -> Result<(), String> {
        let radix = match (self.peek(0), self.peek(1)) {
            (Some('0'), Some('x' | 'X')) => Some((16, "hexadecimal")),
            (Some('0'), Some('o' | 'O')) => Some((8, "octal")),
            (Some('0'), Some('b' | 'B')) => Some((2, "binary")),
            _ => None,
        };
        let lit = if let Some((radix, name)) = radix {
            self.i += 2;
            let mut digits = String::new();
            loop {
                if self.peek(0) == Some('_') {
                    self.i += 1;
                }
                if !self.peek(0).is_some_and(|d| d.is_digit(radix)) {
                    return Err(self.err(&format!("invalid {name} literal")));
                }
                while let Some(d) = self.peek(0).filter(|d| d.is_digit(radix)) {
                    digits.push(d);
                    self.i += 1;
                }
                if self.peek(0) != Some('_') {
                    break;
                }
            }
            if let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                return Err(self.err(&format!("invalid digit '{d}' in {name} literal")));
            }
            radix_int(&digits, radix)
        } else {
            let mut text = String::new();
            let mut is_float = false;
            if self.peek(0) == Some('.') {
                self.i += 1;
                text.push('.');
                self.decimal_tail(&mut text)?;
                is_float = true;
            } else {
                self.decimal_tail(&mut text)?;
                if self.peek(0) == Some('.') {
                    self.i += 1;
                    text.push('.');
                    is_float = true;
                    if self.peek(0).is_some_and(|d| d.is_ascii_digit()) {
                        self.decimal_tail(&mut text)?;
                    }
                }
            }
            if matches!(self.peek(0), Some('e' | 'E')) {
                self.i += 1;
                text.push('e');
                if let Some(sign @ ('+' | '-')) = self.peek(0) {
                    text.push(sign);
                    self.i += 1;
                }
                self.decimal_tail(&mut text)?;
                is_float = true;
            }
            if matches!(self.peek(0), Some('j' | 'J')) {
                self.i += 1;
                let im = text
                    .parse()
                    .map_err(|_| self.err("invalid imaginary literal"))?;
                Lit::Complex(0.0, im)
            } else if is_float {
                Lit::Float(
                    text.parse()
                        .map_err(|_| self.err("invalid decimal literal"))?,
                )
            } else if text.bytes().all(|b| b == b'0') {
                Lit::Int(0)
            } else if text.starts_with('0') {
                return Err(self.err(
                    "leading zeros in decimal integer literals are not permitted; \
                     use an 0o prefix for octal integers",
                ));
            } else if text.len() > INT_MAX_STR_DIGITS {
                return Err(self.err(&format!(
                    "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string \
                     conversion: value has {} digits",
                    text.len()
                )));
            } else if let Ok(i) = text.parse::<i128>() {
                Lit::Int(i)
            } else {
                Lit::BigInt(text.parse().unwrap_or(f64::INFINITY))
            }
        };
        // A number may not run into a name (`1abc`, `1_`, `0x1g`, `1.real`).
        if self
            .peek(0)
            .is_some_and(|d| d.is_ascii_alphanumeric() || d == '_' || !d.is_ascii())
        {
            return Err(self.err("invalid decimal literal"));
        }
        self.push(Tok::Num(lit));
        Ok(())
    }

    /// A string literal starting at the opening quote; `prefix` is the letters before it.
    fn lex_string(&mut self, prefix: &str) -> Result<(), String> {
        let p = prefix.to_ascii_lowercase();
        if p.contains('f') {
            // An f-string is a `JoinedStr` node, which `literal_eval` always rejects.
            return Err(malformed("JoinedStr", self.line));
        }
        let raw = p.contains('r');
        let bytes = p.contains('b');
        let Some(quote) = self.peek(0) else {
            return Err(self.err("invalid syntax"));
        };
        let triple = self.peek(1) == Some(quote) && self.peek(2) == Some(quote);
        self.i += if triple { 3 } else { 1 };
        let unterminated = if triple {
            "unterminated triple-quoted string literal"
        } else {
            "unterminated string literal"
        };
        let mut body: Vec<char> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                return Err(self.err(unterminated));
            };
            if c == '\\' {
                // A backslash always takes the next character along, even in raw strings.
                let Some(next) = self.peek(1) else {
                    return Err(self.err(unterminated));
                };
                body.push(c);
                body.push(next);
                if next == '\n' {
                    self.line += 1;
                }
                self.i += 2;
                continue;
            }
            if c == quote {
                if !triple {
                    self.i += 1;
                    break;
                }
                if self.peek(1) == Some(quote) && self.peek(2) == Some(quote) {
                    self.i += 3;
                    break;
                }
            }
            if c == '\n' {
                if !triple {
                    return Err(self.err(unterminated));
                }
                self.line += 1;
            }
            body.push(c);
            self.i += 1;
        }
        if bytes && body.iter().any(|c| !c.is_ascii()) {
            return Err(self.err("bytes can only contain ASCII literal characters"));
        }
        let units: Vec<u32> = if raw {
            body.iter().map(|&c| c as u32).collect()
        } else {
            decode_escapes(&body, bytes).map_err(|e| self.err(&e))?
        };
        // Adjacent literals concatenate ('a' 'b' == 'ab'); a newline token would separate them.
        if let Some(Token {
            tok: Tok::Str(prev, prev_bytes),
            ..
        }) = self.toks.last_mut()
        {
            if *prev_bytes != bytes {
                return Err(syntax_err(
                    "cannot mix bytes and nonbytes literals",
                    self.line,
                ));
            }
            prev.extend(units);
        } else {
            self.push(Tok::Str(units, bytes));
        }
        Ok(())
    }
}

fn is_string_prefix(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf"
    )
}

/// An int literal in base 2/8/16; beyond `i128` it is accumulated as a float (approximate).
fn radix_int(digits: &str, radix: u32) -> Lit {
    let mut exact: Option<i128> = Some(0);
    let mut approx = 0f64;
    for d in digits.chars().filter_map(|c| c.to_digit(radix)) {
        exact = exact
            .and_then(|v| v.checked_mul(i128::from(radix)))
            .and_then(|v| v.checked_add(i128::from(d)));
        approx = approx * f64::from(radix) + f64::from(d);
    }
    match exact {
        Some(v) => Lit::Int(v),
        None => Lit::BigInt(approx),
    }
}

/// Escape sequences of a non-raw literal, as code points (a `str` may hold lone surrogates; a
/// bytes literal holds values below 256 and knows no `\u`/`\U`/`\N` escapes).
fn decode_escapes(body: &[char], bytes: bool) -> Result<Vec<u32>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        i += 1;
        if c != '\\' {
            out.push(c as u32);
            continue;
        }
        let Some(&e) = body.get(i) else {
            out.push(u32::from('\\'));
            break;
        };
        i += 1;
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e as u32),
            'a' => out.push(0x7),
            'b' => out.push(0x8),
            'f' => out.push(0xc),
            'n' => out.push(0xa),
            'r' => out.push(0xd),
            't' => out.push(0x9),
            'v' => out.push(0xb),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match body.get(i).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push(if bytes { v & 0xff } else { v });
            }
            'x' | 'u' | 'U' if !bytes || e == 'x' => {
                let (len, what) = match e {
                    'x' => (2, "truncated \\xXX escape"),
                    'u' => (4, "truncated \\uXXXX escape"),
                    _ => (8, "truncated \\UXXXXXXXX escape"),
                };
                let hex: String = body.iter().skip(i).take(len).collect();
                if hex.chars().count() != len || !hex.chars().all(|d| d.is_ascii_hexdigit()) {
                    return Err(format!("(unicode error) {what}"));
                }
                i += len;
                let v = u32::from_str_radix(&hex, 16).map_err(|_| what.to_string())?;
                if v > 0x10ffff {
                    return Err("(unicode error) illegal Unicode character".to_string());
                }
                out.push(v);
            }
            'N' if !bytes => return Err(unsupported("a \\N{...} escape (no Unicode name table)")),
            other => {
                out.push(u32::from('\\'));
                out.push(other as u32);
            }
        }
    }
    Ok(out)
}

/// What `literal_eval` needs to know about a node for `+`/`-`: a unary sign takes only a bare
/// number constant (not a bool, not `-(-1)`); `a + b`/`a - b` only a signed real on the left and
/// a bare imaginary constant on the right (complex literals such as `1-2j`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Signed,
    Other,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::End, |t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        self.toks.get(self.pos + k).map_or(&Tok::End, |t| &t.tok)
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(1, |t| t.line)
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    fn is_op(&self, c: char) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == c)
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.is_op(c) {
            self.bump();
            Ok(())
        } else {
            Err(syntax_err("invalid syntax", self.line()))
        }
    }

    fn parse_input(mut self) -> Result<Lit, String> {
        let (lit, _) = self.parse_exprs()?;
        while matches!(self.peek(), Tok::Newline) {
            self.bump();
        }
        match self.peek() {
            Tok::End => Ok(lit),
            _ => Err(syntax_err("invalid syntax", self.line())),
        }
    }

    /// `expr (',' expr)* [',']`: a tuple as soon as one comma appears.
    fn parse_exprs(&mut self) -> Result<(Lit, Kind), String> {
        let first = self.parse_expr()?;
        if !self.is_op(',') {
            return Ok(first);
        }
        let mut items = vec![first.0];
        while self.is_op(',') {
            self.bump();
            if matches!(
                self.peek(),
                Tok::Op(')' | ']' | '}') | Tok::Newline | Tok::End
            ) {
                break;
            }
            items.push(self.parse_expr()?.0);
        }
        Ok((Lit::Tuple(items), Kind::Other))
    }

    fn parse_expr(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        let (left, kind) = self.parse_unary()?;
        let sign = match self.peek() {
            Tok::Op(c @ ('+' | '-')) => *c,
            _ => return Ok((left, kind)),
        };
        self.bump();
        let (right, right_kind) = self.parse_unary()?;
        let re = match left {
            Lit::Int(i) => i as f64,
            Lit::BigInt(f) | Lit::Float(f) if kind != Kind::Other => f,
            _ => return Err(malformed("BinOp", line)),
        };
        match right {
            Lit::Complex(r, i) if right_kind == Kind::Number && kind != Kind::Other => {
                let value = if sign == '+' {
                    Lit::Complex(re + r, i)
                } else {
                    Lit::Complex(re - r, -i)
                };
                Ok((value, Kind::Other))
            }
            _ => Err(malformed("BinOp", line)),
        }
    }

    fn parse_unary(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        match *self.peek() {
            Tok::Op(sign @ ('+' | '-')) => {
                self.bump();
                if matches!(self.peek(), Tok::Op('+' | '-' | '~')) {
                    return Err(malformed("UnaryOp", line));
                }
                let (operand, kind) = self.parse_atom()?;
                if kind != Kind::Number {
                    return Err(malformed("UnaryOp", line));
                }
                let value = match (sign, operand) {
                    ('+', v) => v,
                    (_, Lit::Int(i)) => Lit::Int(-i),
                    (_, Lit::BigInt(f)) => Lit::BigInt(-f),
                    (_, Lit::Float(f)) => Lit::Float(-f),
                    (_, Lit::Complex(r, i)) => Lit::Complex(-r, -i),
                    _ => return Err(malformed("UnaryOp", line)),
                };
                Ok((value, Kind::Signed))
            }
            Tok::Op('~') => Err(malformed("UnaryOp", line)),
            _ => self.parse_atom(),
        }
    }

    fn parse_atom(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        let tok = self.peek().clone();
        match tok {
            Tok::Num(lit) => {
                self.bump();
                Ok((lit, Kind::Number))
            }
            Tok::Str(units, bytes) => {
                self.bump();
                Ok((str_lit(&units, bytes), Kind::Other))
            }
            Tok::Ellipsis => {
                self.bump();
                let lit = Lit::Opaque {
                    what: "Ellipsis",
                    key: "E".to_string(),
                };
                Ok((lit, Kind::Other))
            }
            Tok::Name(name) => {
                self.bump();
                let lit = match name.as_str() {
                    "True" => Lit::Bool(true),
                    "False" => Lit::Bool(false),
                    "None" => Lit::None,
                    "set" if self.is_op('(') && matches!(self.peek_at(1), Tok::Op(')')) => {
                        self.bump();
                        self.bump();
                        Lit::Set(Vec::new())
                    }
                    _ => return Err(malformed("Name", line)),
                };
                Ok((lit, Kind::Other))
            }
            Tok::Op('(') => {
                self.bump();
                if self.is_op(')') {
                    self.bump();
                    return Ok((Lit::Tuple(Vec::new()), Kind::Other));
                }
                // Parentheses alone make no node: `-(1)` is still a unary minus on a constant.
                let inner = self.parse_exprs()?;
                self.expect(')')?;
                Ok(inner)
            }
            Tok::Op('[') => {
                self.bump();
                let items = self.parse_items(']')?;
                Ok((Lit::List(items), Kind::Other))
            }
            Tok::Op('{') => {
                self.bump();
                self.parse_brace().map(|lit| (lit, Kind::Other))
            }
            _ => Err(syntax_err("invalid syntax", line)),
        }
    }

    /// Comma-separated items up to `close` (trailing comma allowed); the opener is consumed.
    fn parse_items(&mut self, close: char) -> Result<Vec<Lit>, String> {
        let mut items = Vec::new();
        loop {
            if self.is_op(close) {
                self.bump();
                return Ok(items);
            }
            items.push(self.parse_expr()?.0);
            if self.is_op(',') {
                self.bump();
            } else {
                self.expect(close)?;
                return Ok(items);
            }
        }
    }

    /// After `{`: a dict (`{}` included) or a set.
    fn parse_brace(&mut self) -> Result<Lit, String> {
        if self.is_op('}') {
            self.bump();
            return Ok(Lit::Dict(Vec::new()));
        }
        let first = self.parse_expr()?.0;
        if !self.is_op(':') {
            let mut items = vec![first];
            if self.is_op(',') {
                self.bump();
                items.extend(self.parse_items('}')?);
            } else {
                self.expect('}')?;
            }
            return Ok(Lit::Set(items));
        }
        self.bump();
        let mut entries = vec![(first, self.parse_expr()?.0)];
        loop {
            if self.is_op('}') {
                self.bump();
                return Ok(Lit::Dict(entries));
            }
            self.expect(',')?;
            if self.is_op('}') {
                self.bump();
                return Ok(Lit::Dict(entries));
            }
            let key = self.parse_expr()?.0;
            if !self.is_op(':') {
                return Err(syntax_err("':' expected after dictionary key", self.line()));
            }
            self.bump();
            entries.push((key, self.parse_expr()?.0));
        }
    }
}

/// A `str` (or, for opaque values, bytes / lone-surrogate text) from literal code points.
fn str_lit(units: &[u32], bytes: bool) -> Lit {
    let key = || {
        units
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    if bytes {
        return Lit::Opaque {
            what: "a bytes literal",
            key: format!("Y{}", key()),
        };
    }
    match units
        .iter()
        .map(|&u| char::from_u32(u))
        .collect::<Option<String>>()
    {
        Some(text) => Lit::Str(text),
        None => Lit::Opaque {
            what: "a string with a lone surrogate",
            key: format!("U{}", key()),
        },
    }
}

/// Hash identity of a float: integral values collide with the equal int (`1.0 == 1`, `-0.0 == 0`).
fn float_key(f: f64) -> String {
    // 2^127: integral floats below it compare equal to the int of the same value.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f.fract() == 0.0 && f.abs() < LIMIT {
        format!("I{}", f as i128)
    } else {
        format!("F{}", f.to_bits())
    }
}

/// A string that is equal for exactly the values Python's `hash`/`==` treat as the same set
/// element or dict key (`1`, `1.0` and `True` collide); unhashable values are Python's TypeError.
fn hash_key(lit: &Lit) -> Result<String, String> {
    Ok(match lit {
        Lit::None => "N".to_string(),
        Lit::Bool(b) => format!("I{}", i32::from(*b)),
        Lit::Int(i) => format!("I{i}"),
        Lit::Float(f) => float_key(*f),
        Lit::Complex(re, im) if *im == 0.0 => float_key(*re),
        Lit::Complex(re, im) => format!("C{}/{}", float_key(*re), float_key(*im)),
        Lit::Opaque { key, .. } => key.clone(),
        Lit::BigInt(f) => format!("B{}", f.to_bits()),
        Lit::Str(s) => format!("S{}:{s}", s.len()),
        Lit::Tuple(items) => {
            let mut key = format!("T{}", items.len());
            for item in items {
                let k = hash_key(item)?;
                let _ = write!(key, "|{}:{k}", k.len());
            }
            key
        }
        Lit::List(_) => return Err("unhashable type: 'list'".to_string()),
        Lit::Set(_) => return Err("unhashable type: 'set'".to_string()),
        Lit::Dict(_) => return Err("unhashable type: 'dict'".to_string()),
    })
}

/// Python builds every set and dict, so an unhashable element fails even inside a value that a
/// later duplicate key discards; conversion to JSON (which may drop such values) comes after.
fn check_hashable(lit: &Lit) -> Result<(), String> {
    match lit {
        Lit::List(items) | Lit::Tuple(items) => items.iter().try_for_each(check_hashable),
        Lit::Set(items) => items.iter().try_for_each(|item| {
            hash_key(item)?;
            check_hashable(item)
        }),
        Lit::Dict(entries) => entries.iter().try_for_each(|(k, v)| {
            hash_key(k)?;
            check_hashable(v)
        }),
        _ => Ok(()),
    }
}

/// How `json.dumps` renders a non-string dict key.
fn json_key(lit: &Lit) -> Result<String, String> {
    match lit {
        Lit::Str(s) => Ok(s.clone()),
        Lit::Int(i) => Ok(i.to_string()),
        Lit::Float(f) => Ok(float_repr(*f)),
        Lit::Bool(b) => Ok(b.to_string()),
        Lit::None => Ok("null".to_string()),
        Lit::BigInt(_) => Err(unsupported("a dict key beyond 128-bit ints")),
        Lit::Complex(..) => Err(unsupported("a complex dict key")),
        Lit::Opaque { what, .. } => Err(unsupported(what)),
        _ => Err("keys must be str, int, float, bool or None, not tuple".to_string()),
    }
}

fn float_value(f: f64) -> Result<Value, String> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| unsupported("a float that overflows to inf"))
}

fn lit_to_value(lit: Lit) -> Result<Value, String> {
    Ok(match lit {
        Lit::None => Value::Null,
        Lit::Bool(b) => Value::Bool(b),
        Lit::Int(i) => {
            if let Ok(v) = i64::try_from(i) {
                Value::from(v)
            } else if let Ok(v) = u64::try_from(i) {
                Value::from(v)
            } else {
                float_value(i as f64)?
            }
        }
        Lit::BigInt(f) | Lit::Float(f) => float_value(f)?,
        Lit::Str(s) => Value::String(s),
        Lit::Complex(..) => return Err(unsupported("a complex number")),
        Lit::Opaque { what, .. } => return Err(unsupported(what)),
        Lit::List(items) | Lit::Tuple(items) => Value::Array(
            items
                .into_iter()
                .map(lit_to_value)
                .collect::<Result<_, _>>()?,
        ),
        Lit::Set(items) => {
            let mut seen = HashMap::new();
            let mut out = Vec::new();
            for item in items {
                if seen.insert(hash_key(&item)?, ()).is_none() {
                    out.push(lit_to_value(item)?);
                }
            }
            Value::Array(out)
        }
        Lit::Dict(entries) => {
            // Python keeps the first equal key (and its position) and the last value.
            let mut index: HashMap<String, usize> = HashMap::new();
            let mut merged: Vec<(Lit, Lit)> = Vec::new();
            for (k, v) in entries {
                let hk = hash_key(&k)?;
                match index.get(&hk) {
                    Some(&at) => merged[at].1 = v,
                    None => {
                        index.insert(hk, merged.len());
                        merged.push((k, v));
                    }
                }
            }
            let mut map = Map::new();
            for (k, v) in merged {
                map.insert(json_key(&k)?, lit_to_value(v)?);
            }
            Value::Object(map)
        }
    })
}

/// Non-printable code points ≥ U+0080 as inclusive ranges (categories Cc, Cf, Cs, Co, Cn, Zl, Zp,
/// Zs), generated from Python 3.11's `str.isprintable` (Unicode 14.0.0).
#[rustfmt::skip]
static NON_PRINTABLE: [(u32, u32); 700] = [
    (0x80, 0xA0), (0xAD, 0xAD), (0x378, 0x379), (0x380, 0x383), (0x38B, 0x38B), (0x38D, 0x38D),
    (0x3A2, 0x3A2), (0x530, 0x530), (0x557, 0x558), (0x58B, 0x58C), (0x590, 0x590), (0x5C8, 0x5CF),
    (0x5EB, 0x5EE), (0x5F5, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70E, 0x70F), (0x74B, 0x74C),
    (0x7B2, 0x7BF), (0x7FB, 0x7FC), (0x82E, 0x82F), (0x83F, 0x83F), (0x85C, 0x85D), (0x85F, 0x85F),
    (0x86B, 0x86F), (0x88F, 0x897), (0x8E2, 0x8E2), (0x984, 0x984), (0x98D, 0x98E), (0x991, 0x992),
    (0x9A9, 0x9A9), (0x9B1, 0x9B1), (0x9B3, 0x9B5), (0x9BA, 0x9BB), (0x9C5, 0x9C6), (0x9C9, 0x9CA),
    (0x9CF, 0x9D6), (0x9D8, 0x9DB), (0x9DE, 0x9DE), (0x9E4, 0x9E5), (0x9FF, 0xA00), (0xA04, 0xA04),
    (0xA0B, 0xA0E), (0xA11, 0xA12), (0xA29, 0xA29), (0xA31, 0xA31), (0xA34, 0xA34), (0xA37, 0xA37),
    (0xA3A, 0xA3B), (0xA3D, 0xA3D), (0xA43, 0xA46), (0xA49, 0xA4A), (0xA4E, 0xA50), (0xA52, 0xA58),
    (0xA5D, 0xA5D), (0xA5F, 0xA65), (0xA77, 0xA80), (0xA84, 0xA84), (0xA8E, 0xA8E), (0xA92, 0xA92),
    (0xAA9, 0xAA9), (0xAB1, 0xAB1), (0xAB4, 0xAB4), (0xABA, 0xABB), (0xAC6, 0xAC6), (0xACA, 0xACA),
    (0xACE, 0xACF), (0xAD1, 0xADF), (0xAE4, 0xAE5), (0xAF2, 0xAF8), (0xB00, 0xB00), (0xB04, 0xB04),
    (0xB0D, 0xB0E), (0xB11, 0xB12), (0xB29, 0xB29), (0xB31, 0xB31), (0xB34, 0xB34), (0xB3A, 0xB3B),
    (0xB45, 0xB46), (0xB49, 0xB4A), (0xB4E, 0xB54), (0xB58, 0xB5B), (0xB5E, 0xB5E), (0xB64, 0xB65),
    (0xB78, 0xB81), (0xB84, 0xB84), (0xB8B, 0xB8D), (0xB91, 0xB91), (0xB96, 0xB98), (0xB9B, 0xB9B),
    (0xB9D, 0xB9D), (0xBA0, 0xBA2), (0xBA5, 0xBA7), (0xBAB, 0xBAD), (0xBBA, 0xBBD), (0xBC3, 0xBC5),
    (0xBC9, 0xBC9), (0xBCE, 0xBCF), (0xBD1, 0xBD6), (0xBD8, 0xBE5), (0xBFB, 0xBFF), (0xC0D, 0xC0D),
    (0xC11, 0xC11), (0xC29, 0xC29), (0xC3A, 0xC3B), (0xC45, 0xC45), (0xC49, 0xC49), (0xC4E, 0xC54),
    (0xC57, 0xC57), (0xC5B, 0xC5C), (0xC5E, 0xC5F), (0xC64, 0xC65), (0xC70, 0xC76), (0xC8D, 0xC8D),
    (0xC91, 0xC91), (0xCA9, 0xCA9), (0xCB4, 0xCB4), (0xCBA, 0xCBB), (0xCC5, 0xCC5), (0xCC9, 0xCC9),
    (0xCCE, 0xCD4), (0xCD7, 0xCDC), (0xCDF, 0xCDF), (0xCE4, 0xCE5), (0xCF0, 0xCF0), (0xCF3, 0xCFF),
    (0xD0D, 0xD0D), (0xD11, 0xD11), (0xD45, 0xD45), (0xD49, 0xD49), (0xD50, 0xD53), (0xD64, 0xD65),
    (0xD80, 0xD80), (0xD84, 0xD84), (0xD97, 0xD99), (0xDB2, 0xDB2), (0xDBC, 0xDBC), (0xDBE, 0xDBF),
    (0xDC7, 0xDC9), (0xDCB, 0xDCE), (0xDD5, 0xDD5), (0xDD7, 0xDD7), (0xDE0, 0xDE5), (0xDF0, 0xDF1),
    (0xDF5, 0xE00), (0xE3B, 0xE3E), (0xE5C, 0xE80), (0xE83, 0xE83), (0xE85, 0xE85), (0xE8B, 0xE8B),
    (0xEA4, 0xEA4), (0xEA6, 0xEA6), (0xEBE, 0xEBF), (0xEC5, 0xEC5), (0xEC7, 0xEC7), (0xECE, 0xECF),
    (0xEDA, 0xEDB), (0xEE0, 0xEFF), (0xF48, 0xF48), (0xF6D, 0xF70), (0xF98, 0xF98), (0xFBD, 0xFBD),
    (0xFCD, 0xFCD), (0xFDB, 0xFFF), (0x10C6, 0x10C6), (0x10C8, 0x10CC), (0x10CE, 0x10CF), (0x1249, 0x1249),
    (0x124E, 0x124F), (0x1257, 0x1257), (0x1259, 0x1259), (0x125E, 0x125F), (0x1289, 0x1289), (0x128E, 0x128F),
    (0x12B1, 0x12B1), (0x12B6, 0x12B7), (0x12BF, 0x12BF), (0x12C1, 0x12C1), (0x12C6, 0x12C7), (0x12D7, 0x12D7),
    (0x1311, 0x1311), (0x1316, 0x1317), (0x135B, 0x135C), (0x137D, 0x137F), (0x139A, 0x139F), (0x13F6, 0x13F7),
    (0x13FE, 0x13FF), (0x1680, 0x1680), (0x169D, 0x169F), (0x16F9, 0x16FF), (0x1716, 0x171E), (0x1737, 0x173F),
    (0x1754, 0x175F), (0x176D, 0x176D), (0x1771, 0x1771), (0x1774, 0x177F), (0x17DE, 0x17DF), (0x17EA, 0x17EF),
    (0x17FA, 0x17FF), (0x180E, 0x180E), (0x181A, 0x181F), (0x1879, 0x187F), (0x18AB, 0x18AF), (0x18F6, 0x18FF),
    (0x191F, 0x191F), (0x192C, 0x192F), (0x193C, 0x193F), (0x1941, 0x1943), (0x196E, 0x196F), (0x1975, 0x197F),
    (0x19AC, 0x19AF), (0x19CA, 0x19CF), (0x19DB, 0x19DD), (0x1A1C, 0x1A1D), (0x1A5F, 0x1A5F), (0x1A7D, 0x1A7E),
    (0x1A8A, 0x1A8F), (0x1A9A, 0x1A9F), (0x1AAE, 0x1AAF), (0x1ACF, 0x1AFF), (0x1B4D, 0x1B4F), (0x1B7F, 0x1B7F),
    (0x1BF4, 0x1BFB), (0x1C38, 0x1C3A), (0x1C4A, 0x1C4C), (0x1C89, 0x1C8F), (0x1CBB, 0x1CBC), (0x1CC8, 0x1CCF),
    (0x1CFB, 0x1CFF), (0x1F16, 0x1F17), (0x1F1E, 0x1F1F), (0x1F46, 0x1F47), (0x1F4E, 0x1F4F), (0x1F58, 0x1F58),
    (0x1F5A, 0x1F5A), (0x1F5C, 0x1F5C), (0x1F5E, 0x1F5E), (0x1F7E, 0x1F7F), (0x1FB5, 0x1FB5), (0x1FC5, 0x1FC5),
    (0x1FD4, 0x1FD5), (0x1FDC, 0x1FDC), (0x1FF0, 0x1FF1), (0x1FF5, 0x1FF5), (0x1FFF, 0x200F), (0x2028, 0x202F),
    (0x205F, 0x206F), (0x2072, 0x2073), (0x208F, 0x208F), (0x209D, 0x209F), (0x20C1, 0x20CF), (0x20F1, 0x20FF),
    (0x218C, 0x218F), (0x2427, 0x243F), (0x244B, 0x245F), (0x2B74, 0x2B75), (0x2B96, 0x2B96), (0x2CF4, 0x2CF8),
    (0x2D26, 0x2D26), (0x2D28, 0x2D2C), (0x2D2E, 0x2D2F), (0x2D68, 0x2D6E), (0x2D71, 0x2D7E), (0x2D97, 0x2D9F),
    (0x2DA7, 0x2DA7), (0x2DAF, 0x2DAF), (0x2DB7, 0x2DB7), (0x2DBF, 0x2DBF), (0x2DC7, 0x2DC7), (0x2DCF, 0x2DCF),
    (0x2DD7, 0x2DD7), (0x2DDF, 0x2DDF), (0x2E5E, 0x2E7F), (0x2E9A, 0x2E9A), (0x2EF4, 0x2EFF), (0x2FD6, 0x2FEF),
    (0x2FFC, 0x3000), (0x3040, 0x3040), (0x3097, 0x3098), (0x3100, 0x3104), (0x3130, 0x3130), (0x318F, 0x318F),
    (0x31E4, 0x31EF), (0x321F, 0x321F), (0xA48D, 0xA48F), (0xA4C7, 0xA4CF), (0xA62C, 0xA63F), (0xA6F8, 0xA6FF),
    (0xA7CB, 0xA7CF), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7F1), (0xA82D, 0xA82F), (0xA83A, 0xA83F),
    (0xA878, 0xA87F), (0xA8C6, 0xA8CD), (0xA8DA, 0xA8DF), (0xA954, 0xA95E), (0xA97D, 0xA97F), (0xA9CE, 0xA9CE),
    (0xA9DA, 0xA9DD), (0xA9FF, 0xA9FF), (0xAA37, 0xAA3F), (0xAA4E, 0xAA4F), (0xAA5A, 0xAA5B), (0xAAC3, 0xAADA),
    (0xAAF7, 0xAB00), (0xAB07, 0xAB08), (0xAB0F, 0xAB10), (0xAB17, 0xAB1F), (0xAB27, 0xAB27), (0xAB2F, 0xAB2F),
    (0xAB6C, 0xAB6F), (0xABEE, 0xABEF), (0xABFA, 0xABFF), (0xD7A4, 0xD7AF), (0xD7C7, 0xD7CA), (0xD7FC, 0xF8FF),
    (0xFA6E, 0xFA6F), (0xFADA, 0xFAFF), (0xFB07, 0xFB12), (0xFB18, 0xFB1C), (0xFB37, 0xFB37), (0xFB3D, 0xFB3D),
    (0xFB3F, 0xFB3F), (0xFB42, 0xFB42), (0xFB45, 0xFB45), (0xFBC3, 0xFBD2), (0xFD90, 0xFD91), (0xFDC8, 0xFDCE),
    (0xFDD0, 0xFDEF), (0xFE1A, 0xFE1F), (0xFE53, 0xFE53), (0xFE67, 0xFE67), (0xFE6C, 0xFE6F), (0xFE75, 0xFE75),
    (0xFEFD, 0xFF00), (0xFFBF, 0xFFC1), (0xFFC8, 0xFFC9), (0xFFD0, 0xFFD1), (0xFFD8, 0xFFD9), (0xFFDD, 0xFFDF),
    (0xFFE7, 0xFFE7), (0xFFEF, 0xFFFB), (0xFFFE, 0xFFFF), (0x1000C, 0x1000C), (0x10027, 0x10027), (0x1003B, 0x1003B),
    (0x1003E, 0x1003E), (0x1004E, 0x1004F), (0x1005E, 0x1007F), (0x100FB, 0x100FF), (0x10103, 0x10106), (0x10134, 0x10136),
    (0x1018F, 0x1018F), (0x1019D, 0x1019F), (0x101A1, 0x101CF), (0x101FE, 0x1027F), (0x1029D, 0x1029F), (0x102D1, 0x102DF),
    (0x102FC, 0x102FF), (0x10324, 0x1032C), (0x1034B, 0x1034F), (0x1037B, 0x1037F), (0x1039E, 0x1039E), (0x103C4, 0x103C7),
    (0x103D6, 0x103FF), (0x1049E, 0x1049F), (0x104AA, 0x104AF), (0x104D4, 0x104D7), (0x104FC, 0x104FF), (0x10528, 0x1052F),
    (0x10564, 0x1056E), (0x1057B, 0x1057B), (0x1058B, 0x1058B), (0x10593, 0x10593), (0x10596, 0x10596), (0x105A2, 0x105A2),
    (0x105B2, 0x105B2), (0x105BA, 0x105BA), (0x105BD, 0x105FF), (0x10737, 0x1073F), (0x10756, 0x1075F), (0x10768, 0x1077F),
    (0x10786, 0x10786), (0x107B1, 0x107B1), (0x107BB, 0x107FF), (0x10806, 0x10807), (0x10809, 0x10809), (0x10836, 0x10836),
    (0x10839, 0x1083B), (0x1083D, 0x1083E), (0x10856, 0x10856), (0x1089F, 0x108A6), (0x108B0, 0x108DF), (0x108F3, 0x108F3),
    (0x108F6, 0x108FA), (0x1091C, 0x1091E), (0x1093A, 0x1093E), (0x10940, 0x1097F), (0x109B8, 0x109BB), (0x109D0, 0x109D1),
    (0x10A04, 0x10A04), (0x10A07, 0x10A0B), (0x10A14, 0x10A14), (0x10A18, 0x10A18), (0x10A36, 0x10A37), (0x10A3B, 0x10A3E),
    (0x10A49, 0x10A4F), (0x10A59, 0x10A5F), (0x10AA0, 0x10ABF), (0x10AE7, 0x10AEA), (0x10AF7, 0x10AFF), (0x10B36, 0x10B38),
    (0x10B56, 0x10B57), (0x10B73, 0x10B77), (0x10B92, 0x10B98), (0x10B9D, 0x10BA8), (0x10BB0, 0x10BFF), (0x10C49, 0x10C7F),
    (0x10CB3, 0x10CBF), (0x10CF3, 0x10CF9), (0x10D28, 0x10D2F), (0x10D3A, 0x10E5F), (0x10E7F, 0x10E7F), (0x10EAA, 0x10EAA),
    (0x10EAE, 0x10EAF), (0x10EB2, 0x10EFF), (0x10F28, 0x10F2F), (0x10F5A, 0x10F6F), (0x10F8A, 0x10FAF), (0x10FCC, 0x10FDF),
    (0x10FF7, 0x10FFF), (0x1104E, 0x11051), (0x11076, 0x1107E), (0x110BD, 0x110BD), (0x110C3, 0x110CF), (0x110E9, 0x110EF),
    (0x110FA, 0x110FF), (0x11135, 0x11135), (0x11148, 0x1114F), (0x11177, 0x1117F), (0x111E0, 0x111E0), (0x111F5, 0x111FF),
    (0x11212, 0x11212), (0x1123F, 0x1127F), (0x11287, 0x11287), (0x11289, 0x11289), (0x1128E, 0x1128E), (0x1129E, 0x1129E),
    (0x112AA, 0x112AF), (0x112EB, 0x112EF), (0x112FA, 0x112FF), (0x11304, 0x11304), (0x1130D, 0x1130E), (0x11311, 0x11312),
    (0x11329, 0x11329), (0x11331, 0x11331), (0x11334, 0x11334), (0x1133A, 0x1133A), (0x11345, 0x11346), (0x11349, 0x1134A),
    (0x1134E, 0x1134F), (0x11351, 0x11356), (0x11358, 0x1135C), (0x11364, 0x11365), (0x1136D, 0x1136F), (0x11375, 0x113FF),
    (0x1145C, 0x1145C), (0x11462, 0x1147F), (0x114C8, 0x114CF), (0x114DA, 0x1157F), (0x115B6, 0x115B7), (0x115DE, 0x115FF),
    (0x11645, 0x1164F), (0x1165A, 0x1165F), (0x1166D, 0x1167F), (0x116BA, 0x116BF), (0x116CA, 0x116FF), (0x1171B, 0x1171C),
    (0x1172C, 0x1172F), (0x11747, 0x117FF), (0x1183C, 0x1189F), (0x118F3, 0x118FE), (0x11907, 0x11908), (0x1190A, 0x1190B),
    (0x11914, 0x11914), (0x11917, 0x11917), (0x11936, 0x11936), (0x11939, 0x1193A), (0x11947, 0x1194F), (0x1195A, 0x1199F),
    (0x119A8, 0x119A9), (0x119D8, 0x119D9), (0x119E5, 0x119FF), (0x11A48, 0x11A4F), (0x11AA3, 0x11AAF), (0x11AF9, 0x11BFF),
    (0x11C09, 0x11C09), (0x11C37, 0x11C37), (0x11C46, 0x11C4F), (0x11C6D, 0x11C6F), (0x11C90, 0x11C91), (0x11CA8, 0x11CA8),
    (0x11CB7, 0x11CFF), (0x11D07, 0x11D07), (0x11D0A, 0x11D0A), (0x11D37, 0x11D39), (0x11D3B, 0x11D3B), (0x11D3E, 0x11D3E),
    (0x11D48, 0x11D4F), (0x11D5A, 0x11D5F), (0x11D66, 0x11D66), (0x11D69, 0x11D69), (0x11D8F, 0x11D8F), (0x11D92, 0x11D92),
    (0x11D99, 0x11D9F), (0x11DAA, 0x11EDF), (0x11EF9, 0x11FAF), (0x11FB1, 0x11FBF), (0x11FF2, 0x11FFE), (0x1239A, 0x123FF),
    (0x1246F, 0x1246F), (0x12475, 0x1247F), (0x12544, 0x12F8F), (0x12FF3, 0x12FFF), (0x1342F, 0x143FF), (0x14647, 0x167FF),
    (0x16A39, 0x16A3F), (0x16A5F, 0x16A5F), (0x16A6A, 0x16A6D), (0x16ABF, 0x16ABF), (0x16ACA, 0x16ACF), (0x16AEE, 0x16AEF),
    (0x16AF6, 0x16AFF), (0x16B46, 0x16B4F), (0x16B5A, 0x16B5A), (0x16B62, 0x16B62), (0x16B78, 0x16B7C), (0x16B90, 0x16E3F),
    (0x16E9B, 0x16EFF), (0x16F4B, 0x16F4E), (0x16F88, 0x16F8E), (0x16FA0, 0x16FDF), (0x16FE5, 0x16FEF), (0x16FF2, 0x16FFF),
    (0x187F8, 0x187FF), (0x18CD6, 0x18CFF), (0x18D09, 0x1AFEF), (0x1AFF4, 0x1AFF4), (0x1AFFC, 0x1AFFC), (0x1AFFF, 0x1AFFF),
    (0x1B123, 0x1B14F), (0x1B153, 0x1B163), (0x1B168, 0x1B16F), (0x1B2FC, 0x1BBFF), (0x1BC6B, 0x1BC6F), (0x1BC7D, 0x1BC7F),
    (0x1BC89, 0x1BC8F), (0x1BC9A, 0x1BC9B), (0x1BCA0, 0x1CEFF), (0x1CF2E, 0x1CF2F), (0x1CF47, 0x1CF4F), (0x1CFC4, 0x1CFFF),
    (0x1D0F6, 0x1D0FF), (0x1D127, 0x1D128), (0x1D173, 0x1D17A), (0x1D1EB, 0x1D1FF), (0x1D246, 0x1D2DF), (0x1D2F4, 0x1D2FF),
    (0x1D357, 0x1D35F), (0x1D379, 0x1D3FF), (0x1D455, 0x1D455), (0x1D49D, 0x1D49D), (0x1D4A0, 0x1D4A1), (0x1D4A3, 0x1D4A4),
    (0x1D4A7, 0x1D4A8), (0x1D4AD, 0x1D4AD), (0x1D4BA, 0x1D4BA), (0x1D4BC, 0x1D4BC), (0x1D4C4, 0x1D4C4), (0x1D506, 0x1D506),
    (0x1D50B, 0x1D50C), (0x1D515, 0x1D515), (0x1D51D, 0x1D51D), (0x1D53A, 0x1D53A), (0x1D53F, 0x1D53F), (0x1D545, 0x1D545),
    (0x1D547, 0x1D549), (0x1D551, 0x1D551), (0x1D6A6, 0x1D6A7), (0x1D7CC, 0x1D7CD), (0x1DA8C, 0x1DA9A), (0x1DAA0, 0x1DAA0),
    (0x1DAB0, 0x1DEFF), (0x1DF1F, 0x1DFFF), (0x1E007, 0x1E007), (0x1E019, 0x1E01A), (0x1E022, 0x1E022), (0x1E025, 0x1E025),
    (0x1E02B, 0x1E0FF), (0x1E12D, 0x1E12F), (0x1E13E, 0x1E13F), (0x1E14A, 0x1E14D), (0x1E150, 0x1E28F), (0x1E2AF, 0x1E2BF),
    (0x1E2FA, 0x1E2FE), (0x1E300, 0x1E7DF), (0x1E7E7, 0x1E7E7), (0x1E7EC, 0x1E7EC), (0x1E7EF, 0x1E7EF), (0x1E7FF, 0x1E7FF),
    (0x1E8C5, 0x1E8C6), (0x1E8D7, 0x1E8FF), (0x1E94C, 0x1E94F), (0x1E95A, 0x1E95D), (0x1E960, 0x1EC70), (0x1ECB5, 0x1ED00),
    (0x1ED3E, 0x1EDFF), (0x1EE04, 0x1EE04), (0x1EE20, 0x1EE20), (0x1EE23, 0x1EE23), (0x1EE25, 0x1EE26), (0x1EE28, 0x1EE28),
    (0x1EE33, 0x1EE33), (0x1EE38, 0x1EE38), (0x1EE3A, 0x1EE3A), (0x1EE3C, 0x1EE41), (0x1EE43, 0x1EE46), (0x1EE48, 0x1EE48),
    (0x1EE4A, 0x1EE4A), (0x1EE4C, 0x1EE4C), (0x1EE50, 0x1EE50), (0x1EE53, 0x1EE53), (0x1EE55, 0x1EE56), (0x1EE58, 0x1EE58),
    (0x1EE5A, 0x1EE5A), (0x1EE5C, 0x1EE5C), (0x1EE5E, 0x1EE5E), (0x1EE60, 0x1EE60), (0x1EE63, 0x1EE63), (0x1EE65, 0x1EE66),
    (0x1EE6B, 0x1EE6B), (0x1EE73, 0x1EE73), (0x1EE78, 0x1EE78), (0x1EE7D, 0x1EE7D), (0x1EE7F, 0x1EE7F), (0x1EE8A, 0x1EE8A),
    (0x1EE9C, 0x1EEA0), (0x1EEA4, 0x1EEA4), (0x1EEAA, 0x1EEAA), (0x1EEBC, 0x1EEEF), (0x1EEF2, 0x1EFFF), (0x1F02C, 0x1F02F),
    (0x1F094, 0x1F09F), (0x1F0AF, 0x1F0B0), (0x1F0C0, 0x1F0C0), (0x1F0D0, 0x1F0D0), (0x1F0F6, 0x1F0FF), (0x1F1AE, 0x1F1E5),
    (0x1F203, 0x1F20F), (0x1F23C, 0x1F23F), (0x1F249, 0x1F24F), (0x1F252, 0x1F25F), (0x1F266, 0x1F2FF), (0x1F6D8, 0x1F6DC),
    (0x1F6ED, 0x1F6EF), (0x1F6FD, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D9, 0x1F7DF), (0x1F7EC, 0x1F7EF), (0x1F7F1, 0x1F7FF),
    (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8AF), (0x1F8B2, 0x1F8FF),
    (0x1FA54, 0x1FA5F), (0x1FA6E, 0x1FA6F), (0x1FA75, 0x1FA77), (0x1FA7D, 0x1FA7F), (0x1FA87, 0x1FA8F), (0x1FAAD, 0x1FAAF),
    (0x1FABB, 0x1FABF), (0x1FAC6, 0x1FACF), (0x1FADA, 0x1FADF), (0x1FAE8, 0x1FAEF), (0x1FAF7, 0x1FAFF), (0x1FB93, 0x1FB93),
    (0x1FBCB, 0x1FBEF), (0x1FBFA, 0x1FFFF), (0x2A6E0, 0x2A6FF), (0x2B739, 0x2B73F), (0x2B81E, 0x2B81F), (0x2CEA2, 0x2CEAF),
    (0x2EBE1, 0x2F7FF), (0x2FA1E, 0x2FFFF), (0x3134B, 0xE00FF), (0xE01F0, 0x10FFFF),
];

/// First code point (the zero) of every run of ten Unicode decimal digits (category Nd) above ASCII;
/// Python's `float()`/`int()` accept them as 0–9. Generated from Python 3.11.
#[rustfmt::skip]
static DECIMAL_ZEROS: [u32; 65] = [
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66,
    0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810,
    0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0,
    0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0,
    0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950,
    0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC,
    0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// Non-ASCII code points for which Python's `str.isspace` is true.
static UNICODE_SPACES: [u32; 19] = [
    0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
    0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
];

// ---------------------------------------------------------------------------------------------
// tests — every expected string in the tables was printed by CPython 3.11 for the given input;
// regenerate with Python instead of editing by hand.
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{Equal, Greater, Less};

    fn v(json: &str) -> Value {
        serde_json::from_str(json).expect("test JSON")
    }

    struct Case {
        /// The value, as JSON text.
        input: &'static str,
        str: &'static str,
        repr: &'static str,
        /// `json.dumps(x, ensure_ascii=False)`
        dumps: &'static str,
        /// `json.dumps(x)`
        ascii: &'static str,
        /// `json.dumps(x, ensure_ascii=False, indent=2)`
        indent: &'static str,
        /// `json.dumps(x, ensure_ascii=False, indent=2, sort_keys=True)`
        sorted: &'static str,
    }

    #[rustfmt::skip]
    const VALUES: &[Case] = &[
        Case {
            input: "null",
            str: "None",
            repr: "None",
            dumps: "null",
            ascii: "null",
            indent: "null",
            sorted: "null",
        },
        Case {
            input: "true",
            str: "True",
            repr: "True",
            dumps: "true",
            ascii: "true",
            indent: "true",
            sorted: "true",
        },
        Case {
            input: "false",
            str: "False",
            repr: "False",
            dumps: "false",
            ascii: "false",
            indent: "false",
            sorted: "false",
        },
        Case {
            input: "0",
            str: "0",
            repr: "0",
            dumps: "0",
            ascii: "0",
            indent: "0",
            sorted: "0",
        },
        Case {
            input: "-1",
            str: "-1",
            repr: "-1",
            dumps: "-1",
            ascii: "-1",
            indent: "-1",
            sorted: "-1",
        },
        Case {
            input: "42",
            str: "42",
            repr: "42",
            dumps: "42",
            ascii: "42",
            indent: "42",
            sorted: "42",
        },
        Case {
            input: "9223372036854775807",
            str: "9223372036854775807",
            repr: "9223372036854775807",
            dumps: "9223372036854775807",
            ascii: "9223372036854775807",
            indent: "9223372036854775807",
            sorted: "9223372036854775807",
        },
        Case {
            input: "-9223372036854775808",
            str: "-9223372036854775808",
            repr: "-9223372036854775808",
            dumps: "-9223372036854775808",
            ascii: "-9223372036854775808",
            indent: "-9223372036854775808",
            sorted: "-9223372036854775808",
        },
        Case {
            input: "18446744073709551615",
            str: "18446744073709551615",
            repr: "18446744073709551615",
            dumps: "18446744073709551615",
            ascii: "18446744073709551615",
            indent: "18446744073709551615",
            sorted: "18446744073709551615",
        },
        Case {
            input: "0.0",
            str: "0.0",
            repr: "0.0",
            dumps: "0.0",
            ascii: "0.0",
            indent: "0.0",
            sorted: "0.0",
        },
        Case {
            input: "-0.0",
            str: "-0.0",
            repr: "-0.0",
            dumps: "-0.0",
            ascii: "-0.0",
            indent: "-0.0",
            sorted: "-0.0",
        },
        Case {
            input: "0.1",
            str: "0.1",
            repr: "0.1",
            dumps: "0.1",
            ascii: "0.1",
            indent: "0.1",
            sorted: "0.1",
        },
        Case {
            input: "2.0",
            str: "2.0",
            repr: "2.0",
            dumps: "2.0",
            ascii: "2.0",
            indent: "2.0",
            sorted: "2.0",
        },
        Case {
            input: "1e-05",
            str: "1e-05",
            repr: "1e-05",
            dumps: "1e-05",
            ascii: "1e-05",
            indent: "1e-05",
            sorted: "1e-05",
        },
        Case {
            input: "0.0001",
            str: "0.0001",
            repr: "0.0001",
            dumps: "0.0001",
            ascii: "0.0001",
            indent: "0.0001",
            sorted: "0.0001",
        },
        Case {
            input: "1e+16",
            str: "1e+16",
            repr: "1e+16",
            dumps: "1e+16",
            ascii: "1e+16",
            indent: "1e+16",
            sorted: "1e+16",
        },
        Case {
            input: "1e+22",
            str: "1e+22",
            repr: "1e+22",
            dumps: "1e+22",
            ascii: "1e+22",
            indent: "1e+22",
            sorted: "1e+22",
        },
        Case {
            input: "123.456",
            str: "123.456",
            repr: "123.456",
            dumps: "123.456",
            ascii: "123.456",
            indent: "123.456",
            sorted: "123.456",
        },
        Case {
            input: "100.0",
            str: "100.0",
            repr: "100.0",
            dumps: "100.0",
            ascii: "100.0",
            indent: "100.0",
            sorted: "100.0",
        },
        Case {
            input: "\"\"",
            str: "",
            repr: "''",
            dumps: "\"\"",
            ascii: "\"\"",
            indent: "\"\"",
            sorted: "\"\"",
        },
        Case {
            input: "\"abc\"",
            str: "abc",
            repr: "'abc'",
            dumps: "\"abc\"",
            ascii: "\"abc\"",
            indent: "\"abc\"",
            sorted: "\"abc\"",
        },
        Case {
            input: "\"it's\"",
            str: "it's",
            repr: "\"it's\"",
            dumps: "\"it's\"",
            ascii: "\"it's\"",
            indent: "\"it's\"",
            sorted: "\"it's\"",
        },
        Case {
            input: "\"say \\\"hi\\\"\"",
            str: "say \"hi\"",
            repr: "'say \"hi\"'",
            dumps: "\"say \\\"hi\\\"\"",
            ascii: "\"say \\\"hi\\\"\"",
            indent: "\"say \\\"hi\\\"\"",
            sorted: "\"say \\\"hi\\\"\"",
        },
        Case {
            input: "\"both ' and \\\"\"",
            str: "both ' and \"",
            repr: "'both \\' and \"'",
            dumps: "\"both ' and \\\"\"",
            ascii: "\"both ' and \\\"\"",
            indent: "\"both ' and \\\"\"",
            sorted: "\"both ' and \\\"\"",
        },
        Case {
            input: "\"back\\\\slash\"",
            str: "back\\slash",
            repr: "'back\\\\slash'",
            dumps: "\"back\\\\slash\"",
            ascii: "\"back\\\\slash\"",
            indent: "\"back\\\\slash\"",
            sorted: "\"back\\\\slash\"",
        },
        Case {
            input: "\"tab\\tnl\\nr\\r\"",
            str: "tab\tnl\nr\r",
            repr: "'tab\\tnl\\nr\\r'",
            dumps: "\"tab\\tnl\\nr\\r\"",
            ascii: "\"tab\\tnl\\nr\\r\"",
            indent: "\"tab\\tnl\\nr\\r\"",
            sorted: "\"tab\\tnl\\nr\\r\"",
        },
        Case {
            input: "\"\\u0000\\u0001\\u001f\\u007f\"",
            str: "\u{0}\u{1}\u{1f}\u{7f}",
            repr: "'\\x00\\x01\\x1f\\x7f'",
            dumps: "\"\\u0000\\u0001\\u001f\u{7f}\"",
            ascii: "\"\\u0000\\u0001\\u001f\\u007f\"",
            indent: "\"\\u0000\\u0001\\u001f\u{7f}\"",
            sorted: "\"\\u0000\\u0001\\u001f\u{7f}\"",
        },
        Case {
            input: "\"\\b\\f\\u000b\"",
            str: "\u{8}\u{c}\u{b}",
            repr: "'\\x08\\x0c\\x0b'",
            dumps: "\"\\b\\f\\u000b\"",
            ascii: "\"\\b\\f\\u000b\"",
            indent: "\"\\b\\f\\u000b\"",
            sorted: "\"\\b\\f\\u000b\"",
        },
        Case {
            input: "\"/path</script>\"",
            str: "/path</script>",
            repr: "'/path</script>'",
            dumps: "\"/path</script>\"",
            ascii: "\"/path</script>\"",
            indent: "\"/path</script>\"",
            sorted: "\"/path</script>\"",
        },
        Case {
            input: "\"\\u00e9\"",
            str: "é",
            repr: "'é'",
            dumps: "\"é\"",
            ascii: "\"\\u00e9\"",
            indent: "\"é\"",
            sorted: "\"é\"",
        },
        Case {
            input: "\"\\u4e2d\\u6587\"",
            str: "中文",
            repr: "'中文'",
            dumps: "\"中文\"",
            ascii: "\"\\u4e2d\\u6587\"",
            indent: "\"中文\"",
            sorted: "\"中文\"",
        },
        Case {
            input: "\"\\ud83d\\ude00\"",
            str: "😀",
            repr: "'😀'",
            dumps: "\"😀\"",
            ascii: "\"\\ud83d\\ude00\"",
            indent: "\"😀\"",
            sorted: "\"😀\"",
        },
        Case {
            input: "\"e\\u0301\"",
            str: "e\u{301}",
            repr: "'e\u{301}'",
            dumps: "\"e\u{301}\"",
            ascii: "\"e\\u0301\"",
            indent: "\"e\u{301}\"",
            sorted: "\"e\u{301}\"",
        },
        Case {
            input: "\"\\u00a0\"",
            str: "\u{a0}",
            repr: "'\\xa0'",
            dumps: "\"\u{a0}\"",
            ascii: "\"\\u00a0\"",
            indent: "\"\u{a0}\"",
            sorted: "\"\u{a0}\"",
        },
        Case {
            input: "\"\\u200b\"",
            str: "\u{200b}",
            repr: "'\\u200b'",
            dumps: "\"\u{200b}\"",
            ascii: "\"\\u200b\"",
            indent: "\"\u{200b}\"",
            sorted: "\"\u{200b}\"",
        },
        Case {
            input: "\"\\u2028\\u2029\"",
            str: "\u{2028}\u{2029}",
            repr: "'\\u2028\\u2029'",
            dumps: "\"\u{2028}\u{2029}\"",
            ascii: "\"\\u2028\\u2029\"",
            indent: "\"\u{2028}\u{2029}\"",
            sorted: "\"\u{2028}\u{2029}\"",
        },
        Case {
            input: "\"\\u00ad\"",
            str: "\u{ad}",
            repr: "'\\xad'",
            dumps: "\"\u{ad}\"",
            ascii: "\"\\u00ad\"",
            indent: "\"\u{ad}\"",
            sorted: "\"\u{ad}\"",
        },
        Case {
            input: "\"\\ufeff\"",
            str: "\u{feff}",
            repr: "'\\ufeff'",
            dumps: "\"\u{feff}\"",
            ascii: "\"\\ufeff\"",
            indent: "\"\u{feff}\"",
            sorted: "\"\u{feff}\"",
        },
        Case {
            input: "\"\\udb40\\udc01\"",
            str: "\u{e0001}",
            repr: "'\\U000e0001'",
            dumps: "\"\u{e0001}\"",
            ascii: "\"\\udb40\\udc01\"",
            indent: "\"\u{e0001}\"",
            sorted: "\"\u{e0001}\"",
        },
        Case {
            input: "\"\\ue000\"",
            str: "\u{e000}",
            repr: "'\\ue000'",
            dumps: "\"\u{e000}\"",
            ascii: "\"\\ue000\"",
            indent: "\"\u{e000}\"",
            sorted: "\"\u{e000}\"",
        },
        Case {
            input: "\"\\udbff\\udfff\"",
            str: "\u{10ffff}",
            repr: "'\\U0010ffff'",
            dumps: "\"\u{10ffff}\"",
            ascii: "\"\\udbff\\udfff\"",
            indent: "\"\u{10ffff}\"",
            sorted: "\"\u{10ffff}\"",
        },
        Case {
            input: "\"\\ud880\\udc00\"",
            str: "𰀀",
            repr: "'𰀀'",
            dumps: "\"𰀀\"",
            ascii: "\"\\ud880\\udc00\"",
            indent: "\"𰀀\"",
            sorted: "\"𰀀\"",
        },
        Case {
            input: "\"\\ud8bf\\udfff\"",
            str: "\u{3ffff}",
            repr: "'\\U0003ffff'",
            dumps: "\"\u{3ffff}\"",
            ascii: "\"\\ud8bf\\udfff\"",
            indent: "\"\u{3ffff}\"",
            sorted: "\"\u{3ffff}\"",
        },
        Case {
            input: "\"\\u0378\"",
            str: "\u{378}",
            repr: "'\\u0378'",
            dumps: "\"\u{378}\"",
            ascii: "\"\\u0378\"",
            indent: "\"\u{378}\"",
            sorted: "\"\u{378}\"",
        },
        Case {
            input: "\"\\u0085\"",
            str: "\u{85}",
            repr: "'\\x85'",
            dumps: "\"\u{85}\"",
            ascii: "\"\\u0085\"",
            indent: "\"\u{85}\"",
            sorted: "\"\u{85}\"",
        },
        Case {
            input: "\"\\u009f\"",
            str: "\u{9f}",
            repr: "'\\x9f'",
            dumps: "\"\u{9f}\"",
            ascii: "\"\\u009f\"",
            indent: "\"\u{9f}\"",
            sorted: "\"\u{9f}\"",
        },
        Case {
            input: "\"\\u3000\"",
            str: "\u{3000}",
            repr: "'\\u3000'",
            dumps: "\"\u{3000}\"",
            ascii: "\"\\u3000\"",
            indent: "\"\u{3000}\"",
            sorted: "\"\u{3000}\"",
        },
        Case {
            input: "\"\\u1680\"",
            str: "\u{1680}",
            repr: "'\\u1680'",
            dumps: "\"\u{1680}\"",
            ascii: "\"\\u1680\"",
            indent: "\"\u{1680}\"",
            sorted: "\"\u{1680}\"",
        },
        Case {
            input: "\"\\ud83c\\uddfa\\ud83c\\uddf8\"",
            str: "🇺🇸",
            repr: "'🇺🇸'",
            dumps: "\"🇺🇸\"",
            ascii: "\"\\ud83c\\uddfa\\ud83c\\uddf8\"",
            indent: "\"🇺🇸\"",
            sorted: "\"🇺🇸\"",
        },
        Case {
            input: "\"a\\u200db\"",
            str: "a\u{200d}b",
            repr: "'a\\u200db'",
            dumps: "\"a\u{200d}b\"",
            ascii: "\"a\\u200db\"",
            indent: "\"a\u{200d}b\"",
            sorted: "\"a\u{200d}b\"",
        },
        Case {
            input: "\"\\u061c\"",
            str: "\u{61c}",
            repr: "'\\u061c'",
            dumps: "\"\u{61c}\"",
            ascii: "\"\\u061c\"",
            indent: "\"\u{61c}\"",
            sorted: "\"\u{61c}\"",
        },
        Case {
            input: "\"\\ufffd\"",
            str: "�",
            repr: "'�'",
            dumps: "\"�\"",
            ascii: "\"\\ufffd\"",
            indent: "\"�\"",
            sorted: "\"�\"",
        },
        Case {
            input: "\"\\uffff\"",
            str: "\u{ffff}",
            repr: "'\\uffff'",
            dumps: "\"\u{ffff}\"",
            ascii: "\"\\uffff\"",
            indent: "\"\u{ffff}\"",
            sorted: "\"\u{ffff}\"",
        },
        Case {
            input: "\"\\ud83d\\ude00\\u200d\\ud83d\\udcbb\"",
            str: "😀\u{200d}💻",
            repr: "'😀\\u200d💻'",
            dumps: "\"😀\u{200d}💻\"",
            ascii: "\"\\ud83d\\ude00\\u200d\\ud83d\\udcbb\"",
            indent: "\"😀\u{200d}💻\"",
            sorted: "\"😀\u{200d}💻\"",
        },
        Case {
            input: "\"\\u210c\"",
            str: "ℌ",
            repr: "'ℌ'",
            dumps: "\"ℌ\"",
            ascii: "\"\\u210c\"",
            indent: "\"ℌ\"",
            sorted: "\"ℌ\"",
        },
        Case {
            input: "\"\\u0663\"",
            str: "٣",
            repr: "'٣'",
            dumps: "\"٣\"",
            ascii: "\"\\u0663\"",
            indent: "\"٣\"",
            sorted: "\"٣\"",
        },
        Case {
            input: "\"\\u0600\"",
            str: "\u{600}",
            repr: "'\\u0600'",
            dumps: "\"\u{600}\"",
            ascii: "\"\\u0600\"",
            indent: "\"\u{600}\"",
            sorted: "\"\u{600}\"",
        },
        Case {
            input: "\"\\udb40\\udd00\"",
            str: "\u{e0100}",
            repr: "'\u{e0100}'",
            dumps: "\"\u{e0100}\"",
            ascii: "\"\\udb40\\udd00\"",
            indent: "\"\u{e0100}\"",
            sorted: "\"\u{e0100}\"",
        },
        Case {
            input: "[]",
            str: "[]",
            repr: "[]",
            dumps: "[]",
            ascii: "[]",
            indent: "[]",
            sorted: "[]",
        },
        Case {
            input: "{}",
            str: "{}",
            repr: "{}",
            dumps: "{}",
            ascii: "{}",
            indent: "{}",
            sorted: "{}",
        },
        Case {
            input: "[[]]",
            str: "[[]]",
            repr: "[[]]",
            dumps: "[[]]",
            ascii: "[[]]",
            indent: "[\n  []\n]",
            sorted: "[\n  []\n]",
        },
        Case {
            input: "[{}]",
            str: "[{}]",
            repr: "[{}]",
            dumps: "[{}]",
            ascii: "[{}]",
            indent: "[\n  {}\n]",
            sorted: "[\n  {}\n]",
        },
        Case {
            input: "{\"\": \"\"}",
            str: "{'': ''}",
            repr: "{'': ''}",
            dumps: "{\"\": \"\"}",
            ascii: "{\"\": \"\"}",
            indent: "{\n  \"\": \"\"\n}",
            sorted: "{\n  \"\": \"\"\n}",
        },
        Case {
            input: "[1, 2.0, \"\\u00e9\", \"it's\"]",
            str: "[1, 2.0, 'é', \"it's\"]",
            repr: "[1, 2.0, 'é', \"it's\"]",
            dumps: "[1, 2.0, \"é\", \"it's\"]",
            ascii: "[1, 2.0, \"\\u00e9\", \"it's\"]",
            indent: "[\n  1,\n  2.0,\n  \"é\",\n  \"it's\"\n]",
            sorted: "[\n  1,\n  2.0,\n  \"é\",\n  \"it's\"\n]",
        },
        Case {
            input: "{\"a\": [1, 2.0, \"\\u00e9\", \"it's\"], \"b\": null, \"c\": true}",
            str: "{'a': [1, 2.0, 'é', \"it's\"], 'b': None, 'c': True}",
            repr: "{'a': [1, 2.0, 'é', \"it's\"], 'b': None, 'c': True}",
            dumps: "{\"a\": [1, 2.0, \"é\", \"it's\"], \"b\": null, \"c\": true}",
            ascii: "{\"a\": [1, 2.0, \"\\u00e9\", \"it's\"], \"b\": null, \"c\": true}",
            indent: "{\n  \"a\": [\n    1,\n    2.0,\n    \"é\",\n    \"it's\"\n  ],\n  \"b\": null,\n  \"c\": true\n}",
            sorted: "{\n  \"a\": [\n    1,\n    2.0,\n    \"é\",\n    \"it's\"\n  ],\n  \"b\": null,\n  \"c\": true\n}",
        },
        Case {
            input: "{\"k'ey\": \"v\\\"al\", \"x\": [\"a'b\\\"c\"]}",
            str: "{\"k'ey\": 'v\"al', 'x': ['a\\'b\"c']}",
            repr: "{\"k'ey\": 'v\"al', 'x': ['a\\'b\"c']}",
            dumps: "{\"k'ey\": \"v\\\"al\", \"x\": [\"a'b\\\"c\"]}",
            ascii: "{\"k'ey\": \"v\\\"al\", \"x\": [\"a'b\\\"c\"]}",
            indent: "{\n  \"k'ey\": \"v\\\"al\",\n  \"x\": [\n    \"a'b\\\"c\"\n  ]\n}",
            sorted: "{\n  \"k'ey\": \"v\\\"al\",\n  \"x\": [\n    \"a'b\\\"c\"\n  ]\n}",
        },
        Case {
            input: "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"\\u00e9\": [1, [2, [3]]], \"B\": null}",
            str: "{'z': 1, 'a': {'y': [], 'b': {}}, 'é': [1, [2, [3]]], 'B': None}",
            repr: "{'z': 1, 'a': {'y': [], 'b': {}}, 'é': [1, [2, [3]]], 'B': None}",
            dumps: "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"é\": [1, [2, [3]]], \"B\": null}",
            ascii: "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"\\u00e9\": [1, [2, [3]]], \"B\": null}",
            indent: "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [],\n    \"b\": {}\n  },\n  \"é\": [\n    1,\n    [\n      2,\n      [\n        3\n      ]\n    ]\n  ],\n  \"B\": null\n}",
            sorted: "{\n  \"B\": null,\n  \"a\": {\n    \"b\": {},\n    \"y\": []\n  },\n  \"z\": 1,\n  \"é\": [\n    1,\n    [\n      2,\n      [\n        3\n      ]\n    ]\n  ]\n}",
        },
        Case {
            input: "[null, true, false, -0.0, 1e+16, \"\\n\", {\"q\": [{}]}]",
            str: "[None, True, False, -0.0, 1e+16, '\\n', {'q': [{}]}]",
            repr: "[None, True, False, -0.0, 1e+16, '\\n', {'q': [{}]}]",
            dumps: "[null, true, false, -0.0, 1e+16, \"\\n\", {\"q\": [{}]}]",
            ascii: "[null, true, false, -0.0, 1e+16, \"\\n\", {\"q\": [{}]}]",
            indent: "[\n  null,\n  true,\n  false,\n  -0.0,\n  1e+16,\n  \"\\n\",\n  {\n    \"q\": [\n      {}\n    ]\n  }\n]",
            sorted: "[\n  null,\n  true,\n  false,\n  -0.0,\n  1e+16,\n  \"\\n\",\n  {\n    \"q\": [\n      {}\n    ]\n  }\n]",
        },
    ];

    #[test]
    fn renders_values_like_python() {
        for c in VALUES {
            let x = v(c.input);
            assert_eq!(str_of(&x), c.str, "str({})", c.input);
            assert_eq!(repr_of(&x), c.repr, "repr({})", c.input);
            assert_eq!(json_dumps(&x), c.dumps, "dumps({})", c.input);
            assert_eq!(json_dumps_ascii(&x), c.ascii, "dumps ascii({})", c.input);
            assert_eq!(
                json_dumps_indent(&x, 2, false),
                c.indent,
                "indent({})",
                c.input
            );
            assert_eq!(
                json_dumps_indent(&x, 2, true),
                c.sorted,
                "sorted({})",
                c.input
            );
        }
    }

    #[test]
    fn spec_example_and_other_indents() {
        let x = v(r#"{"a": [1, 2.0, "é", "it's"], "b": null, "c": true}"#);
        assert_eq!(
            str_of(&x),
            r#"{'a': [1, 2.0, 'é', "it's"], 'b': None, 'c': True}"#
        );
        // json.dumps(x, indent=0) / indent=4
        let y = v(r#"{"k": [1, {"a": []}], "e": {}}"#);
        assert_eq!(
            json_dumps_indent(&y, 0, false),
            "{\n\"k\": [\n1,\n{\n\"a\": []\n}\n],\n\"e\": {}\n}"
        );
        assert_eq!(
            json_dumps_indent(&y, 4, true),
            "{\n    \"e\": {},\n    \"k\": [\n        1,\n        {\n            \"a\": []\n        }\n    ]\n}"
        );
        assert_eq!(
            json_dumps_opts(
                &v(r#"{"b": "é", "a": 1}"#),
                JsonOpts {
                    ensure_ascii: true,
                    indent: None,
                    sort_keys: true,
                    compact: false
                }
            ),
            r#"{"a": 1, "b": "\u00e9"}"#
        );
        assert_eq!(json_dumps_indent(&v("[]"), 2, false), "[]");
        assert_eq!(json_dumps_indent(&v("\"x\""), 2, false), "\"x\"");
    }

    /// (Python `repr(f)` used as the input literal — it round-trips — and expected `repr`)
    const FLOATS: &[(&str, &str)] = &[
        ("0.0", "0.0"),
        ("-0.0", "-0.0"),
        ("0.1", "0.1"),
        ("-0.1", "-0.1"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("0.3333333333333333", "0.3333333333333333"),
        ("2.0", "2.0"),
        ("100.0", "100.0"),
        ("0.0001", "0.0001"),
        ("1e-05", "1e-05"),
        ("0.00012345", "0.00012345"),
        ("1.5e-07", "1.5e-07"),
        ("1000000000000000.0", "1000000000000000.0"),
        ("9999999999999998.0", "9999999999999998.0"),
        ("1e+16", "1e+16"),
        ("1e+17", "1e+17"),
        ("1.2345678901234568e+17", "1.2345678901234568e+17"),
        ("1.5e+300", "1.5e+300"),
        ("-1.5e+300", "-1.5e+300"),
        ("5e-324", "5e-324"),
        ("2.2250738585072014e-308", "2.2250738585072014e-308"),
        ("1.7976931348623157e+308", "1.7976931348623157e+308"),
        ("1e+22", "1e+22"),
        ("1e+23", "1e+23"),
        ("9007199254740992.0", "9007199254740992.0"),
        ("9007199254740994.0", "9007199254740994.0"),
        ("0.5", "0.5"),
        ("1234.5", "1234.5"),
        ("2.5e-08", "2.5e-08"),
        ("inf", "inf"),
        ("-inf", "-inf"),
        ("nan", "nan"),
        ("-1359936536649604.2", "-1359936536649604.2"),
        ("2503755325749.5312", "2503755325749.5312"),
        ("142249188942015.12", "142249188942015.12"),
        ("9.5e-05", "9.5e-05"),
        ("1.2345678901234568e+16", "1.2345678901234568e+16"),
        ("4.35", "4.35"),
        ("0.3", "0.3"),
    ];

    #[test]
    fn float_repr_matches_python() {
        for (text, expected) in FLOATS {
            let f: f64 = text.parse().expect("float literal");
            assert_eq!(float_repr(f), *expected, "repr({text})");
            if f.is_finite() {
                let x = Value::from(f);
                assert_eq!(json_dumps(&x), *expected);
                assert_eq!(str_of(&x), *expected);
            }
        }
    }

    #[test]
    fn float_repr_round_trips_random_bits() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let f = f64::from_bits(rng.next());
            let r = float_repr(f);
            if f.is_nan() {
                assert_eq!(r, "nan");
                continue;
            }
            let back: f64 = r.parse().expect("repr parses");
            assert_eq!(back.to_bits(), f.to_bits(), "{r}");
            let digits = r
                .split('e')
                .next()
                .unwrap_or("")
                .chars()
                .filter(char::is_ascii_digit)
                .collect::<String>();
            assert!(digits.trim_matches('0').len() <= 17, "{r}");
        }
    }

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
            float_to_int(f64::NAN),
            Err("cannot convert float NaN to integer".to_string())
        );
        assert_eq!(
            float_to_int(f64::NEG_INFINITY),
            Err("cannot convert float infinity to integer".to_string())
        );
        assert!(parse_float("-nan").is_some_and(|f| f.is_nan() && f.is_sign_negative()));
    }

    /// (source, `json.dumps` of Python's result, or None where literal_eval fails here)
    const LITERAL_EVAL: &[(&str, Option<&str>)] = &[
        ("1", Some("1")),
        ("-1", Some("-1")),
        ("+1", Some("1")),
        ("1.5", Some("1.5")),
        ("-0.0", Some("-0.0")),
        (".5", Some("0.5")),
        ("5.", Some("5.0")),
        ("1e3", Some("1000.0")),
        ("1E+3", Some("1000.0")),
        ("1_000", Some("1000")),
        ("0x_1f", Some("31")),
        ("0o17", Some("15")),
        ("0b101", Some("5")),
        ("0X1F", Some("31")),
        ("00", Some("0")),
        ("0_0", Some("0")),
        ("01", None),
        ("0_7", None),
        ("1__0", None),
        ("1_", None),
        ("1e", None),
        ("0x", None),
        ("0b2", None),
        ("1.e5", Some("100000.0")),
        ("1_0.5_0", Some("10.5")),
        ("1e1_0", Some("10000000000.0")),
        ("1._0", None),
        ("0e0", Some("0.0")),
        ("9223372036854775807", Some("9223372036854775807")),
        ("-9223372036854775808", Some("-9223372036854775808")),
        ("9223372036854775808", Some("9223372036854775808")),
        ("18446744073709551615", Some("18446744073709551615")),
        ("18446744073709551616", Some("1.8446744073709552e+19")),
        ("True", Some("true")),
        ("False", Some("false")),
        ("None", Some("null")),
        ("true", None),
        ("null", None),
        ("Truex", None),
        ("'a'", Some("\"a\"")),
        ("\"b\"", Some("\"b\"")),
        ("'''a\nb'''", Some("\"a\\nb\"")),
        ("\"\"\"x\"\"\"", Some("\"x\"")),
        ("'a\nb'", None),
        ("'a' 'b'", Some("\"ab\"")),
        ("'a'\n'b'", None),
        ("['a'\n 'b']", Some("[\"ab\"]")),
        ("r'\\n'", Some("\"\\\\n\"")),
        ("R'\\''", Some("\"\\\\'\"")),
        ("u'x'", Some("\"x\"")),
        ("'\\n\\t\\\\\\'\\\"'", Some("\"\\n\\t\\\\'\\\"\"")),
        ("'\\x41\\u00e9\\U0001F600'", Some("\"Aé😀\"")),
        ("'\\101\\0'", Some("\"A\\u0000\"")),
        ("'\\777'", Some("\"ǿ\"")),
        ("'\\8'", Some("\"\\\\8\"")),
        ("'\\d'", Some("\"\\\\d\"")),
        ("'\\a\\b\\f\\v'", Some("\"\\u0007\\b\\f\\u000b\"")),
        ("'\\x4'", None),
        ("'\\u12'", None),
        ("'\\U00110000'", None),
        ("'it\\'s'", Some("\"it's\"")),
        ("\"it's\"", Some("\"it's\"")),
        ("'é中😀'", Some("\"é中😀\"")),
        ("'a\\\nb'", Some("\"ab\"")),
        ("'''a\r\nb'''", Some("\"a\\nb\"")),
        ("'a\rb'", None),
        ("'''a'''''", Some("\"a\"")),
        ("''''''", Some("\"\"")),
        ("'''''", None),
        ("[]", Some("[]")),
        ("()", Some("[]")),
        ("{}", Some("{}")),
        ("[1,]", Some("[1]")),
        ("(1,)", Some("[1]")),
        ("(1)", Some("1")),
        ("((1))", Some("1")),
        ("-(1)", Some("-1")),
        ("-((1))", Some("-1")),
        ("--1", None),
        ("-+1", None),
        ("+-1", None),
        ("-True", None),
        ("+'a'", None),
        ("-(1,)", None),
        ("1,", Some("[1]")),
        ("1, 2", Some("[1, 2]")),
        ("(1, 2,)", Some("[1, 2]")),
        ("(,)", None),
        ("[,]", None),
        ("(1,,)", None),
        ("[1, [2, (3, {4: 5})]]", Some("[1, [2, [3, {\"4\": 5}]]]")),
        (
            "{'a': 1, 'b': [True, None]}",
            Some("{\"a\": 1, \"b\": [true, null]}"),
        ),
        ("{1: 2,}", Some("{\"1\": 2}")),
        ("{1: 'a', True: 'b'}", Some("{\"1\": \"b\"}")),
        ("{True: 'a', 1: 'b'}", Some("{\"true\": \"b\"}")),
        ("{0: 1, 0.0: 2, False: 3}", Some("{\"0\": 3}")),
        ("{-0.0: 1}", Some("{\"-0.0\": 1}")),
        (
            "{1.5: 2, None: 3, False: 4}",
            Some("{\"1.5\": 2, \"null\": 3, \"false\": 4}"),
        ),
        ("{'a': 1, 'a': 2}", Some("{\"a\": 2}")),
        ("{1e16: 'x'}", Some("{\"1e+16\": \"x\"}")),
        (
            "{(1, 2): 3}",
            None, /* accepted by Python, no JSON form */
        ),
        ("{[1]: 2}", None),
        ("{1: 2, 3}", None),
        ("{1:2,,}", None),
        ("{,}", None),
        ("{**{}}", None),
        ("{1, 2, 3}", Some("[1, 2, 3]")),
        ("{1,}", Some("[1]")),
        ("{1, 1.0, True}", Some("[1]")),
        ("{'x', 'x'}", Some("[\"x\"]")),
        ("{[1]}", None),
        ("{(1, 2), (1, 2.0)}", Some("[[1, 2]]")),
        ("set()", Some("[]")),
        ("set( )", Some("[]")),
        ("set(1)", None),
        ("frozenset()", None),
        ("[*[]]", None),
        ("1+2", None),
        ("1 if 1 else 2", None),
        ("[1][0]", None),
        ("'abc'[0]", None),
        ("x", None),
        ("1 2", None),
        ("1;", None),
        ("1\n2", None),
        ("1 # c", Some("1")),
        ("# c\n1", Some("1")),
        ("\n1", Some("1")),
        ("\n  1", None),
        ("  1", Some("1")),
        ("\t1", Some("1")),
        ("1\n", Some("1")),
        ("1\n\n", Some("1")),
        ("1\n  ", None),
        ("1\n  # c", Some("1")),
        ("\\\n1", Some("1")),
        ("1 \\\n", None),
        ("1\\", None),
        ("'a'\\\n'b'", Some("\"ab\"")),
        ("[\\\n1]", Some("[1]")),
        ("\\\n\t0", None),
        ("\\\n\\\n\n0", Some("0")),
        ("\u{c}1", Some("1")),
        ("\u{b}1", None),
        ("\u{c}  1", None),
        ("1\r\n", Some("1")),
        ("\r\n1", Some("1")),
        ("1\r2", None),
        ("", None),
        (" ", None),
        ("#", None),
        ("\n", None),
        ("  # only comment", None),
        ("[1, 2", None),
        ("1)", None),
        ("]", None),
        ("(]", None),
        ("'abc", None),
        ("'''abc''", None),
        ("1.real", None),
        ("1 .real", None),
        ("1e400", None /* accepted by Python, no JSON form */),
        ("1j", None /* accepted by Python, no JSON form */),
        ("1+2j", None /* accepted by Python, no JSON form */),
        ("-1j", None /* accepted by Python, no JSON form */),
        ("...", None /* accepted by Python, no JSON form */),
        ("b'x'", None /* accepted by Python, no JSON form */),
        ("f'x'", None),
        ("'x' f'y'", None),
        ("'a' b'b'", None),
        ("ur'x'", None),
        (
            "'\\ud800'",
            None, /* accepted by Python, no JSON form */
        ),
        ("'\\N{BULLET}'", None /* \N{...} unsupported */),
        ("é", None),
        ("ｓｅｔ()", None /* NFKC identifiers unsupported */),
        ("'\u{0}'", None),
        ("{1: 1j, 1: 2}", Some("{\"1\": 2}")),
        (
            "{b'k': 1, b'k': 2}",
            None, /* accepted by Python, no JSON form */
        ),
        ("{'a': b'x', 'a': 'y'}", Some("{\"a\": \"y\"}")),
        ("{1: {{1: 2}}, 1: 0}", None),
        ("0xFFFFFFFFFFFFFFFFFFFFFFFF", Some("7.922816251426434e+28")),
        ("1_000.0", Some("1000.0")),
        (".5_5", Some("0.55")),
        ("1e5_", None),
        ("0_", None),
        ("0o8", None),
        (
            "{'k': [1, {'j': (2,)}], 'e': 'é', 'n': None}",
            Some("{\"k\": [1, {\"j\": [2]}], \"e\": \"é\", \"n\": null}"),
        ),
        ("[1, 'a' #c\n , 2]", Some("[1, \"a\", 2]")),
        ("- 1", Some("-1")),
        ("-\n1", None),
        ("(-\n1)", Some("-1")),
    ];

    #[test]
    fn literal_eval_matches_python() {
        for (src, expected) in LITERAL_EVAL {
            let got = literal_eval(src).map(|x| json_dumps(&x));
            assert_eq!(
                got.as_deref().ok(),
                *expected,
                "literal_eval({src:?}) = {got:?}"
            );
        }
    }

    #[test]
    fn literal_eval_limits_and_messages() {
        // Python allows 200 nested brackets, not 201.
        let ok = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(literal_eval(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(201), "]".repeat(201));
        assert_eq!(
            literal_eval(&deep),
            Err("too many nested parentheses (<unknown>, line 1)".to_string())
        );
        let deep_sets = format!("{}{{1}}{}", "[".repeat(199), "]".repeat(199));
        assert!(literal_eval(&deep_sets).is_ok());
        // 4300 decimal digits is the limit for int literals (all-zero literals are exempt); ints
        // beyond u64 become floats, which fails once they overflow (approximation).
        assert!(literal_eval(&"9".repeat(300)).is_ok_and(|x| x.is_f64()));
        assert!(literal_eval(&"9".repeat(4300))
            .is_err_and(|e| e.contains("float that overflows to inf")));
        assert!(literal_eval(&"9".repeat(4301)).is_err_and(|e| e.starts_with("Exceeds the limit")));
        assert_eq!(literal_eval(&"0".repeat(5000)), Ok(Value::from(0)));
        // Ints beyond u64 become floats (approximation).
        assert_eq!(
            literal_eval("0xFFFFFFFFFFFFFFFFFFFFFFFF").map(|x| json_dumps(&x)),
            Ok("7.922816251426434e+28".to_string())
        );
        assert_eq!(
            literal_eval("x"),
            Err("malformed node or string on line 1: <ast.Name object>".to_string())
        );
        assert_eq!(
            literal_eval("[1,\n 2,\n x]"),
            Err("malformed node or string on line 3: <ast.Name object>".to_string())
        );
        assert_eq!(
            literal_eval("{[1]: 2}"),
            Err("unhashable type: 'list'".to_string())
        );
        assert_eq!(
            literal_eval("'abc"),
            Err("unterminated string literal (<unknown>, line 1)".to_string())
        );
        // Sets keep first-occurrence order (Python's is hash order).
        assert_eq!(
            literal_eval("{'b', 'a', 'b'}").map(|x| json_dumps(&x)),
            Ok(r#"["b", "a"]"#.to_string())
        );
        // Dict key identity: the first equal key stays, with the last value.
        assert_eq!(
            literal_eval("{1: 'a', 1.0: 'b', True: 'c', '1': 'd'}").map(|x| json_dumps(&x)),
            Ok(r#"{"1": "d"}"#.to_string())
        );
    }

    /// (code point, Python `chr(cp).isprintable()`)
    const PRINTABLE: &[(u32, bool)] = &[
        (0x20, true),
        (0x7E, true),
        (0x7F, false),
        (0x80, false),
        (0x9F, false),
        (0xA0, false),
        (0xA1, true),
        (0xAD, false),
        (0x300, true),
        (0x378, false),
        (0x600, false),
        (0x61C, false),
        (0x1680, false),
        (0x180E, false),
        (0x2000, false),
        (0x200B, false),
        (0x200D, false),
        (0x2028, false),
        (0x202F, false),
        (0x2060, false),
        (0x2066, false),
        (0x3000, false),
        (0xE000, false),
        (0xF8FF, false),
        (0xFEFF, false),
        (0xFFF9, false),
        (0xFFFD, true),
        (0xFFFE, false),
        (0x1D173, false),
        (0x1F600, true),
        (0x2A6DF, true),
        (0x2A6E0, false),
        (0x30000, true),
        (0x3134A, true),
        (0x3134B, false),
        (0xE0001, false),
        (0xE0020, false),
        (0xE0100, true),
        (0xE01EF, true),
        (0xE01F0, false),
        (0xF0000, false),
        (0x10FFFF, false),
    ];

    #[test]
    fn printable_table_matches_python() {
        for &(cp, expected) in PRINTABLE {
            let c = char::from_u32(cp).expect("scalar value");
            assert_eq!(is_printable(c), expected, "U+{cp:04X}");
        }
        // The table is sorted, disjoint and above ASCII.
        for w in NON_PRINTABLE.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0);
        }
        assert!(NON_PRINTABLE[0].0 >= 0x80);
        for w in DECIMAL_ZEROS.windows(2) {
            assert!(w[0] + 10 <= w[1]);
        }
    }

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

    #[test]
    fn truthiness_and_type_names() {
        for (x, truth, name) in [
            ("null", false, "NoneType"),
            ("false", false, "bool"),
            ("true", true, "bool"),
            ("0", false, "int"),
            ("-1", true, "int"),
            ("18446744073709551615", true, "int"),
            ("0.0", false, "float"),
            ("-0.0", false, "float"),
            ("0.5", true, "float"),
            ("\"\"", false, "str"),
            ("\"0\"", true, "str"),
            ("\"false\"", true, "str"),
            ("[]", false, "list"),
            ("[0]", true, "list"),
            ("{}", false, "dict"),
            ("{\"a\": null}", true, "dict"),
        ] {
            assert_eq!(truthy(&v(x)), truth, "bool({x})");
            assert_eq!(type_name(&v(x)), name, "type({x})");
            assert_eq!(class_repr(&v(x)), format!("<class '{name}'>"));
        }
    }

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn string(&mut self, alphabet: &[&str], max_len: u64) -> String {
            let len = self.next() % (max_len + 1);
            (0..len)
                .map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize])
                .collect()
        }
    }

    /// No input may panic (or recurse without bound): random token soup through every parser.
    #[test]
    fn random_inputs_never_panic() {
        const ALPHABET: &[&str] = &[
            "0",
            "1",
            "9",
            "_",
            ".",
            "e",
            "E",
            "+",
            "-",
            "x",
            "o",
            "b",
            "j",
            "'",
            "\"",
            "'''",
            "\\",
            "\\x",
            "\\u",
            "\\U",
            "\\N{",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            " ",
            "\t",
            "\n",
            "\r",
            "\u{c}",
            "#",
            "True",
            "None",
            "set",
            "r",
            "b",
            "f",
            "u",
            "...",
            "é",
            "中",
            "😀",
            "\u{2028}",
            "\u{a0}",
            "\u{660}",
            "\u{ff11}",
            "inf",
            "nan",
            "\u{0}",
            "\u{7f}",
            "\u{d7ff}",
            "*",
            "~",
            "0x",
            "1e5",
            "9999999999999999999999",
        ];
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        for _ in 0..30_000 {
            let s = rng.string(ALPHABET, 12);
            if let Ok(x) = literal_eval(&s) {
                let _ = (
                    repr_of(&x),
                    json_dumps_indent(&x, 2, true),
                    json_dumps_ascii(&x),
                );
            }
            let _ = (
                parse_float(&s),
                parse_int(&s),
                repr_str(&s),
                json_dumps(&Value::from(s)),
            );
        }
        // Deep unary/bracket soup stays bounded.
        let _ = literal_eval(&"-".repeat(100_000));
        let _ = literal_eval(&"(".repeat(100_000));
        let _ = literal_eval(&"[1, ".repeat(100_000));
    }
}
