//! One statement's rows as RAGFlow turns them into output: a pandas `DataFrame` built from the
//! cursor's tuples (pandas decides each column's dtype), then `df.to_dict(orient="records")`
//! after `convert_decimals` for `json`, and `df.to_markdown(index=False, floatfmt=".6f")` for
//! the text.
//!
//! `to_markdown` is `tabulate`'s `pipe` format. No Rust crate reproduces tabulate's column
//! typing and decimal alignment byte for byte, so the few rules it applies here are written out
//! below (checked against pandas 2.3 / tabulate 0.9 by the tests).

use canvasc_value::{Json, Map};

/// A value as the database driver hands it to Python.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// `decimal.Decimal`: an object column in pandas, a float in `json`.
    Decimal(f64),
    /// `datetime.datetime`: a datetime64 column, printed `YYYY-MM-DD`.
    DateTime(String),
    /// Anything printed as text (`str`, `datetime.date` as `YYYY-MM-DD`, …).
    Text(String),
}

/// A column after pandas' dtype inference.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Dtype {
    Int,
    /// float64: ints become floats, missing values NaN.
    Float,
    Bool,
    Object,
}

fn dtype(column: &[Cell]) -> Dtype {
    let has_null = column.iter().any(|c| matches!(c, Cell::Null));
    let present: Vec<&Cell> = column.iter().filter(|c| !matches!(c, Cell::Null)).collect();
    if present.is_empty() {
        return Dtype::Object;
    }
    if present.iter().all(|c| matches!(c, Cell::Int(_))) {
        return if has_null { Dtype::Float } else { Dtype::Int };
    }
    if present
        .iter()
        .all(|c| matches!(c, Cell::Int(_) | Cell::Float(_)))
    {
        return Dtype::Float;
    }
    if !has_null && present.iter().all(|c| matches!(c, Cell::Bool(_))) {
        return Dtype::Bool;
    }
    Dtype::Object
}

/// The cells of one column as they are once the DataFrame holds them.
fn normalized(column: &[Cell]) -> Vec<Cell> {
    match dtype(column) {
        Dtype::Float => column
            .iter()
            .map(|c| match c {
                Cell::Int(i) => Cell::Float(*i as f64),
                Cell::Null => Cell::Float(f64::NAN),
                other => other.clone(),
            })
            .collect(),
        _ => column.to_vec(),
    }
}

/// The rows of one statement, by column.
pub struct Frame {
    pub columns: Vec<String>,
    /// Column-major cells, after dtype inference.
    cells: Vec<Vec<Cell>>,
    rows: usize,
}

impl Frame {
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> Frame {
        let n = rows.len();
        let cells = (0..columns.len())
            .map(|j| {
                let column: Vec<Cell> = rows
                    .iter()
                    .map(|r| r.get(j).cloned().unwrap_or(Cell::Null))
                    .collect();
                normalized(&column)
            })
            .collect();
        Frame {
            columns,
            cells,
            rows: n,
        }
    }

    /// `convert_decimals(df.to_dict(orient="records"))`: NaN and infinities become `null`,
    /// decimals floats. With duplicate column names the last one wins, as in a dict.
    pub fn records(&self) -> Vec<Json> {
        (0..self.rows)
            .map(|i| {
                let mut row = Map::new();
                for (j, name) in self.columns.iter().enumerate() {
                    let v = match &self.cells[j][i] {
                        Cell::Null => Json::Null,
                        Cell::Bool(b) => Json::Bool(*b),
                        Cell::Int(n) => Json::from(*n),
                        Cell::Float(f) | Cell::Decimal(f) => {
                            serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number)
                        }
                        Cell::DateTime(s) | Cell::Text(s) => Json::String(s.clone()),
                    };
                    row.insert(name.clone(), v);
                }
                Json::Object(row)
            })
            .collect()
    }

    /// `df.to_markdown(index=False, floatfmt=".6f")`.
    pub fn markdown(&self) -> String {
        let mut columns: Vec<(bool, Vec<String>, usize)> = Vec::new();
        for (j, header) in self.columns.iter().enumerate() {
            let (numeric, texts) = format_column(&self.cells[j]);
            let width = texts
                .iter()
                .map(|t| t.chars().count())
                .chain([header.chars().count() + 2])
                .max()
                .unwrap_or(0);
            columns.push((numeric, texts, width));
        }
        let line = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
        let pad = |text: &str, width: usize, right: bool| {
            let fill = " ".repeat(width.saturating_sub(text.chars().count()));
            if right {
                format!("{fill}{text}")
            } else {
                format!("{text}{fill}")
            }
        };
        let mut out = vec![line(
            self.columns
                .iter()
                .zip(&columns)
                .map(|(h, (numeric, _, w))| pad(h, *w, *numeric))
                .collect(),
        )];
        let rule: Vec<String> = columns
            .iter()
            .map(|(numeric, _, w)| {
                if *numeric {
                    format!("{}:", "-".repeat(w + 1))
                } else {
                    format!(":{}", "-".repeat(w + 1))
                }
            })
            .collect();
        out.push(format!("|{}|", rule.join("|")));
        for i in 0..self.rows {
            out.push(line(
                columns
                    .iter()
                    .map(|(numeric, texts, w)| pad(&texts[i], *w, *numeric))
                    .collect(),
            ));
        }
        out.join("\n")
    }
}

