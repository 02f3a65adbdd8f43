//! pandas 2.3.3 `DataFrame`s as RAGFlow builds and prints them: the dtype pandas infers for each
//! column of Python values (`lib.maybe_convert_objects`, then datetimes), `to_dict(orient=
//! "records")`, and `to_markdown()` (tabulate's `pipe` format over `DataFrame.values`, see
//! [`super::tabulate`]).
//!
//! One model serves every table canvasc prints: YahooFinance (`to_markdown()` with the index),
//! ExeSQL (`to_markdown(index=False, floatfmt=".6f")`) and ExcelProcessor
//! (`to_markdown(index=False)`). Checked against pandas itself by `tabular_tests.rs`
//! (`tests/golden/python/tabular.json`).
//!
//! What `DataFrame.values` hands tabulate matters as much as the dtypes: a frame whose columns
//! share one numeric dtype (or mix ints and floats) is one numpy array, whose scalars tabulate
//! 0.9 prints as floats (an all-int frame's `1234567` is `1.23457e+06`); any other frame is an
//! object array of Python values, whose ints stay ints.

use super::format::FloatFormat;
use super::str_of;
use super::tabulate::{self, pipe_table};
use serde_json::{Map, Value as Json};

/// A value as a frame holds it: a Python object of an object column, or a value of a typed one.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// `None` (in an object column; a numeric column holds NaN instead).
    None,
    Bool(bool),
    /// A Python int (a frame holds `int64`/`uint64`, or beyond them an object).
    Int(i128),
    /// A float; NaN is pandas' missing value (a missing key of a record, say).
    Float(f64),
    /// A `decimal.Decimal` by its text (database drivers return them): an object to pandas.
    Decimal(String),
    /// A `datetime.datetime` or `Timestamp` by its `str()`: `YYYY-MM-DD HH:MM:SS[.ffffff]`.
    DateTime(String),
    Str(String),
    /// A list or dict, printed by its `str()`. Boxed: a JSON value is the size of a map, and
    /// every cell of a million-cell sheet would pay for it.
    Json(Box<Json>),
}

impl Cell {
    /// pandas' missing value (`np.nan`).
    pub fn nan() -> Cell {
        Cell::Float(f64::NAN)
    }

    /// `pd.isnull`: `None` or NaN.
    pub fn is_missing(&self) -> bool {
        match self {
            Cell::None => true,
            Cell::Float(f) => f.is_nan(),
            _ => false,
        }
    }

    /// A JSON value as Python holds it once parsed.
    pub fn of(v: &Json) -> Cell {
        match v {
            Json::Null => Cell::None,
            Json::Bool(b) => Cell::Bool(*b),
            Json::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Cell::Int(i128::from(i)),
                (None, Some(u)) => Cell::Int(i128::from(u)),
                (None, None) => Cell::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => Cell::Str(s.clone()),
            other => Cell::Json(Box::new(other.clone())),
        }
    }

    /// A value of `to_dict(orient="records")` as JSON: NaN and the infinities (which JSON
    /// lacks) `null`, a decimal its float (ExeSQL's `convert_decimals`), a timestamp its text.
    pub fn to_json(&self) -> Json {
        let float = |f: f64| serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number);
        match self {
            Cell::None => Json::Null,
            Cell::Bool(b) => Json::Bool(*b),
            Cell::Int(i) => {
                if let Ok(i) = i64::try_from(*i) {
                    Json::from(i)
                } else if let Ok(u) = u64::try_from(*i) {
                    Json::from(u)
                } else {
                    float(*i as f64)
                }
            }
            Cell::Float(f) => float(*f),
            Cell::Decimal(s) => super::parse_float(s).map_or(Json::Null, float),
            Cell::DateTime(s) | Cell::Str(s) => Json::String(s.clone()),
            Cell::Json(v) => (**v).clone(),
        }
    }

    /// The Python object an object array holds for this value (`DataFrame.values`).
    fn object(&self) -> tabulate::Cell {
        match self {
            Cell::None => tabulate::Cell::None,
            Cell::Bool(b) => tabulate::Cell::Bool(*b),
            Cell::Int(i) => tabulate::Cell::Int(*i),
            Cell::Float(f) => tabulate::Cell::Float(*f),
            Cell::Decimal(s) => tabulate::Cell::Decimal(s.clone()),
            Cell::DateTime(s) => tabulate::Cell::Object(s.clone()),
            Cell::Str(s) => tabulate::Cell::Str(s.clone()),
            Cell::Json(v) => tabulate::Cell::Object(str_of(v)),
        }
    }
}

