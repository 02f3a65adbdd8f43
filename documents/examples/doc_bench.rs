//! The documents benchmark: a 30-page PDF (`tests/cases/long_text.md`) or a 10,000-row XLSX
//! (ExcelProcessor's `output`, then `read` of that file), timed, with the process's peak
//! resident memory (VmHWM). One kind per run, so each peak is its own:
//!
//!   cargo run --release -p canvasc-documents --example doc_bench -- pdf
//!   cargo run --release -p canvasc-documents --example doc_bench -- xlsx
//!
//! `edge` is the decompression-bomb benchmark (issue 39, item 15): 100 PDFs each embedding a PNG
//! data URL at the image budget's edge (4096 × 2730 RGB, just under 32 MiB decoded), then 100
//! reads of an XLSX at the sheet budget's edge (100,000 rows × 10 columns: the default rows
//! and cells), one after the other, with the peak resident memory above the idle process (the
//! peak is reset once the inputs are made):
//!
//!   cargo run --release -p canvasc-documents --example doc_bench -- edge

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

/// `VmRSS` of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Resets VmHWM to the current RSS (Linux `clear_refs`), so the next peak is the work's own.
fn reset_peak() -> Result<(), String> {
    std::fs::write("/proc/self/clear_refs", "5").map_err(|e| format!("clear_refs: {e}"))
}

/// An RGB PNG with a gradient, `width` × `height`.
fn gradient_png(width: u32, height: u32) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut header = encoder.write_header().map_err(|e| e.to_string())?;
        let mut stream = header.stream_writer().map_err(|e| e.to_string())?;
        let mut row = vec![0u8; width as usize * 3];
        for y in 0..height {
            for (x, px) in row.chunks_exact_mut(3).enumerate() {
                px.copy_from_slice(&[
                    (x % 256) as u8,
                    (y % 256) as u8,
                    ((x + y as usize) % 256) as u8,
                ]);
            }
            stream.write_all(&row).map_err(|e| e.to_string())?;
        }
        stream.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A workbook of `rows` × `columns` cells, the first row text headers.
fn table_xlsx(rows: u32, columns: u16) -> Result<Vec<u8>, String> {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    for c in 0..columns {
        sheet
            .write_string(0, c, format!("col{c}"))
            .map_err(|e| e.to_string())?;
    }
    for r in 1..rows {
        for c in 0..columns {
            if c % 2 == 0 {
                sheet.write_number(r, c, f64::from(r) * 1.5 + f64::from(c))
            } else {
                sheet.write_string(r, c, format!("r{r}c{c}"))
            }
            .map_err(|e| e.to_string())?;
        }
    }
    workbook.save_to_buffer().map_err(|e| e.to_string())
}

/// The `edge` benchmark: see the module's comment. The inputs are made here and written to a
/// directory; each half runs in a process of its own that only reads them, so the memory
/// making them took is not in the idle figure nor in the peak.
fn edge() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("canvasc-doc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("edge.png"), gradient_png(4096, 2730)?).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("edge.xlsx"), table_xlsx(100_000, 10)?).map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    for half in ["images", "sheets"] {
        let status = std::process::Command::new(&exe)
            .args(["edge-run", half])
            .arg(&dir)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("edge-run {half}: {status}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// One half of `edge`, over the inputs in `dir`: 100 runs, one after the other.
fn edge_run(half: &str, dir: &std::path::Path) -> Result<(), String> {
    use base64::Engine;
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    match half {
        "images" => {
            let png = read("edge.png")?;
            let content = format!(
                "# Chart\n\n![chart](data:image/png;base64,{})\n",
                base64::engine::general_purpose::STANDARD.encode(&png)
            );
            let generator = Generator::new(
                FontSet::discover(&FontConfig::default()),
                ImageSource::DataUrlsOnly,
            );
            let options = DocOptions::default();
            let now = chrono::Local::now().naive_local();
            // Fonts are read once per process: before the idle figure.
            generator.generate("warm", OutputFormat::Pdf, "warm", &options, now)?;
            let idle = rss_kib();
            reset_peak()?;
            let start = Instant::now();
            let mut pdf_bytes = 0;
            for _ in 0..100 {
                pdf_bytes = generator
                    .generate(&content, OutputFormat::Pdf, "edge", &options, now)?
                    .bytes
                    .len();
            }
            println!(
                "images: 100 PDFs, each with a {}-byte PNG data URL of 4096 x 2730 RGB ({} bytes decoded), {pdf_bytes}-byte PDF, {:.0} ms each; idle RSS {idle} KiB, peak {} KiB above idle",
                png.len(),
                4096 * 2730 * 3,
                start.elapsed().as_secs_f64() * 10.0,
                peak_kib().saturating_sub(idle)
            );
        }
        "sheets" => {
            let book = read("edge.xlsx")?;
            let idle = rss_kib();
            reset_peak()?;
            let start = Instant::now();
            let mut summary = String::new();
            for _ in 0..100 {
                let files = [excel::InputFile {
                    name: "edge.xlsx".to_string(),
                    bytes: book.clone(),
                }];
                summary = excel::read(&files, "all", excel::SheetBudget::default())
                    .map_err(|e| e.to_string())?
                    .summary
                    .unwrap_or_default();
            }
            println!(
                "sheets: 100 reads of a {}-byte XLSX ({summary}), {:.0} ms each; idle RSS {idle} KiB, peak {} KiB above idle",
                book.len(),
                start.elapsed().as_secs_f64() * 10.0,
                peak_kib().saturating_sub(idle)
            );
        }
        other => return Err(format!("unknown half {other}: images or sheets")),
    }
    Ok(())
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
                excel::SheetBudget::default(),
            )
            .map_err(|e| e.to_string())?;
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
        "edge" => edge()?,
        "edge-run" => {
            let half = std::env::args().nth(2).unwrap_or_default();
            let dir = std::env::args().nth(3).unwrap_or_default();
            edge_run(&half, std::path::Path::new(&dir))?
        }
        other => return Err(format!("unknown benchmark {other}: pdf, xlsx or edge")),
    }
    Ok(())
}
