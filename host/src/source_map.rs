//! From a diagnostic's JSON pointer and string span to byte offsets in the source file.
//!
//! serde_json keeps no positions, so the file is parsed a second time with jsonc-parser (only when
//! there is something to report) and the pointer is walked through its syntax tree.

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};

/// Positions of JSON values in one source text.
pub struct SourceMap<'a> {
    text: &'a str,
    root: Option<Value<'a>>,
}

impl<'a> SourceMap<'a> {
    pub fn new(text: &'a str) -> Self {
        let root = parse_to_ast(text, &CollectOptions::default(), &ParseOptions::default())
            .ok()
            .and_then(|r| r.value);
        SourceMap { text, root }
    }

    /// The byte range to highlight: the match inside the string when `span` is given, else the
    /// whole value at `pointer`. A pointer into a part the file does not spell out (a default
    /// parameter) falls back to the nearest enclosing value.
    pub fn locate(&self, pointer: &str, span: Option<(usize, usize)>) -> Option<(usize, usize)> {
        let root = self.root.as_ref()?;
        let (value, exact, key) = walk(root, pointer);
        let range = match (value, key) {
            // A whole object or list: point at its key (or its opening bracket), not at every line.
            (Value::Object(_) | Value::Array(_), Some(k)) => k,
            (Value::Object(_) | Value::Array(_), None) => {
                let (start, _) = value_range(value);
                (start, start + 1)
            }
            _ => value_range(value),
        };
        match (span, exact, value) {
            (Some((start, end)), true, Value::StringLit(lit)) => {
                let raw = &self.text[lit.range.start..lit.range.end];
                let map = decoded_to_raw(raw);
                let s = map.get(start).copied()?;
                let e = map.get(end).copied()?;
                Some((lit.range.start + s, lit.range.start + e))
            }
            _ => Some(range),
        }
    }
}

fn value_range(v: &Value) -> (usize, usize) {
    let r = match v {
        Value::StringLit(x) => x.range,
        Value::NumberLit(x) => x.range,
        Value::BooleanLit(x) => x.range,
        Value::Object(x) => x.range,
        Value::Array(x) => x.range,
        Value::NullKeyword(x) => x.range,
    };
    (r.start, r.end)
}

/// Walk an RFC 6901 pointer; returns the deepest value reached, whether it is the target, and
/// the range of the key naming it (for object members).
fn walk<'v, 'a>(
    root: &'v Value<'a>,
    pointer: &str,
) -> (&'v Value<'a>, bool, Option<(usize, usize)>) {
    let mut cur = root;
    let mut key = None;
    if pointer.is_empty() {
        return (cur, true, None);
    }
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        let next = match cur {
            Value::Object(obj) => obj
                .properties
                .iter()
                .find(|p| prop_name(&p.name) == token)
                .map(|p| {
                    let r = match &p.name {
                        ObjectPropName::String(s) => s.range,
                        ObjectPropName::Word(w) => w.range,
                    };
                    (&p.value, Some((r.start, r.end)))
                }),
            Value::Array(arr) => token
                .parse::<usize>()
                .ok()
                .and_then(|i| arr.elements.get(i))
                .map(|v| (v, None)),
            _ => None,
        };
        match next {
            Some((v, k)) => {
                cur = v;
                key = k;
            }
            None => return (cur, false, key),
        }
    }
    (cur, true, key)
}

fn prop_name<'b>(name: &'b ObjectPropName) -> &'b str {
    match name {
        ObjectPropName::String(s) => &s.value,
        ObjectPropName::Word(w) => w.value,
    }
}

/// For a raw JSON string literal (with quotes), the raw offset of every decoded byte offset,
/// plus one past the end.
fn decoded_to_raw(raw: &str) -> Vec<usize> {
    let bytes = raw.as_bytes();
    let mut map = Vec::with_capacity(raw.len());
    let mut i = 1; // skip the opening quote
    let end = raw.len().saturating_sub(1);
    while i < end {
        if bytes[i] == b'\\' && i + 1 < end {
            let (decoded_len, raw_len) = match bytes[i + 1] {
                b'u' => {
                    let hex = raw
                        .get(i + 2..i + 6)
                        .and_then(|h| u32::from_str_radix(h, 16).ok());
                    match hex {
                        Some(hi @ 0xD800..=0xDBFF) => {
                            // A surrogate pair \uD83D\uDE00 encodes one 4-byte character.
                            let lo = raw
                                .get(i + 8..i + 12)
                                .and_then(|h| u32::from_str_radix(h, 16).ok());
                            match lo {
                                Some(lo) if raw.get(i + 6..i + 8) == Some("\\u") => {
                                    let c = 0x10000
                                        + ((hi - 0xD800) << 10)
                                        + (lo.wrapping_sub(0xDC00) & 0x3FF);
                                    (char::from_u32(c).map_or(3, char::len_utf8), 12)
                                }
                                _ => (3, 6),
                            }
                        }
                        Some(c) => (char::from_u32(c).map_or(3, char::len_utf8), 6),
                        None => (1, 2),
                    }
                }
                _ => (1, 2),
            };
            for _ in 0..decoded_len {
                map.push(i);
            }
            i += raw_len;
        } else {
            map.push(i);
            i += 1;
        }
    }
    map.push(end.max(1));
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_spans_inside_escaped_strings() {
        let text = r#"{"a": {"b": ["x", "q\n{sys.query}"]}}"#;
        let map = SourceMap::new(text);
        // decoded "q\n{sys.query}": the reference starts at byte 2
        let (s, e) = map.locate("/a/b/1", Some((2, 13))).expect("found");
        assert_eq!(&text[s..e], "{sys.query}");
        let (s, e) = map.locate("/a/b/0", None).expect("found");
        assert_eq!(&text[s..e], "\"x\"");
        let (s, e) = map.locate("/a/missing/3", None).expect("falls back");
        assert_eq!(&text[s..e], r#""a""#);
    }

    #[test]
    fn maps_unicode_escapes() {
        let raw = r#""\u4e0a{x}""#;
        let m = decoded_to_raw(raw);
        // 上 is 3 bytes decoded, 6 raw
        assert_eq!(m[3], 7);
    }
}
