//! pandas' `to_markdown()` with its defaults: a `DataFrame` (or a `Series`, as a one-column
//! frame named `0`) with its index, printed by `tabulate(…, headers="keys", tablefmt="pipe")`.
//! YahooFinance prints every section this way.
//!
//! No Rust crate reproduces tabulate's column typing (numbers parsed out of strings), `g` float
//! format, decimal alignment, stripping of left-aligned cells and multi-line rows, which decide
//! the exact text RAGFlow's model reads, so those rules are written out here (pandas 2.3,
//! tabulate 0.9 without `wcwidth`, as RAGFlow's image has them; checked against the reference
//! oracle by the YahooFinance tests). `exesql/frame.rs` is the `index=False, floatfmt=".6f"`
//! variant ExeSQL needs.

use canvasc_value::{py, Json};

/// A value as a pandas cell holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// `None` (printed as tabulate's `missingval`, `""`).
    None,
    Bool(bool),
    Int(i64),
    /// A float; NaN for a missing value of a numeric or mixed column.
    Float(f64),
    Str(String),
    /// A list or dict, printed as Python's `str()`.
    Repr(String),
}

impl Cell {
    /// A JSON value as pandas stores it.
    pub fn of(v: &Json) -> Cell {
        match v {
            Json::Null => Cell::None,
            Json::Bool(b) => Cell::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Cell::Int(i),
                None => Cell::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => Cell::Str(s.clone()),
            other => Cell::Repr(py::str_of(other)),
        }
    }
}

/// A frame: column names, the index (its name and values) and the rows' cells by column.
pub struct Frame {
    pub index_name: Option<String>,
    pub index: Vec<Cell>,
    pub columns: Vec<String>,
    /// Column-major.
    pub cells: Vec<Vec<Cell>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Dtype {
    Int,
    Float,
    Bool,
    Object,
}

/// pandas' dtype inference for one column built from Python values (`None` counts as missing
/// in a numeric column).
fn infer(column: &[Option<Cell>]) -> Dtype {
    let present: Vec<&Cell> = column
        .iter()
        .flatten()
        .filter(|c| **c != Cell::None)
        .collect();
    let missing = present.len() < column.len();
    if present.is_empty() {
        return Dtype::Object;
    }
    if present.iter().all(|c| matches!(c, Cell::Int(_))) {
        return if missing { Dtype::Float } else { Dtype::Int };
    }
    if present
        .iter()
        .all(|c| matches!(c, Cell::Int(_) | Cell::Float(_)))
    {
        return Dtype::Float;
    }
    if !missing && present.iter().all(|c| matches!(c, Cell::Bool(_))) {
        return Dtype::Bool;
    }
    Dtype::Object
}

/// One column stored with its dtype: ints of a float column become floats, missing values NaN
/// (an object column keeps an explicit `None`).
fn store(column: Vec<Option<Cell>>, dtype: Dtype) -> Vec<Cell> {
    column
        .into_iter()
        .map(|c| match (dtype, c) {
            (Dtype::Float, Some(Cell::Int(i))) => Cell::Float(i as f64),
            (Dtype::Float, Some(Cell::None)) | (_, None) => Cell::Float(f64::NAN),
            (_, Some(c)) => c,
        })
        .collect()
}

impl Frame {
    /// `pd.DataFrame(records)`: columns in order of first appearance, a `RangeIndex`.
    pub fn from_records(records: &[Json]) -> Frame {
        let mut columns: Vec<String> = Vec::new();
        for r in records {
            if let Some(o) = r.as_object() {
                for k in o.keys() {
                    if !columns.contains(k) {
                        columns.push(k.clone());
                    }
                }
            }
        }
        let raw: Vec<Vec<Option<Cell>>> = columns
            .iter()
            .map(|c| records.iter().map(|r| r.get(c).map(Cell::of)).collect())
            .collect();
        Frame::build(
            None,
            (0..records.len()).map(|i| Cell::Int(i as i64)).collect(),
            columns,
            raw,
        )
    }

    /// `pd.Series(dict)`: the keys as the index, one column named `0`.
    pub fn from_series(entries: &[(String, Json)]) -> Frame {
        let index = entries.iter().map(|(k, _)| Cell::Str(k.clone())).collect();
        let column = entries.iter().map(|(_, v)| Some(Cell::of(v))).collect();
        Frame::build(None, index, vec!["0".into()], vec![column])
    }

