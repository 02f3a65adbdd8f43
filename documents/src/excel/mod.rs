//! ExcelProcessor's operations (RAGFlow's `agent/component/excel_processor.py`) over resolved
//! inputs: the component finds the files and the data reference, these functions do what
//! pandas does with them and say what each output becomes.

pub mod budget;
pub mod frame;
pub mod read;
pub mod write;

pub use budget::{SheetBudget, SheetRefused};

use budget::Allowance;
use canvasc_value::py::{str_of, FloatFormat};
use frame::Frame;
use serde_json::{Map, Value};

/// A file named by `input_files`, with its bytes.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The outputs an operation sets (`None`: left as it was).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outputs {
    pub data: Option<Value>,
    pub summary: Option<String>,
    pub markdown: Option<String>,
    /// The `output` operation's file: name and bytes, to be stored under a new id.
    pub file: Option<(String, Vec<u8>)>,
}

/// `read`: every selected sheet of every file as rows, a summary line and a markdown preview
/// of its first ten rows; all the files together within `budget`.
pub fn read(
    files: &[InputFile],
    sheet_selection: &str,
    budget: SheetBudget,
) -> Result<Outputs, SheetRefused> {
    let mut allowance = Allowance::new(budget);
    let mut data = Map::new();
    let mut summaries = Vec::new();
    let mut parts = Vec::new();
    for file in files {
        let sheets = read::parse(&file.bytes, &file.name, sheet_selection, &mut allowance)?;
        let several = sheets.len() > 1;
        for (sheet, frame) in sheets {
            let key = if several {
                format!("{}_{sheet}", file.name)
            } else {
                file.name.clone()
            };
            data.insert(key.clone(), Value::Array(frame.records()));
            let shown: Vec<&str> = frame.columns.iter().take(5).map(String::as_str).collect();
            let more = if frame.columns.len() > 5 { "..." } else { "" };
            summaries.push(format!(
                "**{key}**: {} rows, {} columns ({}{more})",
                frame.rows.len(),
                frame.columns.len(),
                shown.join(", ")
            ));
            parts.push(format!("### {key}\n\n{}\n", markdown(&frame, Some(10))));
        }
    }
    Ok(Outputs {
        data: Some(Value::Object(data)),
        summary: Some(if summaries.is_empty() {
            "No Excel files found".to_string()
        } else {
            summaries.join("\n")
        }),
        markdown: Some(if parts.is_empty() {
            "No data".to_string()
        } else {
            parts.join("\n\n")
        }),
        file: None,
    })
}

/// `merge`: every sheet of every file, concatenated, or outer-joined on `join_on` (`join`
/// without a column concatenates). A join column missing from a sheet is pandas' `KeyError`,
/// whose text is the column's repr; files over `budget` are refused (the error's text).
pub fn merge(
    files: &[InputFile],
    sheet_selection: &str,
    strategy: &str,
    join_on: &str,
    budget: SheetBudget,
) -> Result<Outputs, String> {
    let mut allowance = Allowance::new(budget);
    let mut frames: Vec<Frame> = Vec::new();
    for f in files {
        let sheets = read::parse(&f.bytes, &f.name, sheet_selection, &mut allowance)
            .map_err(|e| e.to_string())?;
        frames.extend(sheets.into_iter().map(|(_, frame)| frame));
    }
    if frames.is_empty() {
        return Ok(Outputs {
            data: Some(Value::Object(Map::new())),
            summary: Some("No data to merge".to_string()),
            ..Outputs::default()
        });
    }
    let merged = if strategy == "join" && !join_on.is_empty() {
        let mut merged = frames[0].clone();
        for frame in &frames[1..] {
            merged = frame::outer_join(&merged, frame, join_on)
                .map_err(|key| canvasc_value::py::repr_str(&key))?;
        }
        merged
    } else {
        frame::concat(&frames)
    };
    let mut data = Map::new();
    data.insert("merged".to_string(), Value::Array(merged.records()));
    Ok(Outputs {
        data: Some(Value::Object(data)),
        summary: Some(format!(
            "Merged {} sources into {} rows, {} columns",
            frames.len(),
            merged.rows.len(),
            merged.columns.len()
        )),
        markdown: Some(markdown(&merged, Some(20))),
        file: None,
    })
}

