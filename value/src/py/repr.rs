//! Python's `str()` and `repr()` of values and strings.

use super::float_repr::float_repr;
use super::printable::is_printable;
use serde_json::{Map, Number, Value};
use std::fmt::Write as _;

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

/// Python `repr(list)`.
pub fn repr_list(items: &[Value]) -> String {
    let mut out = String::new();
    write_list(&mut out, items);
    out
}

/// Python `repr(dict)`.
pub fn repr_dict(map: &Map<String, Value>) -> String {
    let mut out = String::new();
    write_dict(&mut out, map);
    out
}

/// Python `repr` of a list of strings.
pub fn repr_str_list(items: &[&str]) -> String {
    let inner: Vec<String> = items.iter().map(|s| repr_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

fn write_repr(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Number(n) => out.push_str(&number_repr(n)),
        Value::String(s) => write_repr_str(out, s),
        Value::Array(items) => write_list(out, items),
        Value::Object(map) => write_dict(out, map),
    }
}

fn write_list(out: &mut String, items: &[Value]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, item);
    }
    out.push(']');
}

fn write_dict(out: &mut String, map: &Map<String, Value>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_and_repr_match_python() {
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'\"b"), "'a\\'\"b'");
        assert_eq!(repr_str("é\n\u{1b}"), "'é\\n\\x1b'");
        assert_eq!(
            repr_str("\u{a0}\u{2028}\u{e0001}"),
            "'\\xa0\\u2028\\U000e0001'"
        );
        let v: Value =
            serde_json::from_str(r#"{"a": [1, 2.0, "é", "it's"], "b": null, "c": true}"#)
                .expect("json");
        assert_eq!(
            str_of(&v),
            r#"{'a': [1, 2.0, 'é', "it's"], 'b': None, 'c': True}"#
        );
        assert_eq!(repr_str_list(&["a", "b"]), "['a', 'b']");
    }
}
