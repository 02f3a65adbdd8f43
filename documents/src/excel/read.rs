//! Reading an input file into frames, one per sheet, as RAGFlow's
//! `_parse_excel_to_dataframes` does with pandas: a name ending in `.csv` is one sheet
//! `Sheet1` (`pd.read_csv`), anything else a workbook (`pd.read_excel`, here calamine) whose
//! sheets are chosen by `sheet_selection`. The first row names the columns; blank rows are
//! skipped; a file that cannot be parsed gives no sheets.

use super::budget::{Allowance, SheetRefused};
use super::frame::{Cell, Frame};
use crate::image_data::grouped;
use calamine::{Data, DataRef, Reader, Xlsx, XlsxError};
use std::collections::BTreeMap;
use std::io::Cursor;

/// `sheet_selection`: `all`, `first`, or comma-separated names (unknown names are ignored).
/// What the file reads to is spent from `allowance`; a file over it is refused (an error),
/// a file that cannot be parsed gives no sheets (RAGFlow logs the parser's error and goes on).
pub fn parse(
    bytes: &[u8],
    filename: &str,
    sheet_selection: &str,
    allowance: &mut Allowance,
) -> Result<Vec<(String, Frame)>, SheetRefused> {
    let refused = |reason: String| SheetRefused {
        file: filename.to_string(),
        reason,
    };
    if filename.to_lowercase().ends_with(".csv") {
        return Ok(parse_csv(bytes, allowance)
            .map_err(refused)?
            .map(|f| vec![("Sheet1".to_string(), f)])
            .unwrap_or_default());
    }
    Ok(parse_workbook(bytes, sheet_selection, allowance)
        .map_err(refused)?
        .unwrap_or_default())
}

/// `pd.ExcelFile(content, engine="openpyxl")`: openpyxl reads only the Office Open XML
/// workbooks (XLSX, XLSM and their templates); an XLS, XLSB or ODS file is no workbook to it,
/// and RAGFlow's reader then gives no sheets. calamine's `Xlsx` reads the same family, and
/// only after every zip member has been measured against the budget.
fn parse_workbook(
    bytes: &[u8],
    selection: &str,
    allowance: &mut Allowance,
) -> Result<Option<Vec<(String, Frame)>>, String> {
    if !measure_members(bytes, allowance)? {
        return Ok(None);
    }
    let Ok(mut workbook) = Xlsx::new(Cursor::new(bytes)) else {
        return Ok(None);
    };
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
        let Some(frame) = read_sheet(&mut workbook, &name, allowance)? else {
            return Ok(None);
        };
        frames.push((name, frame));
    }
    Ok(Some(frames))
}

/// Spends what the workbook's zip members say they inflate to, from its directory, before
/// anything is inflated; a member whose declared size is over what is left is refused by name.
/// The declaration binds: the zip crate (the one calamine reads through) fails a member the
/// moment it inflates past its declared size, so a directory that lies makes an unreadable
/// file, not a large one. `false` when the file is no zip (no sheets, as for any unparseable
/// file).
fn measure_members(bytes: &[u8], allowance: &mut Allowance) -> Result<bool, String> {
    let Ok(zip) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(false);
    };
    for i in 0..zip.len() {
        let Ok(member) = zip.by_index_data(i) else {
            return Ok(false);
        };
        let name: String = member
            .name()
            .map(|n| n.chars().take(100).collect())
            .unwrap_or_else(|_| format!("#{}", i + 1));
        let declared = member.size();
        allowance.spend_bytes(
            declared,
            &format!("its part {name} expands to {} bytes,", grouped(declared)),
        )?;
    }
    Ok(true)
}

/// One sheet as pandas reads it: calamine's non-empty cells over the rectangle they span
/// (what `worksheet_range` builds), streamed with `worksheet_cells_reader` so that the cells,
/// rows and text are counted before they are kept; rows without a value are skipped, the first
/// row names the columns. `None` when the sheet cannot be parsed.
fn read_sheet(
    workbook: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
    allowance: &mut Allowance,
) -> Result<Option<Frame>, String> {
    let mut reader = match workbook.worksheet_cells_reader(name) {
        Ok(reader) => reader,
        // A chart sheet: calamine reads it as an empty range.
        Err(XlsxError::NotAWorksheet(_)) => return Ok(Some(Frame::new(Vec::new(), Vec::new()))),
        Err(_) => return Ok(None),
    };
    let mut rows: BTreeMap<u32, Vec<(u32, Cell)>> = BTreeMap::new();
    let (mut first_col, mut last_col) = (u32::MAX, 0);
    let mut listed: u64 = 0;
    loop {
        let cell = match reader.next_cell() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(_) => return Ok(None),
        };
        if matches!(cell.get_value(), DataRef::Empty) {
            continue;
        }
        let (row, col) = cell.get_position();
        listed += 1;
        first_col = first_col.min(col);
        last_col = last_col.max(col);
        let columns = u64::from(last_col - first_col) + 1;
        let row_count = rows.len() as u64 + u64::from(!rows.contains_key(&row));
        allowance
            .check_table(row_count, columns, listed)
            .map_err(|e| format!("sheet {name:?} has {e}"))?;
        let text = match cell.get_value() {
            DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.len(),
            DataRef::SharedString(s) => s.len(),
            _ => 0,
        };
        allowance.spend_bytes(text as u64, &format!("the text of sheet {name:?} is"))?;
        let value: Data = cell.get_value().clone().into();
        rows.entry(row).or_default().push((col, excel_cell(&value)));
    }
    let columns = if rows.is_empty() {
        0
    } else {
        (last_col - first_col) as usize + 1
    };
    allowance.spend_table(rows.len() as u64, columns as u64, listed);
    let mut table = rows.into_values().map(|cells| {
        let mut row = vec![Cell::nan(); columns];
        for (col, cell) in cells {
            row[(col - first_col) as usize] = cell;
        }
        row
    });
    let header: Vec<Cell> = table.next().unwrap_or_default();
    let body: Vec<Vec<Cell>> = table.collect();
    Ok(Some(Frame::new(column_names(&header), body)))
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
/// parses, else kept as text; missing spellings are NaN. The rows and fields are counted
/// against the budget as they are read (a CSV expands to itself: its bytes are spent whole).
/// `Ok(None)` when it cannot be parsed.
fn parse_csv(bytes: &[u8], allowance: &mut Allowance) -> Result<Option<Frame>, String> {
    allowance.spend_bytes(bytes.len() as u64, "it has")?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = Vec::new();
    let (mut width, mut fields) = (0u64, 0u64);
    for record in reader.records() {
        let Ok(record) = record else {
            return Ok(None);
        };
        if record.iter().all(|f| f.is_empty()) && record.len() <= 1 {
            continue;
        }
        width = width.max(record.len() as u64);
        fields += record.len() as u64;
        allowance
            .check_table(records.len() as u64 + 1, width, fields)
            .map_err(|e| format!("it has {e}"))?;
        records.push(record.iter().map(str::to_string).collect::<Vec<String>>());
    }
    allowance.spend_table(records.len() as u64, width, fields);
    Ok(csv_frame(records))
}

/// The frame of a CSV's non-blank records, the first naming the columns.
fn csv_frame(records: Vec<Vec<String>>) -> Option<Frame> {
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
