//! `DataFrame.to_markdown(index=False)`: tabulate's `pipe` format (tabulate 0.9) with its
//! column typing (numeric columns right-aligned, floats lined up on the decimal point and
//! printed with `format(x, "g")`), minimum width of the header plus two, and `nan` for NaN.

use super::frame::{Cell, Frame};
use canvasc_value::py::{float_repr, str_of};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ColumnType {
    None,
    /// Python's bool is an int: tabulate ranks it just below int.
    Bool,
    Int,
    Float,
    Str,
}

/// Renders the first `limit` rows (all when `None`) as tabulate's pipe table.
pub fn to_markdown(frame: &Frame, limit: Option<usize>) -> String {
    let rows: Vec<&Vec<Cell>> = frame
        .rows
        .iter()
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    let columns = frame.columns.len();
    let mut rendered: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
    let mut header_cells = Vec::with_capacity(columns);
    let mut aligns = Vec::with_capacity(columns);
    let mut widths = Vec::with_capacity(columns);
    for c in 0..columns {
        let cells: Vec<&Cell> = rows.iter().map(|r| &r[c]).collect();
        let kind = cells
            .iter()
            .map(|cell| cell_type(cell))
            .max()
            .unwrap_or(ColumnType::None);
        let mut texts: Vec<String> = cells.iter().map(|cell| format_cell(cell, kind)).collect();
        let align = match kind {
            ColumnType::Int => Align::Right,
            ColumnType::Float => Align::Decimal,
            _ => Align::Left,
        };
        if align == Align::Decimal {
            let decimals: Vec<isize> = texts.iter().map(|t| after_point(t)).collect();
            let max = decimals.iter().copied().max().unwrap_or(0);
            for (t, d) in texts.iter_mut().zip(decimals) {
                t.push_str(&" ".repeat((max - d).max(0) as usize));
            }
        }
        let header = frame.columns[c].clone();
        let min_width = width(&header) + 2;
        let col_width = texts
            .iter()
            .map(|t| width(t))
            .max()
            .unwrap_or(0)
            .max(min_width);
        for (r, t) in texts.into_iter().enumerate() {
            rendered[r].push(pad(&t, col_width, align));
        }
        header_cells.push(pad(&header, col_width, align));
        aligns.push(align);
        widths.push(col_width);
    }
    let mut lines = Vec::with_capacity(rows.len() + 2);
    lines.push(format!("| {} |", header_cells.join(" | ")));
    let segments: Vec<String> = widths
        .iter()
        .zip(&aligns)
        .map(|(w, a)| {
            let w = w + 2;
            match a {
                Align::Right | Align::Decimal => format!("{}:", "-".repeat(w - 1)),
                Align::Left => format!(":{}", "-".repeat(w - 1)),
            }
        })
        .collect();
    lines.push(format!("|{}|", segments.join("|")));
    for row in rendered {
        lines.push(format!("| {} |", row.join(" | ")));
    }
    lines.join("\n")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
    Decimal,
}

fn cell_type(cell: &Cell) -> ColumnType {
    match cell {
        Cell::None => ColumnType::None,
        Cell::Int(_) => ColumnType::Int,
        Cell::Float(_) | Cell::Nan => ColumnType::Float,
        // tabulate parses numbers out of strings too.
        Cell::Str(s) => {
            let t = s.trim();
            if t.parse::<i64>().is_ok() {
                ColumnType::Int
            } else if canvasc_value::py::parse_float(t).is_some() {
                ColumnType::Float
            } else {
                ColumnType::Str
            }
        }
        Cell::Bool(_) => ColumnType::Bool,
        Cell::Json(_) => ColumnType::Str,
    }
}

fn format_cell(cell: &Cell, kind: ColumnType) -> String {
    match cell {
        Cell::None => String::new(),
        Cell::Nan => "nan".to_string(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) if kind == ColumnType::Float => format_g(*f),
        Cell::Float(f) => float_repr(*f),
        Cell::Bool(b) => match kind {
            ColumnType::Int => u8::from(*b).to_string(),
            ColumnType::Float => format_g(f64::from(u8::from(*b))),
            _ => if *b { "True" } else { "False" }.to_string(),
        },
        Cell::Str(s) if kind == ColumnType::Float => {
            canvasc_value::py::parse_float(s.trim()).map_or_else(|| s.clone(), format_g)
        }
        Cell::Str(s) => s.clone(),
        Cell::Json(v) => str_of(v),
    }
}

/// Python's `format(x, "g")`: six significant digits, trailing zeros dropped, exponent form
/// below 1e-4 and from 1e6.
pub fn format_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let formatted = format!("{:.5e}", x);
    let (mantissa, exp) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp).max(0) as usize;
        let s = format!("{:.*}", decimals, x);
        trim_zeros(&s)
    } else {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// tabulate's `_afterpoint`: digits after the decimal point, -1 for an integer.
fn after_point(s: &str) -> isize {
    if s.parse::<i64>().is_ok() {
        return -1;
    }
    let lower = s.to_ascii_lowercase();
    if lower.contains('e') || lower == "nan" || lower.ends_with("inf") {
        return -1;
    }
    match s.rfind('.') {
        Some(i) => (s.len() - i - 1) as isize,
        None => -1,
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(s: &str, width: usize, align: Align) -> String {
    let room = width.saturating_sub(self::width(s));
    match align {
        Align::Left => format!("{s}{}", " ".repeat(room)),
        Align::Right | Align::Decimal => format!("{}{s}", " ".repeat(room)),
    }
}

#[cfg(test)]
mod tests {
    use super::format_g;

    #[test]
    fn g_format_as_python() {
        for (x, s) in [
            (3.0, "3"),
            (2.5, "2.5"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456.0, "123456"),
            (-1.25, "-1.25"),
        ] {
            assert_eq!(format_g(x), s, "{x}");
        }
    }
}
