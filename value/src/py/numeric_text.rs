//! The text `int()` and `float()` actually parse: CPython first maps non-ASCII whitespace and
//! Unicode decimal digits (`'١٢'`, `'１２'`) to ASCII.

use super::whitespace::is_space;

/// Python `str.isdecimal` for one character (category Nd), which is also what `re`'s `\d`
/// matches.
pub fn is_decimal(c: char) -> bool {
    unicode_decimal(c).is_some()
}

/// The decimal value of a Unicode Nd digit (`unicodedata.decimal`).
pub(super) fn unicode_decimal(c: char) -> Option<u8> {
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
pub(super) fn to_ascii_numeric(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if (c as u32) < 127 {
            out.push(c);
        } else if is_space(c) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_runs_are_sorted_and_disjoint() {
        for w in DECIMAL_ZEROS.windows(2) {
            assert!(w[0] + 10 <= w[1]);
        }
    }
}
