//! Writes the ExcelProcessor test spreadsheets into a directory, for RAGFlow's engine to read
//! (`tests/excel/oracle.py`): `cargo run -p canvasc-documents --example excel_fixtures -- DIR`.

#[path = "../tests/excel/fixtures.rs"]
mod excel_fixtures;

fn main() -> Result<(), String> {
    let dir = std::env::args().nth(1).ok_or("usage: excel_fixtures DIR")?;
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for (name, bytes) in excel_fixtures::files()? {
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}
