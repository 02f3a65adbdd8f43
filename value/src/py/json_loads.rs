//! Python's `json.loads` for text: what it accepts (`NaN`, `Infinity`, big ints, duplicate keys)
//! and its `JSONDecodeError` messages (`Expecting value: line 1 column 1 (char 0)`), which become
//! `_ERROR` texts when a component parses user JSON.

use crate::{Json, Map};

/// A parsed document. Python floats `nan`/`±inf` have no JSON form: they are `null` here and
/// `non_finite` records that the document held one (`json.dumps(..., allow_nan=False)` would
/// then fail).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub value: Json,
    pub non_finite: bool,
}

/// How many arrays and objects may be open at once before CPython's scanner raises
/// `RecursionError`. Python counts every frame on the interpreter stack against
/// `sys.getrecursionlimit()`, so the exact depth depends on where `json.loads` is called; this
/// is the depth RAGFlow's Invoke reaches on its JSON arguments (491 nested `[]` parse, 492 fail):
/// `canvasc/compiler/tests/crash/README.md` has the oracle command that measured it. The bound
/// also keeps this parser, and the recursive drop of the tree it builds, off the end of the stack.
pub const MAX_DEPTH: usize = 491;

/// Why `loads` failed: `str()` of the Python exception and its class.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadsError {
    /// `JSONDecodeError`, or `RecursionError` past [`MAX_DEPTH`].
    pub class: &'static str,
    pub message: String,
}

impl std::fmt::Display for LoadsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for LoadsError {
    fn from(message: String) -> Self {
        LoadsError {
            class: "JSONDecodeError",
            message,
        }
    }
}

/// `json.loads(text)`; the error is `str()` of the exception Python raises.
pub fn loads(text: &str) -> Result<Parsed, LoadsError> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser {
        s: &chars,
        non_finite: false,
        depth: 0,
    };
    let start = p.ws(0);
    let (value, end) = match p.value(start)? {
        Some(v) => v,
        None => return Err(p.error("Expecting value", start)),
    };
    let end = p.ws(end);
    if end != chars.len() {
        return Err(p.error("Extra data", end));
    }
    Ok(Parsed {
        value,
        non_finite: p.non_finite,
    })
}

struct Parser<'a> {
    s: &'a [char],
    non_finite: bool,
    /// Arrays and objects open around the current position.
    depth: usize,
}

