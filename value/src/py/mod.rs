//! Python compatibility: the one place that says how CPython 3.11 does something canvasc must
//! reproduce (`str()`, `repr()`, `json.dumps`, `float()`, `int()`, whitespace and `strip`,
//! `str.isprintable`, `urllib.parse`, `==`/`<`, truthiness, `ast.literal_eval`). The front-end's
//! parameter checks, the runtime's components, Jinja and the SSRF guard all use it, so they cannot
//! disagree with each other.
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

pub mod access;
mod compare;
#[cfg(test)]
mod cpython_tests;
mod float;
mod float_repr;
pub mod format;
mod int;
mod ipaddress;
mod json;
pub mod json_loads;
mod literal_eval;
mod numeric_text;
pub mod pandas;
mod printable;
mod repr;
#[cfg(test)]
mod tabular_tests;
pub mod tabulate;
pub mod time;
mod types;
mod url;
mod whitespace;

pub use compare::{py_cmp, py_eq};
pub use float::{float_of_str, float_type_error, parse_float, to_float};
pub use float_repr::float_repr;
pub use format::{format_g, FloatFormat};
pub use int::{int_type_error, parse_int, parse_int_big, to_int, PyInt};
pub use json::{
    json_dumps, json_dumps_ascii, json_dumps_compact, json_dumps_indent, json_dumps_opts, JsonOpts,
};
pub use literal_eval::literal_eval;
pub use numeric_text::is_decimal;
pub use printable::is_printable;
pub use repr::{repr_dict, repr_list, repr_of, repr_str, repr_str_list, str_of};
pub use types::{class_repr, class_repr_static, truthy, type_name};
pub use url::{urlparse, urlsplit, ParseResult, SplitResult};
pub use whitespace::{is_space, strip, strip_ends};

/// A JSON value from its text, for the tests' tables.
#[cfg(test)]
fn v(json: &str) -> serde_json::Value {
    serde_json::from_str(json).expect("test JSON")
}

/// A small deterministic generator for the tests' random inputs.
#[cfg(test)]
struct XorShift(u64);

#[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