    /// A frame of the given columns (values already as pandas holds them per column).
    pub fn build(
        index_name: Option<String>,
        index: Vec<Cell>,
        columns: Vec<String>,
        raw: Vec<Vec<Option<Cell>>>,
    ) -> Frame {
        let dtypes: Vec<Dtype> = raw.iter().map(Vec::as_slice).map(infer).collect();
        let mut cells: Vec<Vec<Cell>> = raw
            .into_iter()
            .zip(&dtypes)
            .map(|(c, d)| store(c, *d))
            .collect();
        // `DataFrame.values`, which tabulate reads, is one array: int and float columns alone
        // interleave as float64.
        let all_numeric = dtypes
            .iter()
            .all(|d| matches!(d, Dtype::Int | Dtype::Float));
        if all_numeric && dtypes.contains(&Dtype::Float) {
            for column in &mut cells {
                for c in column.iter_mut() {
                    if let Cell::Int(i) = c {
                        *c = Cell::Float(*i as f64);
                    }
                }
            }
        }
        Frame {
            index_name,
            index,
            columns,
            cells,
        }
    }

    /// `to_markdown()`.
    pub fn markdown(&self) -> String {
        let mut headers = vec![self.index_name.clone().unwrap_or_default()];
        headers.extend(self.columns.iter().cloned());
        let mut columns = vec![self.index.clone()];
        columns.extend(self.cells.iter().cloned());
        if self.index.is_empty() {
            // No rows: no index column, no column types, so no alignment colons.
            if self.columns.is_empty() {
                return String::new();
            }
            let widths: Vec<usize> = self.columns.iter().map(|c| width(c) + 2).collect();
            let head: Vec<String> = self
                .columns
                .iter()
                .zip(&widths)
                .map(|(c, w)| pad_right(*w, c))
                .collect();
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
            return format!("| {} |\n|{}|", head.join(" | "), rule.join("|"));
        }
        pipe_table(&headers, &columns)
    }
}

/// tabulate's type order (`_more_generic`).
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
}

/// Python's `int(s)` succeeds (surrounding whitespace, sign, `_` between digits).
fn parses_int(s: &str) -> bool {
    py::parse_int_big(s).is_ok()
}

/// tabulate's `_isnumber` for a string: convertible, and an infinity or NaN only when spelled
/// exactly `inf`, `-inf` or `nan` (any case).
fn is_number(s: &str) -> bool {
    match py::float_of_str(s) {
        Ok(f) if f.is_nan() || f.is_infinite() => {
            matches!(s.to_lowercase().as_str(), "inf" | "-inf" | "nan")
        }
        Ok(_) => true,
        Err(_) => false,
    }
}

/// `_type(value)` with number parsing on.
fn kind_of(c: &Cell) -> Kind {
    match c {
        Cell::None => Kind::None,
        Cell::Bool(_) => Kind::Bool,
        Cell::Int(_) => Kind::Int,
        Cell::Float(_) => Kind::Float,
        Cell::Str(s) if parses_int(s) => Kind::Int,
        Cell::Str(s) if is_number(s) => Kind::Float,
        Cell::Str(_) | Cell::Repr(_) => Kind::Str,
    }
}

/// Python's `str()` of a cell.
fn str_of(c: &Cell) -> String {
    match c {
        Cell::None => "None".into(),
        Cell::Bool(b) => if *b { "True" } else { "False" }.into(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) => py::float_repr(*f),
        Cell::Str(s) | Cell::Repr(s) => s.clone(),
    }
}

/// `_format(val, coltype, floatfmt="g", intfmt="", missingval="")`.
fn format_cell(c: &Cell, kind: Kind) -> String {
    match (c, kind) {
        (Cell::None, _) => String::new(),
        (_, Kind::Float) => {
            let f = match c {
                Cell::Bool(b) => f64::from(u8::from(*b)),
                Cell::Int(i) => *i as f64,
                Cell::Float(f) => *f,
                Cell::Str(s) => py::float_of_str(s).unwrap_or(f64::NAN),
                _ => f64::NAN,
            };
            format_g(f)
        }
        _ => str_of(c),
    }
}

