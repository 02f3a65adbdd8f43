//! The documents benchmark: a 30-page PDF (`tests/cases/long_text.md`) or a 10,000-row XLSX
//! (ExcelProcessor's `output`, then `read` of that file), timed, with the process's peak
//! resident memory (VmHWM). One kind per run, so each peak is its own:
//!
//!   cargo run --release -p canvasc-documents --example doc_bench -- pdf
//!   cargo run --release -p canvasc-documents --example doc_bench -- xlsx

use canvasc_documents::excel;
use canvasc_documents::fonts::{FontConfig, FontSet};
use canvasc_documents::markdown::ImageSource;
use canvasc_documents::{DocOptions, Generator, OutputFormat};
use serde_json::{json, Value};
use std::time::Instant;

fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), String> {
    let kind = std::env::args().nth(1).unwrap_or_else(|| "pdf".to_string());
    match kind.as_str() {
        "pdf" => {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/long_text.md");
            let content = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            let generator = Generator::new(
                FontSet::discover(&FontConfig::default()),
                ImageSource::DataUrlsOnly,
            );
            let options = DocOptions {
                footer_text: "Benchmark".into(),
                watermark_text: "DRAFT".into(),
                ..DocOptions::default()
            };
            let start = Instant::now();
            let doc = generator.generate(
                &content,
                OutputFormat::Pdf,
                "bench",
                &options,
                chrono::Local::now().naive_local(),
            )?;
            let elapsed = start.elapsed();
            let pages = String::from_utf8_lossy(&doc.bytes)
                .matches("/Type /Page\n")
                .count()
                + String::from_utf8_lossy(&doc.bytes)
                    .matches("/Type/Page/")
                    .count();
            println!(
                "pdf: {} bytes, ~{pages} page objects, {:.1} ms, peak RSS {} KiB",
                doc.bytes.len(),
                elapsed.as_secs_f64() * 1000.0,
                peak_kib()
            );
        }
        "xlsx" => {
            let rows: Vec<Value> = (0..10_000)
                .map(|i| json!({"id": i, "name": format!("row {i}"), "amount": i as f64 * 1.25, "ok": i % 2 == 0, "city": "Berlin"}))
                .collect();
            let data = json!({ "Rows": rows });
            let start = Instant::now();
            let out = excel::output(Some(&data), "xlsx", "bench");
            let written = start.elapsed();
            let (name, bytes) = out.file.ok_or("no file written")?;
            let start = Instant::now();
            let back = excel::read(
                &[excel::InputFile {
                    name,
                    bytes: bytes.clone(),
                }],
                "all",
            );
            let read = start.elapsed();
            println!(
                "xlsx: {} bytes, write {:.1} ms, read {:.1} ms ({}), peak RSS {} KiB",
                bytes.len(),
                written.as_secs_f64() * 1000.0,
                read.as_secs_f64() * 1000.0,
                back.summary.unwrap_or_default(),
                peak_kib()
            );
        }
        other => return Err(format!("unknown benchmark {other}: pdf or xlsx")),
    }
    Ok(())
}