/// `transform`: `data` is the reference's value, `None` when no reference is configured.
pub fn transform(data: Option<&Value>) -> Outputs {
    let summary = |s: &str| Outputs {
        summary: Some(s.to_string()),
        ..Outputs::default()
    };
    let Some(data) = data else {
        return summary("No transform data reference provided");
    };
    let mut out = match data {
        Value::Null => return summary("Transform data is empty"),
        Value::Object(map) if map.values().all(Value::is_array) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(name, rows)| {
                    let rows = rows.as_array().map(Vec::as_slice).unwrap_or_default();
                    format!(
                        "### {name}\n\n{}",
                        markdown(&Frame::from_json_rows(rows), None)
                    )
                })
                .collect();
            Outputs {
                data: Some(data.clone()),
                markdown: Some(parts.join("\n\n")),
                ..Outputs::default()
            }
        }
        Value::Object(_) => table_outputs(&Frame::from_json_rows(std::slice::from_ref(data))),
        Value::Array(rows) => table_outputs(&Frame::from_json_rows(rows)),
        other => {
            let text = str_of(other);
            let mut raw = Map::new();
            raw.insert("raw".to_string(), Value::String(text.clone()));
            Outputs {
                data: Some(Value::Object(raw)),
                markdown: Some(text),
                ..Outputs::default()
            }
        }
    };
    out.summary = Some("Transformed data ready for processing".to_string());
    out
}

/// `df.head(limit).to_markdown(index=False)` (every row when `limit` is `None`).
fn markdown(frame: &Frame, limit: Option<usize>) -> String {
    let shown = match limit {
        Some(n) => &frame.head(n),
        None => frame,
    };
    shown.to_markdown(false, FloatFormat::General)
}

fn table_outputs(frame: &Frame) -> Outputs {
    Outputs {
        data: Some(Value::Array(frame.records())),
        markdown: Some(markdown(frame, None)),
        ..Outputs::default()
    }
}

/// `output`: writes the data as XLSX (a sheet per key) or CSV (the first sheet only).
/// `data` is the reference's value, `None` when no reference is configured. Failures become
/// the summary, as RAGFlow reports them (no error).
pub fn output(data: Option<&Value>, format: &str, filename: &str) -> Outputs {
    let summary = |s: String| Outputs {
        summary: Some(s),
        ..Outputs::default()
    };
    let Some(data) = data else {
        return summary("No data reference for output".to_string());
    };
    let sheets: Vec<(String, Frame)> = match data {
        Value::Null => return summary("No data to output".to_string()),
        Value::Object(map) if map.values().all(Value::is_array) => map
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    Frame::from_json_rows(v.as_array().map(Vec::as_slice).unwrap_or_default()),
                )
            })
            .collect(),
        Value::Object(_) => vec![(
            "Sheet1".to_string(),
            Frame::from_json_rows(std::slice::from_ref(data)),
        )],
        Value::Array(rows) => vec![("Sheet1".to_string(), Frame::from_json_rows(rows))],
        _ => return summary("Invalid data format for Excel output".to_string()),
    };
    let written = if format == "csv" {
        match sheets.first() {
            Some((_, frame)) => write::csv(frame).map(|b| (format!("{filename}.csv"), b)),
            None => Err("list index out of range".to_string()),
        }
    } else {
        let safe: Vec<(String, Frame)> = sheets
            .iter()
            .map(|(name, frame)| {
                let short: String = name.chars().take(31).collect();
                (short.replace(['/', '\\'], "_"), frame.clone())
            })
            .collect();
        write::xlsx(&safe).map(|b| (format!("{filename}.xlsx"), b))
    };
    let (name, bytes) = match written {
        Ok(file) => file,
        Err(e) => return summary(format!("Error generating output: {e}")),
    };
    let total_rows: usize = sheets.iter().map(|(_, f)| f.rows.len()).sum();
    let mut data = Map::new();
    for (k, frame) in &sheets {
        data.insert(k.clone(), Value::Array(frame.records()));
    }
    Outputs {
        data: Some(Value::Object(data)),
        summary: Some(format!(
            "Generated {name} with {} sheet(s), {total_rows} total rows",
            sheets.len()
        )),
        markdown: None,
        file: Some((name, bytes)),
    }
}
