//! Python's `repr(float)`: the shortest digits that round-trip.

use std::fmt::Write as _;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::{json_dumps, str_of, XorShift};
    use serde_json::Value;

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

    #[test]
    fn float_repr_examples() {
        let cases = [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (-0.0, "-0.0"),
            (1.5e300, "1.5e+300"),
            (1e22, "1e+22"),
            (123456789.123, "123456789.123"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want);
        }
    }
}