/// A column's dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `int64` or `uint64`.
    Int,
    Float,
    Bool,
    /// `datetime64[ns]`: missing values are `NaT`.
    DateTime,
    Object,
}

/// The dtype pandas gives a column of Python values (`lib.maybe_convert_objects`, then
/// `maybe_infer_to_datetimelike`): ints alone `int64` (`uint64` past it, an object when signs
/// mix past it); ints or floats with `None` or NaN `float64`; bools alone `bool`;
/// datetimes with missing values `datetime64`; `None` alone, strings, decimals and any mix
/// `object`.
pub fn infer<'a>(column: impl IntoIterator<Item = &'a Cell>) -> Dtype {
    let (mut null, mut nan, mut real_float, mut int) = (false, false, false, false);
    let (mut negative, mut past_i64) = (false, false);
    let (mut boolean, mut datetime, mut object) = (false, false, false);
    for c in column {
        match c {
            Cell::None => null = true,
            Cell::Float(f) if f.is_nan() => nan = true,
            Cell::Float(_) => real_float = true,
            Cell::Int(i) if *i > i128::from(u64::MAX) || *i < i128::from(i64::MIN) => object = true,
            Cell::Int(i) => {
                int = true;
                negative |= *i < 0;
                past_i64 |= *i > i128::from(i64::MAX);
            }
            Cell::Bool(_) => boolean = true,
            Cell::DateTime(_) => datetime = true,
            Cell::Decimal(_) | Cell::Str(_) | Cell::Json(_) => object = true,
        }
    }
    if datetime {
        // `None` and NaN (a missing key) both become `NaT`; anything else keeps an object.
        return if object || boolean || int || real_float {
            Dtype::Object
        } else {
            Dtype::DateTime
        };
    }
    let float = nan || real_float;
    let numeric = float || int;
    if object || (boolean && (null || numeric)) || (negative && past_i64) {
        return Dtype::Object;
    }
    if boolean {
        return Dtype::Bool;
    }
    if float || (int && null) {
        return Dtype::Float;
    }
    if int {
        return Dtype::Int;
    }
    Dtype::Object
}

/// A table: named columns, an index, and rows of cells converted to their column's dtype.
#[derive(Clone, Debug, Default)]
pub struct DataFrame {
    pub columns: Vec<String>,
    /// The index's name (`None`: unnamed, as a `RangeIndex`).
    pub index_name: Option<String>,
    /// The index labels (`None`: a `RangeIndex`, `0, 1, …`).
    pub index: Option<Vec<Cell>>,
    /// Row-major cells.
    pub rows: Vec<Vec<Cell>>,
    pub dtypes: Vec<Dtype>,
}

impl DataFrame {
    /// A frame of the given rows with a `RangeIndex` (short rows filled with NaN, as a record
    /// without a key), each column's dtype inferred.
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> DataFrame {
        let mut frame = DataFrame {
            columns,
            rows,
            ..DataFrame::default()
        };
        frame.infer();
        frame
    }

    /// A frame of the given columns (column-major cells).
    pub fn from_columns(columns: Vec<String>, cells: Vec<Vec<Cell>>) -> DataFrame {
        let n = cells.iter().map(Vec::len).max().unwrap_or(0);
        let rows = (0..n)
            .map(|i| {
                cells
                    .iter()
                    .map(|c| c.get(i).cloned().unwrap_or_else(Cell::nan))
                    .collect()
            })
            .collect();
        DataFrame::new(columns, rows)
    }

    /// The same frame with a named index of the given labels.
    pub fn with_index(mut self, name: Option<String>, labels: Vec<Cell>) -> DataFrame {
        self.index_name = name;
        self.index = Some(labels);
        self
    }

    /// `pd.DataFrame(rows)` of a JSON list: dicts give columns by first appearance of their
    /// keys (a missing key NaN), lists give columns `0, 1, …` (a short list filled with
    /// `None`), scalars one column `0`.
    pub fn from_json_rows(rows: &[Json]) -> DataFrame {
        DataFrame::from_json_rows_with(rows, Cell::of)
    }

