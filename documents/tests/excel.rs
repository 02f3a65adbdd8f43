//! ExcelProcessor's operations on spreadsheets the test makes (`excel_fixtures.rs`), compared
//! with what RAGFlow's engine produced from the same files and data
//! (`excel/expected/<case>.json`, written by `excel/oracle.py` through the reference oracle).
//! Written files are read back, and an XLSX is opened by LibreOffice headless.

#[path = "excel/fixtures.rs"]
mod excel_fixtures;

use canvasc_documents::excel::{self, InputFile, Outputs, SheetBudget};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::Command;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/excel")
}

fn param<'a>(case: &'a Value, key: &str, default: &'a str) -> &'a str {
    case[key].as_str().unwrap_or(default)
}

/// Runs one case as the component would and shapes the outputs as RAGFlow's `output()`.
fn outputs_of(case: &Value) -> Result<(Value, Outputs), String> {
    let fixtures = excel_fixtures::files()?;
    let files: Vec<InputFile> = case["files"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .map(|name| InputFile {
            name: name.to_string(),
            bytes: fixtures
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| b.clone())
                .unwrap_or_default(),
        })
        .collect();
    let data = case.as_object().and_then(|m| m.get("data"));
    let selection = param(case, "sheet_selection", "all");
    let outputs = match param(case, "operation", "read") {
        "read" => {
            excel::read(&files, selection, SheetBudget::default()).map_err(|e| e.to_string())?
        }
        "merge" => excel::merge(
            &files,
            selection,
            param(case, "merge_strategy", "concat"),
            param(case, "join_on", ""),
            SheetBudget::default(),
        )?,
        "transform" => excel::transform(data),
        "output" => excel::output(
            data,
            param(case, "output_format", "xlsx"),
            param(case, "output_filename", "output"),
        ),
        other => return Err(format!("unknown operation {other}")),
    };
    let mut shaped = Map::new();
    // An output the operation leaves unset is None after the run's reset.
    shaped.insert("data".into(), outputs.data.clone().unwrap_or(Value::Null));
    shaped.insert("summary".into(), json!(outputs.summary));
    shaped.insert("markdown".into(), json!(outputs.markdown));
    if let Some((name, _)) = &outputs.file {
        shaped.insert(
            "attachment".into(),
            json!({"doc_id": "<doc_id>", "format": param(case, "output_format", "xlsx"), "file_name": name}),
        );
    }
    Ok((Value::Object(shaped), outputs))
}

fn check(name: &str, case: &Value) -> Result<(), String> {
    let path = here().join(format!("expected/{name}.json"));
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let (actual, outputs) = outputs_of(case)?;
    if actual != expected {
        return Err(format!(
            "{name} differs from RAGFlow's:\n--- RAGFlow\n{}\n--- canvasc\n{}",
            serde_json::to_string_pretty(&expected).unwrap_or_default(),
            serde_json::to_string_pretty(&actual).unwrap_or_default()
        ));
    }
    // A written file reads back as the data it was written from.
    if let Some((file_name, bytes)) = &outputs.file {
        let back = excel::read(
            &[InputFile {
                name: file_name.clone(),
                bytes: bytes.clone(),
            }],
            "all",
            SheetBudget::default(),
        )
        .map_err(|e| e.to_string())?;
        let summary = back.summary.unwrap_or_default();
        if summary == "No Excel files found" {
            return Err(format!("{file_name} does not read back"));
        }
        if file_name.ends_with(".xlsx") {
            libreoffice_opens(file_name, bytes)?;
        }
    }
    Ok(())
}

fn libreoffice_opens(name: &str, bytes: &[u8]) -> Result<(), String> {
    let found = Command::new("sh")
        .args(["-c", "command -v soffice"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        if std::env::var_os("CANVASC_REQUIRE_SHARED").is_some() {
            return Err("soffice (LibreOffice) is required (CANVASC_REQUIRE_SHARED is set) but not installed: apt-get install libreoffice-calc-nogui".into());
        }
        eprintln!("note: LibreOffice is not installed; {name} is not opened");
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("canvasc-excel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let input = dir.join(name);
    std::fs::write(&input, bytes).map_err(|e| e.to_string())?;
    let out = Command::new("soffice")
        .arg(format!(
            "-env:UserInstallation=file://{}",
            dir.join("profile").display()
        ))
        .args([
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
        ])
        .arg(&dir)
        .arg(&input)
        .output()
        .map_err(|e| e.to_string())?;
    let pdf = input.with_extension("pdf");
    if !out.status.success() || !pdf.exists() {
        return Err(format!(
            "LibreOffice could not open {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let text = std::fs::read_to_string(here().join("cases.json")).unwrap_or_default();
    let cases: Map<String, Value> = serde_json::from_str(&text).unwrap_or_default();
    assert!(cases.len() >= 20, "the ExcelProcessor cases are missing");
    let trials = cases
        .into_iter()
        .map(|(name, case)| {
            Trial::test(name.clone(), move || {
                check(&name, &case).map_err(Failed::from)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
