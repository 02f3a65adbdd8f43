//! Writing frames out: XLSX with rust_xlsxwriter as pandas' `to_excel(index=False)` lays it out
//! (a bold, bordered, centred header row, then the values; NaN as an empty cell), and CSV as
//! `to_csv(index=False)` writes it.

use super::frame::{Cell, Frame};
use canvasc_value::py::{float_repr, str_of};
use rust_xlsxwriter::{Format, FormatAlign, FormatBorder, Workbook};

/// An XLSX workbook with one sheet per `(name, frame)`.
pub fn xlsx(sheets: &[(String, Frame)]) -> Result<Vec<u8>, String> {
    let mut workbook = Workbook::new();
    let header = Format::new()
        .set_bold()
        .set_border(FormatBorder::Thin)
        .set_align(FormatAlign::Center)
        .set_align(FormatAlign::Top);
    for (name, frame) in sheets {
        let sheet = workbook.add_worksheet();
        sheet.set_name(name).map_err(|e| e.to_string())?;
        for (c, column) in frame.columns.iter().enumerate() {
            let c = u16::try_from(c).map_err(|_| "too many columns for a sheet".to_string())?;
            sheet
                .write_string_with_format(0, c, column, &header)
                .map_err(|e| e.to_string())?;
        }
        for (r, row) in frame.rows.iter().enumerate() {
            let r = u32::try_from(r + 1).map_err(|_| "too many rows for a sheet".to_string())?;
            for (c, cell) in row.iter().enumerate() {
                let c = u16::try_from(c).map_err(|_| "too many columns for a sheet".to_string())?;
                let written = match cell {
                    Cell::None => continue,
                    Cell::Float(f) if f.is_nan() => continue,
                    Cell::Int(i) => sheet.write_number(r, c, *i as f64),
                    Cell::Float(f) => sheet.write_number(r, c, *f),
                    Cell::Bool(b) => sheet.write_boolean(r, c, *b),
                    Cell::Str(s) | Cell::Decimal(s) | Cell::DateTime(s) => {
                        sheet.write_string(r, c, s)
                    }
                    Cell::Json(v) => sheet.write_string(r, c, str_of(v)),
                };
                written.map_err(|e| e.to_string())?;
            }
        }
    }
    workbook.save_to_buffer().map_err(|e| e.to_string())
}

/// `df.to_csv(index=False)`: minimal quoting, `\n` line ends, floats as Python prints them,
/// NaN and None empty.
pub fn csv(frame: &Frame) -> Result<Vec<u8>, String> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(Vec::new());
    writer
        .write_record(&frame.columns)
        .map_err(|e| e.to_string())?;
    for row in &frame.rows {
        let fields: Vec<String> = row
            .iter()
            .map(|cell| match cell {
                Cell::None => String::new(),
                Cell::Float(f) if f.is_nan() => String::new(),
                Cell::Int(i) => i.to_string(),
                Cell::Float(f) => float_repr(*f),
                Cell::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                Cell::Str(s) | Cell::Decimal(s) | Cell::DateTime(s) => s.clone(),
                Cell::Json(v) => str_of(v),
            })
            .collect();
        writer.write_record(&fields).map_err(|e| e.to_string())?;
    }
    writer.into_inner().map_err(|e| e.to_string())
}
