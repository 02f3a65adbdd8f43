//! The module against CPython 3.11 itself: `tests/golden/python/expected.json` holds what
//! `tests/golden/python/gen.py` printed (regenerate it there; never edit the expectations).

use super::*;
use serde_json::Value;

const EXPECTED: &str = include_str!("../../../tests/golden/python/expected.json");

fn expected() -> Value {
    serde_json::from_str(EXPECTED).expect("expected.json is JSON")
}

fn cases<'a>(all: &'a Value, key: &str) -> &'a [Value] {
    all[key].as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {case}"))
}

fn float_of(case: &Value) -> f64 {
    f64::from_bits(text(case, "bits").parse().expect("bits"))
}

/// `{"ok": x}` as `Ok(x)`, `{"err": message}` as `Err(message)`.
fn outcome(case: &Value) -> Result<&Value, String> {
    match case.get("err") {
        Some(e) => Err(e.as_str().unwrap_or_default().to_string()),
        None => Ok(&case["ok"]),
    }
}

/// Whether each code point (as an index) lies inside one of the inclusive `[lo, hi]` runs.
fn in_ranges(runs: &[Value]) -> Vec<bool> {
    let mut table = vec![false; 0x11_0000];
    for r in runs {
        let (lo, hi) = (r[0].as_u64().unwrap_or(0), r[1].as_u64().unwrap_or(0));
        for cp in lo..=hi {
            table[cp as usize] = true;
        }
    }
    table
}

fn every_char() -> impl Iterator<Item = char> {
    (0..=0x10FFFF).filter_map(char::from_u32)
}

#[test]
fn generated_by_cpython_3_11() {
    let all = expected();
    assert!(
        text(&all, "python").starts_with("3.11."),
        "{}",
        all["python"]
    );
    assert_eq!(text(&all, "unicode"), "14.0.0");
}

#[test]
fn is_printable_on_every_code_point() {
    let all = expected();
    let not_printable = in_ranges(cases(&all, "not_printable"));
    for c in every_char() {
        assert_eq!(
            is_printable(c),
            !not_printable[c as usize],
            "U+{:04X}",
            c as u32
        );
    }
}

#[test]
fn is_space_on_every_code_point() {
    let all = expected();
    let spaces: Vec<u64> = cases(&all, "space")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    for c in every_char() {
        let want = spaces.binary_search(&(c as u64)).is_ok();
        assert_eq!(is_space(c), want, "U+{:04X}", c as u32);
    }
}

#[test]
fn is_decimal_on_every_code_point() {
    let all = expected();
    let decimal = in_ranges(cases(&all, "decimal"));
    for c in every_char() {
        assert_eq!(is_decimal(c), decimal[c as usize], "U+{:04X}", c as u32);
    }
}

#[test]
fn float_of_str_like_cpython() {
    let all = expected();
    for case in cases(&all, "float_parse") {
        let input = text(case, "in");
        let want = outcome(case).map(|v| v.as_str().unwrap_or_default().to_string());
        assert_eq!(
            float_of_str(input).map(float_repr),
            want,
            "float({input:?})"
        );
    }
}

#[test]
fn int_of_str_like_cpython() {
    let all = expected();
    for case in cases(&all, "int_parse") {
        let input = text(case, "in");
        let want = outcome(case).map(|v| v.as_str().unwrap_or_default().to_string());
        let got = parse_int_big(input).map(|i| i.to_string());
        assert_eq!(got, want, "int({input:?})");
    }
}

#[test]
fn int_of_float_like_cpython() {
    let all = expected();
    for case in cases(&all, "int_of_float") {
        let f = float_of(case);
        let want = outcome(case).map(|v| v.as_str().unwrap_or_default().to_string());
        assert_eq!(
            PyInt::from_float(f).map(|i| i.to_string()),
            want,
            "int({f:?})"
        );
    }
}

#[test]
fn float_repr_like_cpython() {
    let all = expected();
    for case in cases(&all, "float_repr") {
        let f = float_of(case);
        assert_eq!(float_repr(f), text(case, "repr"), "repr({f:?})");
    }
}

#[test]
fn repr_of_strings_like_cpython() {
    let all = expected();
    for case in cases(&all, "repr_str") {
        let input = text(case, "in");
        assert_eq!(repr_str(input), text(case, "repr"), "repr({input:?})");
    }
}

#[test]
fn str_and_repr_of_values_like_cpython() {
    let all = expected();
    for case in cases(&all, "values") {
        let input = &case["in"];
        assert_eq!(str_of(input), text(case, "str"), "str({input})");
        assert_eq!(repr_of(input), text(case, "repr"), "repr({input})");
    }
}

#[test]
fn strip_like_cpython() {
    let all = expected();
    for case in cases(&all, "strip") {
        let input = text(case, "in");
        let chars = case["chars"].as_str();
        let got = [
            strip_ends(input, chars, true, true),
            strip_ends(input, chars, true, false),
            strip_ends(input, chars, false, true),
        ];
        let want = [
            text(case, "strip"),
            text(case, "lstrip"),
            text(case, "rstrip"),
        ];
        assert_eq!(got, want, "{input:?}.strip({chars:?})");
        if chars.is_none() {
            assert_eq!(strip(input), want[0], "{input:?}.strip()");
        }
    }
}

/// The fields `gen.py` prints for a split or parsed URL.
fn url_json(
    scheme: &str,
    netloc: &str,
    path: &str,
    params: Option<&str>,
    query: &str,
    fragment: &str,
    hostname: Option<String>,
) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("scheme".into(), scheme.into());
    m.insert("netloc".into(), netloc.into());
    m.insert("path".into(), path.into());
    if let Some(params) = params {
        m.insert("params".into(), params.into());
    }
    m.insert("query".into(), query.into());
    m.insert("fragment".into(), fragment.into());
    m.insert("hostname".into(), hostname.map_or(Value::Null, Value::from));
    Value::Object(m)
}

#[test]
fn urlsplit_like_cpython() {
    let all = expected();
    for case in cases(&all, "urlsplit") {
        let input = text(case, "in");
        let got = urlsplit(input).map(|r| {
            url_json(
                &r.scheme,
                &r.netloc,
                &r.path,
                None,
                &r.query,
                &r.fragment,
                r.hostname(),
            )
        });
        assert_eq!(got, outcome(case).cloned(), "urlsplit({input:?})");
    }
}

#[test]
fn urlparse_like_cpython() {
    let all = expected();
    for case in cases(&all, "urlparse") {
        let input = text(case, "in");
        let got = urlparse(input).map(|r| {
            url_json(
                &r.scheme,
                &r.netloc,
                &r.path,
                Some(&r.params),
                &r.query,
                &r.fragment,
                r.hostname(),
            )
        });
        assert_eq!(got, outcome(case).cloned(), "urlparse({input:?})");
    }
}

#[test]
fn nfkc_delimiters_are_cpythons() {
    let all = expected();
    for cp in cases(&all, "nfkc_url_delimiters")
        .iter()
        .filter_map(Value::as_u64)
    {
        let c = char::from_u32(cp as u32).expect("a char");
        let url = format!("http://a{c}b/");
        assert_eq!(
            urlsplit(&url).map(|_| ()),
            Err(format!(
                "netloc 'a{c}b' contains invalid characters under NFKC normalization"
            )),
            "U+{cp:04X}"
        );
    }
}
