//! A table as pandas holds one for ExcelProcessor: named columns, each with the dtype pandas
//! infers (int64, float64, bool or object), so that `to_dict(orient="records")` and
//! `to_markdown()` show the numbers pandas shows (an int column with a gap becomes float, a
//! missing number is NaN).

use serde_json::{Map, Value};

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// NaN: a missing value in a numeric column (and a blank cell as read).
    Nan,
    /// Python's `None` (a JSON null in an object column).
    None,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A nested JSON value (list or dict) in an object column. Boxed: a JSON value is the size
    /// of a map, and every cell of a million-cell sheet would pay for it.
    Json(Box<Value>),
}

/// pandas' dtype of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Int,
    Float,
    Bool,
    Object,
}

/// A table: column names and rows of cells, with the column dtypes fixed by [`Frame::infer`].
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    pub dtypes: Vec<Dtype>,
}

impl Frame {
    /// Builds a frame and infers its dtypes as pandas does for parsed or constructed data.
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> Frame {
        let mut frame = Frame {
            dtypes: Vec::new(),
            columns,
            rows,
        };
        frame.infer();
        frame
    }

    /// Sets each column's dtype from its cells and converts the cells to it: all ints → int;
    /// ints and floats, or numbers with gaps → float (gaps NaN); all bools → bool; anything
    /// else → object (cells kept as they are).
    pub fn infer(&mut self) {
        let width = self.columns.len();
        for row in &mut self.rows {
            row.resize(width, Cell::Nan);
        }
        self.dtypes = (0..width)
            .map(|c| {
                let mut ints = 0;
                let mut floats = 0;
                let mut bools = 0;
                let mut gaps = 0;
                let mut other = 0;
                for row in &self.rows {
                    match &row[c] {
                        Cell::Int(_) => ints += 1,
                        Cell::Float(_) => floats += 1,
                        Cell::Bool(_) => bools += 1,
                        Cell::Nan | Cell::None => gaps += 1,
                        _ => other += 1,
                    }
                }
                if other > 0 || (bools > 0 && (ints + floats + gaps) > 0) {
                    Dtype::Object
                } else if bools > 0 {
                    Dtype::Bool
                } else if floats > 0 || gaps > 0 {
                    Dtype::Float
                } else if ints > 0 {
                    Dtype::Int
                } else {
                    // An empty frame's column: pandas gives object.
                    Dtype::Object
                }
            })
            .collect();
        for row in &mut self.rows {
            for (c, cell) in row.iter_mut().enumerate() {
                match (self.dtypes[c], &*cell) {
                    (Dtype::Float, Cell::Int(i)) => *cell = Cell::Float(*i as f64),
                    (Dtype::Float, Cell::None) => *cell = Cell::Nan,
                    _ => {}
                }
            }
        }
    }