/// Python's `format(f, "g")`: six significant digits, trailing zeros removed, exponent form
/// below 1e-4 and from 1e6.
pub fn format_g(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{f:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        trim(&format!("{f:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.unsigned_abs())
    }
}

/// `_afterpoint`: digits after the decimal point of a number, `-1` for an int or a non-number.
fn after_point(s: &str) -> isize {
    if !is_number(s) || parses_int(s) {
        return -1;
    }
    let pos = s.rfind('.').or_else(|| s.to_lowercase().rfind('e'));
    match pos {
        Some(p) => (s.len() - p - 1) as isize,
        None => -1,
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Python's `str.splitlines()`.
fn split_lines(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The widest line (`re.split("[\r\n]", s)`).
fn multiline_width(s: &str) -> usize {
    s.split(['\r', '\n']).map(width).max().unwrap_or(0)
}

fn pad_left(w: usize, s: &str) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

fn pad_right(w: usize, s: &str) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// `tabulate(columns, headers, tablefmt="pipe")` of the given columns (the first one the index).
fn pipe_table(headers: &[String], columns: &[Vec<Cell>]) -> String {
    let kinds: Vec<Kind> = columns
        .iter()
        .map(|c| {
            c.iter()
                .map(kind_of)
                .fold(Kind::Bool, |a, b| if b > a { b } else { a })
        })
        .collect();
    let formatted: Vec<Vec<String>> = columns
        .iter()
        .zip(&kinds)
        .map(|(c, k)| c.iter().map(|v| format_cell(v, *k)).collect())
        .collect();
    let multiline = formatted
        .iter()
        .flatten()
        .chain(headers)
        .any(|s| s.contains(['\r', '\n']));
    let wfn = |s: &str| {
        if multiline {
            multiline_width(s)
        } else {
            width(s)
        }
    };
    let decimal: Vec<bool> = kinds
        .iter()
        .map(|k| matches!(k, Kind::Int | Kind::Float))
        .collect();
    // `_align_column`.
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut widths: Vec<usize> = Vec::new();
    for ((strings, is_decimal), header) in formatted.into_iter().zip(&decimal).zip(headers) {
        let strings: Vec<String> = if *is_decimal {
            let decs: Vec<isize> = strings.iter().map(|s| after_point(s)).collect();
            let max = decs.iter().copied().max().unwrap_or(-1);
            strings
                .iter()
                .zip(&decs)
                .map(|(s, d)| format!("{s}{}", " ".repeat((max - d).max(0) as usize)))
                .collect()
        } else {
            strings.iter().map(|s| py::strip(s).to_string()).collect()
        };
        let minwidth = wfn(header) + 2;
        let maxwidth = strings
            .iter()
            .map(|s| wfn(s))
            .max()
            .unwrap_or(0)
            .max(minwidth);
        let pad = |s: &str| {
            if *is_decimal {
                pad_left(maxwidth, s)
            } else {
                pad_right(maxwidth, s)
            }
        };
        let padded: Vec<String> = strings
            .iter()
            .map(|s| {
                if multiline {
                    split_lines(s)
                        .iter()
                        .map(|l| pad(l))
                        .collect::<Vec<_>>()
                        .join("\n")
                } else {
                    pad(s)
                }
            })
            .collect();
        let w = padded
            .iter()
            .map(|s| wfn(s))
            .max()
            .unwrap_or(0)
            .max(minwidth);
        cols.push(padded);
        widths.push(w);
    }
    let header_cells: Vec<String> = headers
        .iter()
        .zip(&decimal)
        .zip(&widths)
        .map(|((h, d), w)| {
            let one = |h: &str| {
                if *d {
                    pad_left(*w, h)
                } else {
                    pad_right(*w, h)
                }
            };
            if multiline {
                h.split(['\r', '\n'])
                    .map(one)
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                one(h)
            }
        })
        .collect();
    let rule: Vec<String> = widths
        .iter()
        .zip(&decimal)
        .map(|(w, d)| {
            if *d {
                format!("{}:", "-".repeat(w + 1))
            } else {
                format!(":{}", "-".repeat(w + 1))
            }
        })
        .collect();
    let mut lines = Vec::new();
    push_row(&mut lines, &header_cells, &widths, multiline);
    lines.push(format!("|{}|", rule.join("|")));
    let rows = cols.first().map_or(0, Vec::len);
    for i in 0..rows {
        let row: Vec<String> = cols.iter().map(|c| c[i].clone()).collect();
        push_row(&mut lines, &row, &widths, multiline);
    }
    lines.join("\n")
}

/// One row of the table; a multi-line row becomes several lines, shorter cells filled with
/// blanks (`_append_multiline_row`).
fn push_row(lines: &mut Vec<String>, cells: &[String], widths: &[usize], multiline: bool) {
    if !multiline {
        lines.push(format!("| {} |", cells.join(" | ")));
        return;
    }
    let split: Vec<Vec<String>> = cells.iter().map(|c| split_lines(c)).collect();
    let n = split.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..n {
        let line: Vec<String> = split
            .iter()
            .zip(widths)
            .map(|(c, w)| c.get(i).cloned().unwrap_or_else(|| " ".repeat(*w)))
            .collect();
        lines.push(format!("| {} |", line.join(" | ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_as_python() {
        for (f, want) in [
            (100.0, "100"),
            (3089000000000.0, "3.089e+12"),
            (0.904, "0.904"),
            (40586500.0, "4.05865e+07"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (123456.5, "123456"),
            (999999.5, "1e+06"),
            (413.0, "413"),
        ] {
            assert_eq!(format_g(f), want, "{f}");
        }
    }
}
