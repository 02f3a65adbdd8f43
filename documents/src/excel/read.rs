//! Reading an input file into frames, one per sheet, as RAGFlow's
//! `_parse_excel_to_dataframes` does with pandas: a name ending in `.csv` is one sheet
//! `Sheet1` (`pd.read_csv`), anything else a workbook (`pd.read_excel`, here calamine) whose
//! sheets are chosen by `sheet_selection`. The first row names the columns; blank rows are
//! skipped; a file that cannot be parsed gives no sheets.

use super::frame::{Cell, Frame};
use calamine::{Data, Reader};

/// `sheet_selection`: `all`, `first`, or comma-separated names (unknown names are ignored).
pub fn parse(bytes: &[u8], filename: &str, sheet_selection: &str) -> Vec<(String, Frame)> {
    if filename.to_lowercase().ends_with(".csv") {
        return parse_csv(bytes)
            .map(|f| vec![("Sheet1".to_string(), f)])
            .unwrap_or_default();
    }
    parse_workbook(bytes, sheet_selection).unwrap_or_default()
}

fn parse_workbook(bytes: &[u8], selection: &str) -> Option<Vec<(String, Frame)>> {
    let mut workbook =
        calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).ok()?;
    let names = workbook.sheet_names();
    let chosen: Vec<String> = match selection {
        "all" => names.clone(),
        "first" => names.first().cloned().into_iter().collect(),
        list => list
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| names.contains(s))
            .collect(),
    };
    let mut frames = Vec::new();
    for name in chosen {
        let range = workbook.worksheet_range(&name).ok()?;
        let mut rows = range
            .rows()
            .filter(|row| row.iter().any(|c| !matches!(c, Data::Empty)))
            .map(|row| row.iter().map(excel_cell).collect::<Vec<Cell>>());
        let header: Vec<Cell> = rows.next().unwrap_or_default();
        let body: Vec<Vec<Cell>> = rows.collect();
        frames.push((name, Frame::new(column_names(&header), body)));
    }
    Some(frames)
}

/// A cell as openpyxl hands it to pandas: integral numbers are ints (the file stores `3`,
/// not `3.0`), dates as their ISO text.
fn excel_cell(data: &Data) -> Cell {
    match data {
        Data::Empty => Cell::nan(),
        Data::Int(i) => Cell::Int(i128::from(*i)),
        Data::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                Cell::Int(i128::from(*f as i64))
            } else {
                Cell::Float(*f)
            }
        }
        Data::Bool(b) => Cell::Bool(*b),
        Data::String(s) => Cell::Str(s.clone()),
        Data::DateTime(dt) => match dt.as_datetime() {
            Some(t) => Cell::Str(t.format("%Y-%m-%d %H:%M:%S").to_string()),
            None => Cell::Float(dt.as_f64()),
        },
        Data::DateTimeIso(s) | Data::DurationIso(s) => Cell::Str(s.clone()),
        Data::Error(e) => Cell::Str(format!("#{e:?}")),
    }
}

/// pandas' column names: the header's text, `Unnamed: <i>` for a blank, repeats made unique
/// with `.1`, `.2`, ….
fn column_names(header: &[Cell]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    for (i, cell) in header.iter().enumerate() {
        let base = match cell {
            Cell::None => format!("Unnamed: {i}"),
            Cell::Float(f) if f.is_nan() => format!("Unnamed: {i}"),
            Cell::Int(n) => n.to_string(),
            Cell::Float(f) => canvasc_value::py::float_repr(*f),
            Cell::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Cell::Str(s) | Cell::Decimal(s) | Cell::DateTime(s) => s.clone(),
            Cell::Json(v) => v.to_string(),
        };
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            name = format!("{base}.{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// pandas' default missing-value spellings.
const NA_VALUES: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// `pd.read_csv`: each column converted as a whole, to int, float or bool when every value
/// parses, else kept as text; missing spellings are NaN.
fn parse_csv(bytes: &[u8]) -> Option<Frame> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.ok()?;
        if record.iter().all(|f| f.is_empty()) && record.len() <= 1 {
            continue;
        }
        records.push(record.iter().map(str::to_string).collect::<Vec<String>>());
    }
    let mut records = records.into_iter();
    let header: Vec<Cell> = records
        .next()?
        .into_iter()
        .map(|h| {
            if h.is_empty() {
                Cell::nan()
            } else {
                Cell::Str(h)
            }
        })
        .collect();
    let columns = column_names(&header);
    let body: Vec<Vec<String>> = records.collect();
    let mut rows: Vec<Vec<Cell>> = vec![Vec::with_capacity(columns.len()); body.len()];
    for c in 0..columns.len() {
        let values: Vec<Option<&str>> = body
            .iter()
            .map(|r| {
                r.get(c)
                    .map(String::as_str)
                    .filter(|v| !NA_VALUES.contains(v))
            })
            .collect();
        let present = || values.iter().flatten();
        let cells: Vec<Cell> = if present().all(|v| v.trim().parse::<i64>().is_ok())
            && values.iter().all(Option::is_some)
        {
            values
                .iter()
                .map(|v| {
                    v.and_then(|v| v.trim().parse::<i64>().ok())
                        .map_or_else(Cell::nan, |i| Cell::Int(i.into()))
                })
                .collect()
        } else if present().all(|v| canvasc_value::py::parse_float(v.trim()).is_some())
            && present().next().is_some()
        {
            values
                .iter()
                .map(|v| {
                    v.and_then(|v| canvasc_value::py::parse_float(v.trim()))
                        .map_or_else(Cell::nan, Cell::Float)
                })
                .collect()
        } else if present().all(|v| csv_bool(v).is_some()) && present().next().is_some() {
            values
                .iter()
                .map(|v| v.and_then(csv_bool).map_or_else(Cell::nan, Cell::Bool))
                .collect()
        } else {
            values
                .iter()
                .map(|v| v.map_or_else(Cell::nan, |v| Cell::Str(v.to_string())))
                .collect()
        };
        for (row, cell) in rows.iter_mut().zip(cells) {
            row.push(cell);
        }
    }
    Some(Frame::new(columns, rows))
}

fn csv_bool(v: &str) -> Option<bool> {
    match v {
        "True" | "TRUE" | "true" => Some(true),
        "False" | "FALSE" | "false" => Some(false),
        _ => None,
    }
}