    /// `df.to_dict(orient="records")`. NaN has no JSON form: it becomes `null` (Python's
    /// `json.dumps` would write the non-standard `NaN`).
    pub fn records(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|row| {
                // Sized once: a growing map leaves up to half its entries unused, and a
                // million-cell sheet has a map per row.
                let mut map = Map::with_capacity(self.columns.len());
                for (name, cell) in self.columns.iter().zip(row) {
                    map.insert(name.clone(), cell.to_json());
                }
                Value::Object(map)
            })
            .collect()
    }

    /// `pd.DataFrame(rows)` for a JSON list: dicts give columns by first appearance of their
    /// keys, lists give columns `0, 1, …`, scalars one column `0`.
    pub fn from_json_rows(rows: &[Value]) -> Frame {
        let mut columns: Vec<String> = Vec::new();
        let all_dicts = !rows.is_empty() && rows.iter().all(Value::is_object);
        if all_dicts {
            for row in rows {
                if let Value::Object(map) = row {
                    for key in map.keys() {
                        if !columns.contains(key) {
                            columns.push(key.clone());
                        }
                    }
                }
            }
            let cells = rows
                .iter()
                .map(|row| {
                    columns
                        .iter()
                        .map(|c| row.get(c).map_or(Cell::Nan, Cell::from_json))
                        .collect()
                })
                .collect();
            return Frame::new(columns, cells);
        }
        let width = rows
            .iter()
            .map(|r| match r {
                Value::Array(items) => items.len(),
                _ => 1,
            })
            .max()
            .unwrap_or(0);
        columns = (0..width).map(|i| i.to_string()).collect();
        let cells = rows
            .iter()
            .map(|row| match row {
                Value::Array(items) => {
                    let mut cells: Vec<Cell> = items.iter().map(Cell::from_json).collect();
                    cells.resize(width, Cell::None);
                    cells
                }
                scalar => vec![Cell::from_json(scalar)],
            })
            .collect();
        Frame::new(columns, cells)
    }

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
                        .map(|i| i.map_or(Cell::Nan, |i| row[i].clone()))
                        .collect(),
                );
            }
        }
        Frame::new(columns, rows)
    }

    /// `left.merge(right, on=key, how="outer")`: keys of both sides sorted, each key's left
    /// rows paired with its right rows, a side without the key filled with NaN; other columns
    /// both sides have get `_x` and `_y`.
    pub fn outer_join(&self, right: &Frame, key: &str) -> Result<Frame, String> {
        let lk = self
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
        for name in &self.columns {
            columns.push(if shared(name) {
                format!("{name}_x")
            } else {
                name.clone()
            });
        }
        let right_cols: Vec<usize> = (0..right.columns.len()).filter(|&i| i != rk).collect();
        for &i in &right_cols {
            let name = &right.columns[i];
            columns.push(if self.columns.contains(name) {
                format!("{name}_y")
            } else {
                name.clone()
            });
        }
        let mut keys: Vec<Cell> = Vec::new();
        for cell in self
            .rows
            .iter()
            .map(|r| &r[lk])
            .chain(right.rows.iter().map(|r| &r[rk]))
        {
            if !keys.iter().any(|k| k.same_key(cell)) {
                keys.push(cell.clone());
            }
        }
        keys.sort_by(Cell::key_order);
        let mut rows = Vec::new();
        for key_cell in &keys {
            let left_rows: Vec<&Vec<Cell>> = self
                .rows
                .iter()
                .filter(|r| r[lk].same_key(key_cell))
                .collect();
            let right_rows: Vec<&Vec<Cell>> = right
                .rows
                .iter()
                .filter(|r| r[rk].same_key(key_cell))
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
                            let mut row = vec![Cell::Nan; self.columns.len()];
                            row[lk] = key_cell.clone();
                            row
                        }
                    };
                    for &i in &right_cols {
                        row.push(r.map_or(Cell::Nan, |r| r[i].clone()));
                    }
                    rows.push(row);
                }
            }
        }
        Ok(Frame::new(columns, rows))
    }
}

impl Cell {
    /// A JSON value as pandas stores it in a frame.
    pub fn from_json(value: &Value) -> Cell {
        match value {
            Value::Null => Cell::None,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Cell::Int(i),
                None => n.as_f64().map_or(Cell::Nan, Cell::Float),
            },
            Value::String(s) => Cell::Str(s.clone()),
            other => Cell::Json(Box::new(other.clone())),
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            Cell::Nan | Cell::None => Value::Null,
            Cell::Int(i) => Value::from(*i),
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Cell::Bool(b) => Value::Bool(*b),
            Cell::Str(s) => Value::String(s.clone()),
            Cell::Json(v) => v.as_ref().clone(),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    fn same_key(&self, other: &Cell) -> bool {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => a == b,
            _ => match (self, other) {
                (Cell::Nan | Cell::None, Cell::Nan | Cell::None) => true,
                (a, b) => a == b,
            },
        }
    }

    /// Sort order of join keys: numbers, then strings, then missing keys last.
    fn key_order(a: &Cell, b: &Cell) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let rank = |c: &Cell| match c {
            _ if c.number().is_some() => 0,
            Cell::Str(_) => 1,
            Cell::Nan | Cell::None => 3,
            _ => 2,
        };
        match (a, b) {
            (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
            _ => match (a.number(), b.number()) {
                (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
                _ => rank(a).cmp(&rank(b)),
            },
        }
    }
}