    /// [`DataFrame::from_json_rows`] with the given reading of each value.
    pub fn from_json_rows_with(rows: &[Json], cell: impl Fn(&Json) -> Cell) -> DataFrame {
        if !rows.is_empty() && rows.iter().all(Json::is_object) {
            let mut columns: Vec<String> = Vec::new();
            for key in rows.iter().filter_map(Json::as_object).flat_map(Map::keys) {
                if !columns.contains(key) {
                    columns.push(key.clone());
                }
            }
            let cells = rows
                .iter()
                .map(|row| {
                    columns
                        .iter()
                        .map(|c| row.get(c).map_or_else(Cell::nan, &cell))
                        .collect()
                })
                .collect();
            return DataFrame::new(columns, cells);
        }
        let width = rows
            .iter()
            .map(|r| r.as_array().map_or(1, Vec::len))
            .max()
            .unwrap_or(0);
        let cells = rows
            .iter()
            .map(|row| match row {
                Json::Array(items) => {
                    let mut cells: Vec<Cell> = items.iter().map(&cell).collect();
                    cells.resize(width, Cell::None);
                    cells
                }
                scalar => vec![cell(scalar)],
            })
            .collect();
        DataFrame::new((0..width).map(|i| i.to_string()).collect(), cells)
    }

    /// `pd.Series(dict).to_frame()`: the keys as the index, one column named `0`.
    pub fn from_series(entries: Vec<(String, Cell)>) -> DataFrame {
        let (labels, values): (Vec<Cell>, Vec<Cell>) =
            entries.into_iter().map(|(k, v)| (Cell::Str(k), v)).unzip();
        DataFrame::from_columns(vec!["0".into()], vec![values]).with_index(None, labels)
    }

    /// Sets each column's dtype from its cells ([`infer`]) and converts the cells to it: ints
    /// of a float column become floats and `None` NaN; `None` and NaN of a datetime column
    /// `None` (`NaT`).
    pub fn infer(&mut self) {
        let width = self.columns.len();
        for row in &mut self.rows {
            row.resize(width, Cell::nan());
        }
        self.dtypes = (0..width)
            .map(|c| infer(self.rows.iter().map(|r| &r[c])))
            .collect();
        for row in &mut self.rows {
            for (cell, dtype) in row.iter_mut().zip(&self.dtypes) {
                match (dtype, &*cell) {
                    (Dtype::Float, Cell::Int(i)) => *cell = Cell::Float(*i as f64),
                    (Dtype::Float, Cell::None) => *cell = Cell::nan(),
                    (Dtype::DateTime, Cell::Float(_)) => *cell = Cell::None,
                    _ => {}
                }
            }
        }
    }

    /// `df.head(n)`.
    pub fn head(&self, n: usize) -> DataFrame {
        DataFrame {
            columns: self.columns.clone(),
            index_name: self.index_name.clone(),
            index: self
                .index
                .as_ref()
                .map(|labels| labels.iter().take(n).cloned().collect()),
            rows: self.rows.iter().take(n).cloned().collect(),
            dtypes: self.dtypes.clone(),
        }
    }

    /// `df[c] = df[c].dt.strftime("%Y-%m-%d")` for each datetime column (an object column
    /// after it, `NaT` becoming NaN), as ExeSQL does before printing.
    pub fn format_dates_as_days(&mut self) {
        for (c, dtype) in self.dtypes.iter_mut().enumerate() {
            if *dtype != Dtype::DateTime {
                continue;
            }
            *dtype = Dtype::Object;
            for row in &mut self.rows {
                row[c] = match &row[c] {
                    Cell::DateTime(s) => Cell::Str(s.chars().take(10).collect()),
                    _ => Cell::nan(),
                };
            }
        }
    }

    /// `df.where(pd.notnull(df), None)`: NaN becomes `None` in object columns (a float column
    /// keeps its NaN).
    pub fn where_notnull_none(&mut self) {
        for (c, dtype) in self.dtypes.iter().enumerate() {
            if *dtype == Dtype::Object {
                for row in &mut self.rows {
                    if row[c].is_missing() {
                        row[c] = Cell::None;
                    }
                }
            }
        }
    }

    /// `df.to_dict(orient="records")` as JSON ([`Cell::to_json`]). With duplicate column
    /// names the last one wins, as in a dict; a frame without columns has no records, whatever
    /// its length (pandas reads the rows through its columns).
    pub fn records(&self) -> Vec<Json> {
        if self.columns.is_empty() {
            return Vec::new();
        }
        self.rows
            .iter()
            .map(|row| {
                // Sized once: a growing map leaves up to half its entries unused, and a
                // million-cell sheet has a map per row.
                let mut map = Map::with_capacity(self.columns.len());
                for (name, cell) in self.columns.iter().zip(row) {
                    map.insert(name.clone(), cell.to_json());
                }
                Json::Object(map)
            })
            .collect()
    }

