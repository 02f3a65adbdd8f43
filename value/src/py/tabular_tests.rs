//! `format`, `tabulate` and `pandas` against the libraries themselves:
//! `tests/golden/python/tabular.json` holds what pandas 2.3.3, numpy 1.26.4 and tabulate 0.9.0
//! printed for each case (`tests/golden/python/gen_tabular.py`; regenerate it there, never edit
//! the expectations). Every failing case is reported, by name.

use super::format::FloatFormat;
use super::pandas::{Cell, DataFrame, Dtype};
use super::tabulate::{self, after_point, pipe_table};
use super::{format_g, str_of};
use serde_json::Value;

const GOLDEN: &str = include_str!("../../../tests/golden/python/tabular.json");

fn golden() -> Value {
    serde_json::from_str(GOLDEN).expect("tabular.json is JSON")
}

fn list<'a>(all: &'a Value, key: &str) -> &'a [Value] {
    all[key].as_array().map_or(&[], Vec::as_slice)
}

fn text(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("a string: {v}"))
        .to_string()
}

/// A case's value as the Python object it stands for (`$nan`, `$decimal`, `$datetime`,
/// `$date` are the generator's tags).
fn cell(v: &Value) -> Cell {
    if let Some(o) = v.as_object() {
        if o.contains_key("$nan") {
            return Cell::nan();
        }
        if let Some(s) = o.get("$decimal") {
            return Cell::Decimal(text(s));
        }
        if let Some(s) = o.get("$datetime") {
            return Cell::DateTime(text(s));
        }
        // A `datetime.date` is an object pandas keeps and tabulate prints by `str()`, as a str.
        if let Some(s) = o.get("$date") {
            return Cell::Str(text(s));
        }
    }
    Cell::of(v)
}

fn dtype_name(d: Dtype) -> &'static str {
    match d {
        Dtype::Int => "int64",
        Dtype::Float => "float64",
        Dtype::Bool => "bool",
        Dtype::DateTime => "datetime64[ns]",
        Dtype::Object => "object",
    }
}

/// The frame a case builds, and the arguments of its `to_markdown`.
fn build(case: &Value) -> (DataFrame, bool, FloatFormat) {
    let data = list(case, "data");
    let kind = text(&case["kind"]);
    match kind.as_str() {
        "records" | "rows" => {
            let mut frame = DataFrame::from_json_rows_with(data, cell);
            if let Some(n) = case["head"].as_u64() {
                frame = frame.head(n as usize);
            }
            let index = case["index"].as_bool().unwrap_or(true);
            (frame, index, FloatFormat::General)
        }
        "exesql" => {
            let columns = list(case, "columns").iter().map(text).collect();
            let rows = data
                .iter()
                .map(|r| r.as_array().expect("a row").iter().map(cell).collect())
                .collect();
            let mut frame = DataFrame::new(columns, rows);
            frame.format_dates_as_days();
            frame.where_notnull_none();
            (frame, false, FloatFormat::Fixed(6))
        }
        "series" => {
            let entries = case["data"]
                .as_object()
                .expect("a dict")
                .iter()
                .map(|(k, v)| (k.clone(), cell(v)))
                .collect();
            (DataFrame::from_series(entries), true, FloatFormat::General)
        }
        other => panic!("unknown kind {other}"),
    }
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn generated_by_the_pinned_libraries() {
    let all = golden();
    let v = &all["versions"];
    assert_eq!(
        (text(&v["pandas"]), text(&v["numpy"]), text(&v["tabulate"])),
        ("2.3.3".into(), "1.26.4".into(), "0.9.0".into())
    );
}

#[test]
fn frames_print_as_pandas() {
    let all = golden();
    let mut failures = Vec::new();
    for case in list(&all, "frames") {
        let name = text(&case["name"]);
        let (frame, index, floatfmt) = build(case);
        let got = frame.to_markdown(index, floatfmt);
        let want = text(&case["markdown"]);
        if got != want {
            failures.push(format!("{name}: markdown\n{got}\n-- pandas:\n{want}"));
        }
        if let Some(dtypes) = case["dtypes"].as_array() {
            let got: Vec<&str> = frame.dtypes.iter().map(|d| dtype_name(*d)).collect();
            let want: Vec<String> = dtypes
                .iter()
                .map(|d| text(d).replace("uint64", "int64"))
                .collect();
            if got != want {
                failures.push(format!("{name}: dtypes {got:?}, pandas {want:?}"));
            }
        }
        if let Some(records) = case.get("records") {
            let got = Value::Array(frame.records());
            if &got != records {
                failures.push(format!("{name}: records {got}, pandas {records}"));
            }
        }
    }
    report(failures);
}

#[test]
fn tables_print_as_tabulate() {
    let all = golden();
    let mut failures = Vec::new();
    for case in list(&all, "tables") {
        let name = text(&case["name"]);
        let headers: Vec<String> = list(case, "headers").iter().map(text).collect();
        let rows: Vec<Vec<tabulate::Cell>> = list(case, "rows")
            .iter()
            .map(|r| {
                r.as_array()
                    .expect("a row")
                    .iter()
                    .map(|v| match v {
                        Value::Null => tabulate::Cell::None,
                        Value::Bool(b) => tabulate::Cell::Bool(*b),
                        Value::Number(n) => match n.as_i64() {
                            Some(i) => tabulate::Cell::Int(i128::from(i)),
                            None => tabulate::Cell::Float(n.as_f64().unwrap_or(f64::NAN)),
                        },
                        Value::String(s) => tabulate::Cell::Str(s.clone()),
                        other => tabulate::Cell::Object(str_of(other)),
                    })
                    .collect()
            })
            .collect();
        let floatfmt = FloatFormat::parse(&text(&case["floatfmt"])).expect("a float format");
        let got = pipe_table(&headers, &rows, floatfmt);
        let want = text(&case["markdown"]);
        if got != want {
            failures.push(format!("{name}:\n{got}\n-- tabulate:\n{want}"));
        }
    }
    report(failures);
}

/// Includes `_afterpoint("1.5e+06") == 5`: the digits after the point, not after the `e`.
#[test]
fn after_point_as_tabulate() {
    let all = golden();
    let mut failures = Vec::new();
    for case in list(&all, "afterpoint") {
        let s = text(&case["text"]);
        let want = case["digits"].as_i64().expect("digits");
        let got = after_point(&s) as i64;
        if got != want {
            failures.push(format!("_afterpoint({s:?}): {got}, tabulate {want}"));
        }
    }
    assert!(list(&all, "afterpoint")
        .iter()
        .any(|c| c["text"] == "1.5e+06" && c["digits"] == 5));
    report(failures);
}

#[test]
fn float_formats_as_python() {
    let all = golden();
    let mut failures = Vec::new();
    for case in list(&all, "format") {
        let f = f64::from_bits(text(&case["bits"]).parse().expect("bits"));
        for (spec, got) in [("g", format_g(f)), (".6f", FloatFormat::Fixed(6).apply(f))] {
            let want = text(&case[spec]);
            if got != want {
                failures.push(format!("format({f:e}, {spec:?}): {got}, Python {want}"));
            }
        }
    }
    report(failures);
}
