//! Python's two notions of whitespace: `str.isspace` (what `str.strip()`, `str.split()` and the
//! Jinja methods use) and the ASCII `Py_ISSPACE` that `int()` and `float()` skip around digits.
//! Rust's `char::is_whitespace` differs: it misses the separators U+001C..U+001F.

/// Python's `Py_ISSPACE` (ASCII whitespace, including `\v` and `\f`).
pub(super) fn is_ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// Python `str.strip()` (no argument): Python's notion of whitespace, not Rust's.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python `str.strip(chars)`, `lstrip(chars)` (`right` false) and `rstrip(chars)` (`left`
/// false); `chars` `None` strips whitespace.
pub fn strip_ends<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_space(c),
    };
    let s = if left { s.trim_start_matches(pred) } else { s };
    if right {
        s.trim_end_matches(pred)
    } else {
        s
    }
}

/// Python `str.isspace` for one character (bidirectional class WS, B or S, or category Zs).
pub fn is_space(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return is_ascii_space(c) || (0x1c..=0x1f).contains(&u);
    }
    UNICODE_SPACES.binary_search(&u).is_ok()
}

/// Non-ASCII code points for which Python 3.11's `str.isspace` is true.
static UNICODE_SPACES: [u32; 19] = [
    0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
    0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
];
