//! Python's `ast.literal_eval` on a string, with the result as JSON.

mod lexer;
mod parser;
#[cfg(test)]
mod tests;

use super::float_repr::float_repr;
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

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
    let lit = parser::parse(lexer::tokenize(chars)?)?;
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