    /// `DataFrame.values` as tabulate reads its rows: one numpy array when every column has
    /// the same non-object dtype or the columns mix ints and floats (`float64`), else an
    /// object array of Python values.
    fn values(&self) -> Vec<Vec<tabulate::Cell>> {
        let first = self.dtypes.first().copied();
        let same = self.dtypes.iter().all(|d| Some(*d) == first);
        let numbers = self
            .dtypes
            .iter()
            .all(|d| matches!(d, Dtype::Int | Dtype::Float));
        let array = match first {
            Some(d) if same && d != Dtype::Object => Some(d),
            Some(_) if numbers => Some(Dtype::Float),
            _ => None,
        };
        self.rows
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&self.dtypes)
                    .map(|(cell, dtype)| match array {
                        Some(array) => numpy_scalar(cell, array),
                        None => match (dtype, cell) {
                            (Dtype::DateTime, Cell::None) => tabulate::Cell::Object("NaT".into()),
                            _ => cell.object(),
                        },
                    })
                    .collect()
            })
            .collect()
    }

    /// `df.to_markdown(index=index, floatfmt=floatfmt)`: tabulate's `pipe` table of
    /// `DataFrame.values`, headed by the column names (and the index's name, if any).
    pub fn to_markdown(&self, index: bool, floatfmt: FloatFormat) -> String {
        let mut headers: Vec<String> = Vec::with_capacity(self.columns.len() + 1);
        let mut rows = self.values();
        if index {
            if let Some(name) = &self.index_name {
                headers.push(name.clone());
            }
            for (i, row) in rows.iter_mut().enumerate() {
                let label = match &self.index {
                    Some(labels) => labels.get(i).map_or(tabulate::Cell::None, Cell::object),
                    None => tabulate::Cell::Int(i as i128),
                };
                row.insert(0, label);
            }
        }
        headers.extend(self.columns.iter().cloned());
        pipe_table(&headers, &rows, floatfmt)
    }
}

/// A value of a numpy array of the given dtype as tabulate sees it.
fn numpy_scalar(cell: &Cell, array: Dtype) -> tabulate::Cell {
    match (array, cell) {
        (Dtype::Float, Cell::Int(i)) => tabulate::Cell::Float(*i as f64),
        (Dtype::Float, Cell::Float(f)) => tabulate::Cell::Float(*f),
        (Dtype::Int, Cell::Int(i)) => tabulate::Cell::Numpy(Some(*i as f64), i.to_string()),
        (Dtype::Bool, Cell::Bool(b)) => tabulate::Cell::Numpy(
            Some(f64::from(u8::from(*b))),
            if *b { "True" } else { "False" }.into(),
        ),
        (Dtype::DateTime, Cell::DateTime(s)) => match Timestamp::parse(s) {
            Some(t) => tabulate::Cell::Numpy(Some(t.nanos() as f64), t.numpy_str()),
            None => tabulate::Cell::Object(s.clone()),
        },
        (Dtype::DateTime, _) => tabulate::Cell::Numpy(None, "NaT".into()),
        (_, other) => other.object(),
    }
}

/// A timestamp's fields, read from its `str()`.
struct Timestamp {
    date: (i64, u32, u32),
    time: (u32, u32, u32),
    /// Nanoseconds within the second.
    nanos: u32,
}

impl Timestamp {
    fn parse(s: &str) -> Option<Timestamp> {
        let (date, time) = s.split_once([' ', 'T']).unwrap_or((s, "00:00:00"));
        let mut d = date.splitn(3, '-');
        let (y, m, day) = (
            d.next()?.parse().ok()?,
            d.next()?.parse().ok()?,
            d.next()?.parse().ok()?,
        );
        let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
        let mut t = clock.splitn(3, ':');
        let (h, mi, sec) = (
            t.next()?.parse().ok()?,
            t.next()?.parse().ok()?,
            t.next()?.parse().ok()?,
        );
        if fraction.len() > 9 || !fraction.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let nanos = format!("{fraction:0<9}").parse().ok()?;
        Some(Timestamp {
            date: (y, m, day),
            time: (h, mi, sec),
            nanos,
        })
    }

    /// Nanoseconds since 1970-01-01 (numpy's `float()` of a `datetime64[ns]`).
    fn nanos(&self) -> i64 {
        let (y, m, d) = self.date;
        // Howard Hinnant's days_from_civil.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (i64::from(m) + 9) % 12;
        let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        let (h, mi, s) = self.time;
        let seconds = days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(s);
        seconds * 1_000_000_000 + i64::from(self.nanos)
    }

    /// `str(numpy.datetime64)` at nanosecond precision.
    fn numpy_str(&self) -> String {
        let ((y, m, d), (h, mi, s)) = (self.date, self.time);
        format!(
            "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:09}",
            self.nanos
        )
    }
}
