//! ExcelProcessor's operations on frames (`pd.concat`, `DataFrame.merge`), on pandas' model of a
//! frame in `canvasc_value::py::pandas` (shared with ExeSQL and YahooFinance: the dtypes pandas
//! infers, `to_dict(orient="records")` and `to_markdown()`).

pub use canvasc_value::py::pandas::{Cell, DataFrame as Frame};
use std::cmp::Ordering;

/// `pd.concat(frames, ignore_index=True)`: columns in order of first appearance, gaps NaN.
pub fn concat(frames: &[Frame]) -> Frame {
    let mut columns: Vec<String> = Vec::new();
    for frame in frames {
        for name in &frame.columns {
            if !columns.contains(name) {
                columns.push(name.clone());
            }
        }
    }
    let mut rows = Vec::new();
    for frame in frames {
        let index: Vec<Option<usize>> = columns
            .iter()
            .map(|c| frame.columns.iter().position(|n| n == c))
            .collect();
        for row in &frame.rows {
            rows.push(
                index
                    .iter()
                    .map(|i| i.map_or(Cell::nan(), |i| row[i].clone()))
                    .collect(),
            );
        }
    }
    Frame::new(columns, rows)
}

/// `left.merge(right, on=key, how="outer")`: keys of both sides sorted, each key's left
/// rows paired with its right rows, a side without the key filled with NaN; other columns
/// both sides have get `_x` and `_y`.
pub fn outer_join(left: &Frame, right: &Frame, key: &str) -> Result<Frame, String> {
    let lk = left
        .columns
        .iter()
        .position(|c| c == key)
        .ok_or_else(|| key.to_string())?;
    let rk = right
        .columns
        .iter()
        .position(|c| c == key)
        .ok_or_else(|| key.to_string())?;
    let shared = |name: &String| name != key && right.columns.contains(name);
    let mut columns = Vec::new();
    for name in &left.columns {
        columns.push(if shared(name) {
            format!("{name}_x")
        } else {
            name.clone()
        });
    }
    let right_cols: Vec<usize> = (0..right.columns.len()).filter(|&i| i != rk).collect();
    for &i in &right_cols {
        let name = &right.columns[i];
        columns.push(if left.columns.contains(name) {
            format!("{name}_y")
        } else {
            name.clone()
        });
    }
    let mut keys: Vec<Cell> = Vec::new();
    for cell in left
        .rows
        .iter()
        .map(|r| &r[lk])
        .chain(right.rows.iter().map(|r| &r[rk]))
    {
        if !keys.iter().any(|k| same_key(k, cell)) {
            keys.push(cell.clone());
        }
    }
    keys.sort_by(key_order);
    let mut rows = Vec::new();
    for key_cell in &keys {
        let left_rows: Vec<&Vec<Cell>> = left
            .rows
            .iter()
            .filter(|r| same_key(&r[lk], key_cell))
            .collect();
        let right_rows: Vec<&Vec<Cell>> = right
            .rows
            .iter()
            .filter(|r| same_key(&r[rk], key_cell))
            .collect();
        let lefts: Vec<Option<&Vec<Cell>>> = if left_rows.is_empty() {
            vec![None]
        } else {
            left_rows.into_iter().map(Some).collect()
        };
        let rights: Vec<Option<&Vec<Cell>>> = if right_rows.is_empty() {
            vec![None]
        } else {
            right_rows.into_iter().map(Some).collect()
        };
        for l in &lefts {
            for r in &rights {
                let mut row: Vec<Cell> = match l {
                    Some(l) => (*l).clone(),
                    None => {
                        let mut row = vec![Cell::nan(); left.columns.len()];
                        row[lk] = key_cell.clone();
                        row
                    }
                };
                for &i in &right_cols {
                    row.push(r.map_or(Cell::nan(), |r| r[i].clone()));
                }
                rows.push(row);
            }
        }
    }
    Ok(Frame::new(columns, rows))
}

/// A join key's number (ints, floats and bools compare as numbers in a merge); NaN is missing.
fn number(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) if !f.is_nan() => Some(*f),
        Cell::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Whether two join keys match: equal numbers, both missing, or equal values.
fn same_key(a: &Cell, b: &Cell) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => (a.is_missing() && b.is_missing()) || a == b,
    }
}

/// Sort order of join keys: numbers, then strings, then missing keys last.
fn key_order(a: &Cell, b: &Cell) -> Ordering {
    let rank = |c: &Cell| match c {
        _ if number(c).is_some() => 0,
        Cell::Str(_) => 1,
        _ if c.is_missing() => 3,
        _ => 2,
    };
    match (a, b) {
        (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => rank(a).cmp(&rank(b)),
        },
    }
}
