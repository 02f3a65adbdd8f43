//! Python's `format(x, spec)` for the float specs RAGFlow's tables print with: `"g"` (tabulate's
//! default `floatfmt`) and `".Nf"` (ExeSQL's `floatfmt=".6f"`). Checked against CPython by
//! `tabular_tests.rs` (`tests/golden/python/tabular.json`).

/// A float format spec tabulate is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFormat {
    /// `"g"`.
    General,
    /// `".Nf"`: `N` digits after the point.
    Fixed(usize),
}

impl FloatFormat {
    /// The spec from its Python text (`"g"`, `".6f"`); `None` for any other spec.
    pub fn parse(spec: &str) -> Option<FloatFormat> {
        if spec == "g" {
            return Some(FloatFormat::General);
        }
        let digits = spec.strip_prefix('.')?.strip_suffix('f')?;
        digits.parse().ok().map(FloatFormat::Fixed)
    }

    /// `format(x, spec)`.
    pub fn apply(self, x: f64) -> String {
        match self {
            FloatFormat::General => format_g(x),
            FloatFormat::Fixed(digits) => format_fixed(x, digits),
        }
    }
}

/// Python's `nan`, `inf` and `-inf` for a non-finite float.
fn non_finite(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

/// Python's `format(x, "g")`: six significant digits, trailing zeros removed, exponent form
/// below 1e-4 and from 1e6 (the exponent with at least two digits).
pub fn format_g(x: f64) -> String {
    if let Some(s) = non_finite(x) {
        return s;
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to six significant digits decides the form.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        trim_fraction(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim_fraction(mantissa),
            exp.unsigned_abs()
        )
    }
}

/// Python's `format(x, ".Nf")` (Rust's fixed notation rounds the exact binary value as Python
/// does).
pub fn format_fixed(x: f64, digits: usize) -> String {
    non_finite(x).unwrap_or_else(|| format!("{x:.digits$}"))
}

/// `g`'s removal of trailing zeros (and of a point left alone).
fn trim_fraction(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(FloatFormat::parse("g"), Some(FloatFormat::General));
        assert_eq!(FloatFormat::parse(".6f"), Some(FloatFormat::Fixed(6)));
        assert_eq!(FloatFormat::parse(".2e"), None);
    }
}
