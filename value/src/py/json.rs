//! Python's `json.dumps` with the options canvas call sites use.

use super::float_repr::float_repr;
use serde_json::{Number, Value};
use std::fmt::Write as _;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::v;
    use crate::py::{repr_of, str_of};

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
}