impl Parser<'_> {
    /// Enters one more array or object, failing as CPython's C scanner does past the limit.
    fn enter(&mut self, what: &str) -> Result<(), LoadsError> {
        if self.depth >= MAX_DEPTH {
            return Err(LoadsError {
                class: "RecursionError",
                message: format!(
                    "maximum recursion depth exceeded while decoding a JSON {what} from a unicode string"
                ),
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn error(&self, msg: &str, pos: usize) -> LoadsError {
        let before = &self.s[..pos.min(self.s.len())];
        let line = before.iter().filter(|c| **c == '\n').count() + 1;
        let col = match before.iter().rposition(|c| *c == '\n') {
            Some(nl) => pos - nl,
            None => pos + 1,
        };
        LoadsError::from(format!("{msg}: line {line} column {col} (char {pos})"))
    }

    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(' ' | '\t' | '\n' | '\r')) {
            i += 1;
        }
        i
    }

    fn starts(&self, i: usize, word: &str) -> bool {
        let w: Vec<char> = word.chars().collect();
        self.s.get(i..i + w.len()) == Some(&w[..])
    }

    /// `scan_once`: `Ok(None)` is Python's `StopIteration` (no value starts here).
    fn value(&mut self, i: usize) -> Result<Option<(Json, usize)>, LoadsError> {
        let Some(c) = self.at(i) else { return Ok(None) };
        let word = |v: Json, len: usize| Ok(Some((v, i + len)));
        match c {
            '"' => {
                let (s, end) = self.string(i + 1)?;
                Ok(Some((Json::String(s), end)))
            }
            '{' => {
                self.enter("object")?;
                let parsed = self.object(i + 1);
                self.depth -= 1;
                parsed.map(Some)
            }
            '[' => {
                self.enter("array")?;
                let parsed = self.array(i + 1);
                self.depth -= 1;
                parsed.map(Some)
            }
            'n' if self.starts(i, "null") => word(Json::Null, 4),
            't' if self.starts(i, "true") => word(Json::Bool(true), 4),
            'f' if self.starts(i, "false") => word(Json::Bool(false), 5),
            'N' if self.starts(i, "NaN") => {
                self.non_finite = true;
                word(Json::Null, 3)
            }
            'I' if self.starts(i, "Infinity") => {
                self.non_finite = true;
                word(Json::Null, 8)
            }
            '-' if self.starts(i, "-Infinity") => {
                self.non_finite = true;
                word(Json::Null, 9)
            }
            _ => Ok(self.number(i)),
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?` with ASCII digits.
    fn number(&mut self, i: usize) -> Option<(Json, usize)> {
        let digit = |j: usize| self.at(j).is_some_and(|c| c.is_ascii_digit());
        let mut j = i;
        if self.at(j) == Some('-') {
            j += 1;
        }
        if !digit(j) {
            return None;
        }
        if self.at(j) == Some('0') {
            j += 1;
        } else {
            while digit(j) {
                j += 1;
            }
        }
        let mut is_float = false;
        if self.at(j) == Some('.') && digit(j + 1) {
            is_float = true;
            j += 1;
            while digit(j) {
                j += 1;
            }
        }
        if matches!(self.at(j), Some('e' | 'E')) {
            let mut k = j + 1;
            if matches!(self.at(k), Some('+' | '-')) {
                k += 1;
            }
            if digit(k) {
                is_float = true;
                j = k;
                while digit(j) {
                    j += 1;
                }
            }
        }
        let text: String = self.s[i..j].iter().collect();
        let value = if is_float {
            let f: f64 = text.parse().unwrap_or(f64::NAN);
            match serde_json::Number::from_f64(f) {
                Some(n) => Json::Number(n),
                None => {
                    self.non_finite = true;
                    Json::Null
                }
            }
        } else if let Ok(n) = text.parse::<i64>() {
            Json::from(n)
        } else if let Ok(n) = text.parse::<u64>() {
            Json::from(n)
        } else {
            // Python keeps an exact big int; a JSON value can only hold the nearest float.
            serde_json::Number::from_f64(text.parse().unwrap_or(0.0))
                .map_or(Json::Null, Json::Number)
        };
        Some((value, j))
    }

    /// `scanstring` from just after the opening quote.
    fn string(&self, start: usize) -> Result<(String, usize), LoadsError> {
        let begin = start - 1;
        let mut out = String::new();
        let mut i = start;
        loop {
            let Some(c) = self.at(i) else {
                return Err(self.error("Unterminated string starting at", begin));
            };
            match c {
                '"' => return Ok((out, i + 1)),
                '\\' => {
                    let Some(e) = self.at(i + 1) else {
                        return Err(self.error("Unterminated string starting at", begin));
                    };
                    let simple = match e {
                        '"' => Some('"'),
                        '\\' => Some('\\'),
                        '/' => Some('/'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        'u' => None,
                        _ => return Err(self.error("Invalid \\escape", i)),
                    };
                    if let Some(ch) = simple {
                        out.push(ch);
                        i += 2;
                        continue;
                    }
                    let hi = self
                        .hex4(i + 2)
                        .ok_or_else(|| self.error("Invalid \\uXXXX escape", i + 1))?;
                    i += 6;
                    let mut code = hi;
                    if (0xd800..0xdc00).contains(&hi)
                        && self.at(i) == Some('\\')
                        && self.at(i + 1) == Some('u')
                    {
                        if let Some(lo) = self.hex4(i + 2) {
                            if (0xdc00..0xe000).contains(&lo) {
                                code = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                                i += 6;
                            }
                        }
                    }
                    // A lone surrogate is a valid Python string but not a Rust one.
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                c if (c as u32) < 0x20 => {
                    return Err(self.error("Invalid control character at", i));
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        let digits: String = self.s.get(i..i + 4)?.iter().collect();
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(&digits, 16).ok()
    }

    fn object(&mut self, start: usize) -> Result<(Json, usize), LoadsError> {
        let mut m = Map::new();
        let mut i = self.ws(start);
        if self.at(i) == Some('}') {
            return Ok((Json::Object(m), i + 1));
        }
        loop {
            if self.at(i) != Some('"') {
                return Err(self.error("Expecting property name enclosed in double quotes", i));
            }
            let (key, end) = self.string(i + 1)?;
            i = self.ws(end);
            if self.at(i) != Some(':') {
                return Err(self.error("Expecting ':' delimiter", i));
            }
            i = self.ws(i + 1);
            let Some((v, end)) = self.value(i)? else {
                return Err(self.error("Expecting value", i));
            };
            m.insert(key, v);
            i = self.ws(end);
            match self.at(i) {
                Some('}') => return Ok((Json::Object(m), i + 1)),
                Some(',') => i = self.ws(i + 1),
                _ => return Err(self.error("Expecting ',' delimiter", i)),
            }
        }
    }

    fn array(&mut self, start: usize) -> Result<(Json, usize), LoadsError> {
        let mut a = Vec::new();
        let mut i = self.ws(start);
        if self.at(i) == Some(']') {
            return Ok((Json::Array(a), i + 1));
        }
        loop {
            let Some((v, end)) = self.value(i)? else {
                return Err(self.error("Expecting value", i));
            };
            a.push(v);
            i = self.ws(end);
            match self.at(i) {
                Some(']') => return Ok((Json::Array(a), i + 1)),
                Some(',') => i = self.ws(i + 1),
                _ => return Err(self.error("Expecting ',' delimiter", i)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected texts from CPython 3.11's `json.loads`.
    #[test]
    fn errors_match_python() {
        for (src, msg) in [
            ("", "Expecting value: line 1 column 1 (char 0)"),
            (" ", "Expecting value: line 1 column 2 (char 1)"),
            (
                "{",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            (
                "{\"a\"",
                "Expecting ':' delimiter: line 1 column 5 (char 4)",
            ),
            ("{\"a\":", "Expecting value: line 1 column 6 (char 5)"),
            (
                "{\"a\":1",
                "Expecting ',' delimiter: line 1 column 7 (char 6)",
            ),
            (
                "{\"a\":1,}",
                "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)",
            ),
            ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
            ("[1", "Expecting ',' delimiter: line 1 column 3 (char 2)"),
            (
                "\"abc",
                "Unterminated string starting at: line 1 column 1 (char 0)",
            ),
            (
                "\"a\\",
                "Unterminated string starting at: line 1 column 1 (char 0)",
            ),
            ("\"a\\x\"", "Invalid \\escape: line 1 column 3 (char 2)"),
            (
                "\"a\\u12\"",
                "Invalid \\uXXXX escape: line 1 column 4 (char 3)",
            ),
            (
                "\"a\u{1}\"",
                "Invalid control character at: line 1 column 3 (char 2)",
            ),
            (
                "{a:1}",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            (
                "{\"a\" 1}",
                "Expecting ':' delimiter: line 1 column 6 (char 5)",
            ),
            ("01", "Extra data: line 1 column 2 (char 1)"),
            ("-", "Expecting value: line 1 column 1 (char 0)"),
            ("1.", "Extra data: line 1 column 2 (char 1)"),
            (
                "\n\n {\"a\":\n x}",
                "Expecting value: line 4 column 2 (char 10)",
            ),
            ("{\"é\": ]", "Expecting value: line 1 column 7 (char 6)"),
        ] {
            assert_eq!(loads(src).expect_err(src).message, msg, "{src:?}");
        }
    }

    #[test]
    fn accepts_what_python_accepts() {
        assert!(loads("NaN").expect("nan").non_finite);
        assert!(loads("[-Infinity]").expect("inf").non_finite);
        assert!(loads("1e400").expect("inf").non_finite);
        assert_eq!(loads("1.5e+3").expect("f").value, serde_json::json!(1500.0));
        assert_eq!(
            loads("[\"\\u00e9\"]").expect("s").value,
            serde_json::json!(["é"])
        );
        assert_eq!(
            loads("{\"a\": 1, \"b\": 2, \"a\": 3}").expect("dup").value,
            serde_json::json!({"a": 3, "b": 2})
        );
        assert!(!loads(" {\"a\": [true, null]} ").expect("ok").non_finite);
    }

    /// The depth RAGFlow's Invoke parses, and CPython's message one level deeper (measured with
    /// the oracle: `compiler/tests/crash/README.md`).
    #[test]
    fn nesting_stops_where_python_does() {
        let nested = |open: &str, close: &str, n: usize| open.repeat(n) + &close.repeat(n);
        assert!(loads(&nested("[", "]", MAX_DEPTH)).is_ok());
        let err = loads(&nested("[", "]", MAX_DEPTH + 1)).expect_err("too deep");
        assert_eq!(err.class, "RecursionError");
        assert_eq!(
            err.message,
            "maximum recursion depth exceeded while decoding a JSON array from a unicode string"
        );
        let deep_object = "{\"a\":".repeat(100_000);
        let err = loads(&deep_object).expect_err("too deep");
        assert_eq!(
            err.message,
            "maximum recursion depth exceeded while decoding a JSON object from a unicode string"
        );
        assert!(loads(&"[".repeat(1_000_000)).is_err());
    }
}