/// tabulate's type of one value: 0 none, 1 bool, 2 int, 3 float, 5 text (`_more_generic`).
fn rank(cell: &Cell) -> u8 {
    match cell {
        Cell::Null => 0,
        Cell::Bool(_) => 1,
        Cell::Int(_) => 2,
        Cell::Float(_) | Cell::Decimal(_) => 3,
        Cell::DateTime(s) | Cell::Text(s) => {
            if py_int(s).is_some() {
                2
            } else if py_float(s).is_some() {
                3
            } else {
                5
            }
        }
    }
}

/// Python's `int(s)` for the plain forms tabulate's number sniffing meets.
fn py_int(s: &str) -> Option<i128> {
    s.trim().parse::<i128>().ok()
}

/// Python's `float(s)`, including `nan`/`inf`.
fn py_float(s: &str) -> Option<f64> {
    canvasc_value::py::parse_float(s)
}

/// One column's texts and whether tabulate aligns it as numbers (right, decimal points lined
/// up). Missing values print as `""`.
fn format_column(cells: &[Cell]) -> (bool, Vec<String>) {
    let kind = cells.iter().map(rank).max().unwrap_or(0);
    let texts: Vec<String> = cells
        .iter()
        .map(|c| match (c, kind) {
            (Cell::Null, _) => String::new(),
            (Cell::Bool(b), _) => if *b { "True" } else { "False" }.to_string(),
            (Cell::Int(n), 3) => format!("{:.6}", *n as f64),
            (Cell::Int(n), _) => n.to_string(),
            (Cell::Float(f) | Cell::Decimal(f), 2 | 3) => float6(*f),
            (Cell::Float(f) | Cell::Decimal(f), _) => float_str(*f),
            (Cell::DateTime(s) | Cell::Text(s), 2) => {
                py_int(s).map_or(s.clone(), |n| n.to_string())
            }
            (Cell::DateTime(s) | Cell::Text(s), 3) => py_float(s).map_or(s.clone(), float6),
            (Cell::DateTime(s) | Cell::Text(s), _) => s.clone(),
        })
        .collect();
    if kind != 2 && kind != 3 {
        return (false, texts);
    }
    // "decimal" alignment: pad each number on the right so the decimal points line up.
    let after = |t: &str| -> Option<usize> {
        if py_int(t).is_some() {
            return None;
        }
        t.rfind('.').map(|p| t.len() - p - 1)
    };
    let most = texts.iter().filter_map(|t| after(t)).max();
    let texts = texts
        .into_iter()
        .zip(cells)
        .map(|(t, c)| {
            if matches!(c, Cell::Null) {
                return t;
            }
            let have = after(&t).map_or(-1, |a| a as i64);
            let want = most.map_or(-1, |m| m as i64);
            let fill = usize::try_from(want - have).unwrap_or(0);
            format!("{t}{}", " ".repeat(fill))
        })
        .collect();
    (true, texts)
}

/// `format(f, ".6f")`.
fn float6(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{f:.6}")
    }
}

/// `str(f)`.
fn float_str(f: f64) -> String {
    canvasc_value::py::float_repr(f)
}
