//! Decompression bombs (issue 39, item 15): images and spreadsheets that are small on the wire
//! and enormous once decoded are refused from their headers and while they stream, with an
//! error naming the component; files at the budget's edge still work. Every bomb here is a
//! real file, made by the test: a PNG that says it is 10,000 × 10,000 pixels in a hundred
//! kilobytes, an XLSX with two million cells, one whose sheet inflates past the budget (and
//! one whose zip directory lies about it), one whose cells repeat a long shared string.

use base64::Engine;
use canvasc_documents::components::{register, DocumentServices};
use canvasc_documents::excel::{self, InputFile, SheetBudget};
use canvasc_documents::fonts::{FontConfig, FontSet};
use canvasc_documents::markdown::{ImageBudget, ImageSource};
use canvasc_documents::store::LocalStore;
use canvasc_documents::{DocOptions, Generator, OutputFormat};
use canvasc_engine::external::Externals;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, Services, Session};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

// ---------------------------------------------------------------------------------------------
// Files.

/// An 8-bit greyscale PNG of `width` × `height` black pixels, written row by row (a bomb need
/// not be held to be made): a few bytes a row once deflated.
fn grey_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        let mut header = encoder.write_header().expect("PNG header");
        let mut stream = header.stream_writer().expect("PNG stream");
        let row = vec![0u8; width as usize];
        for _ in 0..height {
            stream.write_all(&row).expect("PNG row");
        }
        stream.finish().expect("PNG end");
    }
    out
}

/// An 8-bit RGB PNG with a gradient (something to decode, and to compress).
fn rgb_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut header = encoder.write_header().expect("PNG header");
        let mut stream = header.stream_writer().expect("PNG stream");
        let mut row = vec![0u8; width as usize * 3];
        for y in 0..height {
            for (x, px) in row.chunks_exact_mut(3).enumerate() {
                px.copy_from_slice(&[(x % 256) as u8, (y % 256) as u8, 128]);
            }
            stream.write_all(&row).expect("PNG row");
        }
        stream.finish().expect("PNG end");
    }
    out
}

/// A baseline JPEG's header saying it is `width` × `height` (the writers embed JPEG bytes as
/// they are: only the header is read).
fn jpeg_header(width: u16, height: u16) -> Vec<u8> {
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08];
    out.extend(height.to_be_bytes());
    out.extend(width.to_be_bytes());
    out.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
    out
}

fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A workbook with one sheet `Sheet1` (made by rust_xlsxwriter, so every other part is real),
/// its sheet XML and shared strings replaced: `sheet_data` writes the rows inside
/// `<sheetData>`, streamed into the zip.
fn xlsx_with(shared_strings: Option<&str>, sheet_data: impl FnOnce(&mut dyn Write)) -> Vec<u8> {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    sheet.write_string(0, 0, "x").expect("cell");
    let base = workbook.save_to_buffer().expect("xlsx");
    let mut source = zip::ZipArchive::new(std::io::Cursor::new(base)).expect("zip");
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut sheet_data = Some(sheet_data);
    for i in 0..source.len() {
        let mut member = source.by_index(i).expect("member");
        let name = member.name().expect("member name").to_string();
        out.start_file(name.as_str(), deflated).expect("start");
        match name.as_str() {
            "xl/worksheets/sheet1.xml" => {
                out.write_all(
                    b"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>",
                )
                .expect("write");
                if let Some(write) = sheet_data.take() {
                    let mut buffered = std::io::BufWriter::with_capacity(1 << 20, &mut out);
                    write(&mut buffered);
                    buffered.flush().expect("flush");
                }
                out.write_all(b"</sheetData></worksheet>").expect("write");
            }
            "xl/sharedStrings.xml" if shared_strings.is_some() => {
                let strings = shared_strings.unwrap_or_default();
                write!(
                    out,
                    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n\
<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" count=\"1\" uniqueCount=\"1\"><si><t>{strings}</t></si></sst>"
                )
                .expect("write");
            }
            _ => {
                let mut bytes = Vec::new();
                member.read_to_end(&mut bytes).expect("read");
                out.write_all(&bytes).expect("write");
            }
        }
    }
    out.finish().expect("finish").into_inner()
}

/// Rows of `columns` numbers each, `rows` of them.
fn number_rows(out: &mut dyn Write, rows: u32, columns: u32) {
    for r in 1..=rows {
        write!(out, "<row r=\"{r}\">").expect("write");
        for _ in 0..columns {
            out.write_all(b"<c><v>1</v></c>").expect("write");
        }
        out.write_all(b"</row>").expect("write");
    }
}

/// Sets the uncompressed size the zip directory (local header and central directory) gives
/// `name` to `size`: the member then lies about what it inflates to.
fn lie_about_size(zip: &mut [u8], name: &str, size: u32) {
    let name = name.as_bytes();
    let mut patched = 0;
    for at in 0..zip.len().saturating_sub(46) {
        let (signature, size_at, name_len_at, name_at) = match &zip[at..at + 4] {
            b"PK\x03\x04" => ("local", 22, 26, 30),
            b"PK\x01\x02" => ("central", 24, 28, 46),
            _ => continue,
        };
        let name_len = u16::from_le_bytes([zip[at + name_len_at], zip[at + name_len_at + 1]]);
        if zip.get(at + name_at..at + name_at + name_len as usize) == Some(name) {
            zip[at + size_at..at + size_at + 4].copy_from_slice(&size.to_le_bytes());
            patched += 1;
            let _ = signature;
        }
    }
    assert_eq!(
        patched, 2,
        "the local header and the central directory entry"
    );
}

/// A one-sheet ODS (what LibreOffice writes, reduced to what a reader needs).
fn ods() -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    out.start_file("mimetype", stored).expect("start");
    out.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .expect("write");
    out.start_file("META-INF/manifest.xml", stored)
        .expect("start");
    out.write_all(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">\
<manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/>\
<manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/></manifest:manifest>",
    )
    .expect("write");
    out.start_file("content.xml", stored).expect("start");
    out.write_all(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\">\
<office:body><office:spreadsheet><table:table table:name=\"Sheet1\">\
<table:table-row><table:table-cell office:value-type=\"string\"><text:p>name</text:p></table:table-cell></table:table-row>\
<table:table-row><table:table-cell office:value-type=\"string\"><text:p>Ann</text:p></table:table-cell></table:table-row>\
</table:table></office:spreadsheet></office:body></office:document-content>",
    )
    .expect("write");
    out.finish().expect("finish").into_inner()
}

/// A workbook of `rows` × `columns` numbers (rust_xlsxwriter, the first row text headers).
fn table_xlsx(rows: u32, columns: u16) -> Vec<u8> {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    for c in 0..columns {
        sheet.write_string(0, c, format!("col{c}")).expect("header");
    }
    for r in 1..rows {
        for c in 0..columns {
            sheet
                .write_number(r, c, f64::from(r) + f64::from(c))
                .expect("cell");
        }
    }
    workbook.save_to_buffer().expect("xlsx")
}

fn file(name: &str, bytes: Vec<u8>) -> Vec<InputFile> {
    vec![InputFile {
        name: name.to_string(),
        bytes,
    }]
}

// ---------------------------------------------------------------------------------------------
// Running the components.

fn generator() -> Generator {
    Generator::new(
        FontSet::discover(&FontConfig::default()),
        ImageSource::DataUrlsOnly,
    )
}

fn services(name: &str) -> DocumentServices {
    let dir = std::env::temp_dir().join(format!("canvasc-bombs-{}-{name}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    DocumentServices {
        generator: Arc::new(generator()),
        store: Arc::new(LocalStore::new(&dir)),
        bucket: "tenant".to_string(),
        sheet_budget: SheetBudget::default(),
        work: canvasc_documents::components::work_slots(),
    }
}

/// Runs Begin → `name` → Message with the Begin input `input` set to `value`; the saved
/// canvas's `_ERROR` of the component.
async fn component_error(name: &str, params: Value, value: Value) -> Value {
    let dsl = json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"inputs": {"input": {"name": "input", "type": "line"}}}}, "downstream": ["X:0"], "upstream": []},
            "X:0": {"obj": {"component_name": name, "params": params}, "downstream": ["Message:M"], "upstream": ["begin"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": ["done"]}}, "downstream": [], "upstream": ["X:0"]}
        },
        "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    });
    let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("canvas loads");
    let mut registry = Externals::default();
    register(&mut registry, &services(name));
    let services = Services {
        external: Arc::new(registry),
        ..Services::default()
    };
    let session = Session::new(
        Arc::new(Interpreter::from_analysis(&analysis)),
        analysis.document.dsl.clone(),
        services,
        Arc::new(Mutex::new(PyRandom::seeded(0))),
        true,
    );
    let mut events: Vec<Value> = Vec::new();
    let input = RunInput {
        query: Some(json!("")),
        inputs: Some(json!({"input": {"value": value}})),
        ..RunInput::default()
    };
    session.run(input, &mut events).await;
    session.save()["components"]["X:0"]["obj"]["params"]["outputs"]["_ERROR"]["value"].clone()
}

fn generate(generator: &Generator, content: &str, format: OutputFormat) -> Result<Vec<u8>, String> {
    let options = DocOptions {
        add_timestamp: false,
        ..DocOptions::default()
    };
    generator
        .generate(
            content,
            format,
            "bomb",
            &options,
            chrono::NaiveDate::from_ymd_opt(2025, 1, 1)
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .expect("date"),
        )
        .map(|g| g.bytes)
}

// ---------------------------------------------------------------------------------------------
// Images.

#[tokio::test]
async fn doc_generator_refuses_a_png_bomb_from_its_header() {
    let bomb = grey_png(10_000, 10_000);
    assert!(
        bomb.len() < 200_000,
        "a bomb is small: {} bytes",
        bomb.len()
    );
    let content = format!("# Report\n\n![chart]({})\n", data_url("image/png", &bomb));
    for (format, prefix) in [("pdf", "PDF"), ("docx", "DOCX")] {
        let params = json!({"content": "{begin@input}", "output_format": format});
        let error = component_error("DocGenerator", params, json!(content)).await;
        assert_eq!(
            error,
            json!(format!(
                "{prefix} generation failed: [DocGenerator] Image 1 \
(data:image/png;base64,…) is too large: 10000 × 10000 pixels (100,000,000), more than the \
40,000,000 pixels an image may have"
            ))
        );
    }
}

#[test]
fn a_jpeg_saying_it_is_huge_is_refused() {
    let content = format!(
        "![p]({})",
        data_url("image/jpeg", &jpeg_header(65_000, 65_000))
    );
    let error = generate(&generator(), &content, OutputFormat::Docx).expect_err("refused");
    assert!(
        error.starts_with("DOCX generation failed: [DocGenerator] Image 1 (data:image/jpeg;base64,…) is too large: 65000 × 65000 pixels"),
        "{error}"
    );
}

#[test]
fn a_png_that_decodes_past_the_byte_budget_is_refused_in_a_pdf_and_embedded_in_a_docx() {
    // 12 megapixels: within the pixel budget; as the PDF's RGB, 36,000,000 bytes.
    let content = format!("![p]({})", data_url("image/png", &grey_png(4000, 3000)));
    let error = generate(&generator(), &content, OutputFormat::Pdf).expect_err("refused");
    assert_eq!(
        error,
        "PDF generation failed: [DocGenerator] Image 1 (data:image/png;base64,…) is too large: \
4000 × 3000 pixels decode to 36,000,000 bytes, more than the 33,554,432 bytes an image may have"
    );
    // A DOCX embeds the PNG as it is: nothing is decoded.
    let docx = generate(&generator(), &content, OutputFormat::Docx).expect("DOCX");
    assert!(docx.starts_with(b"PK"));
}

#[test]
fn a_png_at_the_decoded_edge_makes_a_pdf() {
    // 4096 × 2730 × 3 = 33,546,240 bytes, just under 32 MiB.
    let content = format!(
        "# Edge\n\n![p]({})",
        data_url("image/png", &rgb_png(4096, 2730))
    );
    let pdf = generate(&generator(), &content, OutputFormat::Pdf).expect("PDF");
    let text = String::from_utf8_lossy(&pdf);
    assert!(
        text.contains("/Width 4096") && text.contains("/Height 2730"),
        "the image is in the PDF"
    );
}

#[test]
fn the_document_budget_counts_every_image() {
    let small = data_url("image/png", &grey_png(10, 10));
    let budget = ImageBudget {
        image_pixels: 100,
        document_pixels: 200,
        image_bytes: 1 << 20,
        document_bytes: 1 << 20,
    };
    let generator = generator().with_image_budget(budget);
    let two = format!("![a]({small}) ![b]({small})");
    generate(&generator, &two, OutputFormat::Pdf).expect("two images: at the edge");
    let three = format!("{two} ![c]({small})");
    let error = generate(&generator, &three, OutputFormat::Pdf).expect_err("refused");
    assert!(
        error.contains("[DocGenerator] Image 3 (data:image/png;base64,…) is too large: with its 100 pixels the document's images would have more than the 200 pixels"),
        "{error}"
    );
    // 11 × 10 is one pixel over the per-image budget.
    let wide = format!("![w]({})", data_url("image/png", &grey_png(11, 10)));
    let error = generate(&generator, &wide, OutputFormat::Docx).expect_err("refused");
    assert!(
        error.ends_with("11 × 10 pixels (110), more than the 100 pixels an image may have"),
        "{error}"
    );
}

#[test]
fn an_image_file_over_the_byte_budget_is_refused_before_it_is_decoded() {
    for extra in 0..3 {
        // Sizes whose base64 ends with no, one and two `=`.
        let png = grey_png(10 + extra, 10);
        let url = data_url("image/png", &png);
        let exact = ImageBudget {
            image_bytes: png.len() as u64,
            ..ImageBudget::default()
        };
        let content = format!("![p]({url})");
        generate(
            &generator().with_image_budget(exact),
            &content,
            OutputFormat::Docx,
        )
        .expect("a file of exactly the budget");
        let under = ImageBudget {
            image_bytes: png.len() as u64 - 1,
            ..ImageBudget::default()
        };
        let error = generate(
            &generator().with_image_budget(under),
            &content,
            OutputFormat::Docx,
        )
        .expect_err("one byte over");
        assert!(
            error.contains(&format!("its file has {} bytes", png.len())),
            "{error}"
        );
    }
}

#[test]
fn text_formats_write_an_image_source_without_loading_it() {
    let content = format!(
        "![chart]({})",
        data_url("image/png", &grey_png(10_000, 10_000))
    );
    let html = generate(&generator(), &content, OutputFormat::Html).expect("HTML");
    assert!(String::from_utf8_lossy(&html).contains("<img src=\"data:image/png;base64,"));
}

// ---------------------------------------------------------------------------------------------
// Spreadsheets.

/// The `_ERROR` of an ExcelProcessor `read` of `bytes` given as a data URL.
async fn excel_error(bytes: &[u8]) -> Value {
    let params = json!({"operation": "read", "input_files": ["begin@input"]});
    component_error(
        "ExcelProcessor",
        params,
        json!(data_url(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            bytes
        )),
    )
    .await
}

#[tokio::test]
async fn excel_processor_refuses_a_sheet_of_millions_of_cells() {
    let bomb = xlsx_with(None, |out| number_rows(out, 2_000, 1_000));
    assert!(bomb.len() < 1_000_000, "{} bytes", bomb.len());
    assert_eq!(
        excel_error(&bomb).await,
        json!("[ExcelProcessor] uploaded.xlsx is too large to read: sheet \"Sheet1\" has more than the 100,000 cells a call may read")
    );
}

#[test]
fn a_few_cells_spanning_a_huge_range_are_refused() {
    // 200 rows of column A and one cell in column XFD: 200 × 16,384 cells as pandas holds them.
    let bomb = xlsx_with(None, |out| {
        write!(
            out,
            "<row r=\"1\"><c r=\"A1\"><v>1</v></c><c r=\"XFD1\"><v>1</v></c></row>"
        )
        .expect("write");
        for r in 2..=200 {
            write!(out, "<row r=\"{r}\"><c r=\"A{r}\"><v>1</v></c></row>").expect("write");
        }
    });
    let error =
        excel::read(&file("wide.xlsx", bomb), "all", SheetBudget::default()).expect_err("refused");
    assert!(
        error.to_string().starts_with("[ExcelProcessor] wide.xlsx is too large to read: sheet \"Sheet1\" has more than the 100,000 cells"),
        "{error}"
    );
}

/// A sheet padded with 100 MB of spaces between its rows: deflated, about 100 KB.
fn padded_sheet() -> Vec<u8> {
    xlsx_with(None, |out| {
        number_rows(out, 2, 2);
        let spaces = vec![b' '; 1 << 20];
        for _ in 0..100 {
            out.write_all(&spaces).expect("write");
        }
    })
}

#[tokio::test]
async fn excel_processor_refuses_a_part_that_inflates_past_the_budget() {
    let bomb = padded_sheet();
    assert!(bomb.len() < 1_000_000, "{} bytes", bomb.len());
    let error = excel_error(&bomb).await;
    let text = error.as_str().unwrap_or_default();
    assert!(
        text.starts_with("[ExcelProcessor] uploaded.xlsx is too large to read: its part xl/worksheets/sheet1.xml expands to 104,")
            && text.ends_with("bytes, more than the 67,108,864 bytes a call may read"),
        "{text}"
    );
}

#[test]
fn a_part_lying_about_its_size_is_not_inflated_past_its_declaration() {
    let mut bomb = padded_sheet();
    lie_about_size(&mut bomb, "xl/worksheets/sheet1.xml", 1_000);
    // The zip reader stops the part at its declared 1,000 bytes: the file cannot be read, and
    // gives no sheets, as any file the parser fails on does in RAGFlow.
    let outputs =
        excel::read(&file("liar.xlsx", bomb), "all", SheetBudget::default()).expect("read");
    assert_eq!(outputs.summary.as_deref(), Some("No Excel files found"));
}

#[test]
fn cells_repeating_a_long_shared_string_are_refused() {
    // One 1 MiB shared string, named by 100 cells: 100 MiB of text from a small file.
    let long = "y".repeat(1 << 20);
    let bomb = xlsx_with(Some(&long), |out| {
        for r in 1..=100 {
            write!(
                out,
                "<row r=\"{r}\"><c r=\"A{r}\" t=\"s\"><v>0</v></c></row>"
            )
            .expect("write");
        }
    });
    assert!(bomb.len() < 100_000, "{} bytes", bomb.len());
    let error = excel::read(&file("strings.xlsx", bomb), "all", SheetBudget::default())
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "[ExcelProcessor] strings.xlsx is too large to read: the text of sheet \"Sheet1\" is more than the 67,108,864 bytes a call may read"
    );
}

#[test]
fn the_sheet_budget_holds_at_its_edges() {
    // 4 rows (a header and 3) of 3 columns: 12 cells.
    let book = table_xlsx(4, 3);
    let read = |budget: SheetBudget| excel::read(&file("t.xlsx", book.clone()), "all", budget);
    let inflated: u64 = {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(book.clone())).expect("zip");
        (0..zip.len())
            .map(|i| zip.by_index(i).map(|m| m.size()).unwrap_or_default())
            .sum()
    };
    // The header texts `col0`… are the cells' text.
    let edge = SheetBudget {
        cells: 12,
        rows: 4,
        bytes: inflated + 12,
    };
    let outputs = read(edge).expect("at the edge");
    assert_eq!(
        outputs.summary.as_deref(),
        Some("**t.xlsx**: 3 rows, 3 columns (col0, col1, col2)")
    );
    let cells = read(SheetBudget { cells: 11, ..edge }).expect_err("a cell over");
    assert!(cells
        .to_string()
        .ends_with("has more than the 11 cells a call may read"));
    let rows = read(SheetBudget { rows: 3, ..edge }).expect_err("a row over");
    assert!(rows
        .to_string()
        .ends_with("has more than the 3 rows a call may read"));
    let bytes = read(SheetBudget {
        bytes: inflated + 11,
        ..edge
    })
    .expect_err("a byte over");
    assert!(bytes.to_string().contains("more than the"), "{bytes}");
    // Two files share one budget: the second one's cells are over.
    let two = [file("a.xlsx", book.clone()), file("b.xlsx", book.clone())].concat();
    let error = excel::read(
        &two,
        "all",
        SheetBudget {
            cells: 20,
            rows: 8,
            bytes: 1 << 30,
        },
    )
    .expect_err("over together");
    assert!(
        error.to_string().starts_with("[ExcelProcessor] b.xlsx"),
        "{error}"
    );
    let merged = excel::merge(
        &two,
        "all",
        "concat",
        "",
        SheetBudget {
            cells: 20,
            rows: 8,
            bytes: 1 << 30,
        },
    )
    .expect_err("over together");
    assert!(merged.starts_with("[ExcelProcessor] b.xlsx"), "{merged}");
}

#[test]
fn a_workbook_at_the_default_edge_is_read() {
    // Rows of 10 columns, the header's among them: the default budget's cells, exactly.
    let rows = SheetBudget::default().cells / 10;
    let book = table_xlsx(rows as u32, 10);
    let outputs =
        excel::read(&file("edge.xlsx", book), "all", SheetBudget::default()).expect("read");
    assert_eq!(
        outputs.summary,
        Some(format!(
            "**edge.xlsx**: {} rows, 10 columns (col0, col1, col2, col3, col4...)",
            rows - 1
        ))
    );
    let over = table_xlsx(rows as u32 + 1, 10);
    excel::read(&file("over.xlsx", over), "all", SheetBudget::default())
        .expect_err("one row more is refused");
}

#[test]
fn a_csv_over_the_rows_budget_is_refused() {
    // One column: the rows budget, not the cells budget, is what a row more passes.
    let csv = "a\n".to_string() + &"1\n".repeat(100_000);
    let error = excel::read(
        &file("big.csv", csv.into_bytes()),
        "all",
        SheetBudget::default(),
    )
    .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "[ExcelProcessor] big.csv is too large to read: it has more than the 100,000 rows a call may read"
    );
    let edge = "a\n".to_string() + &"1\n".repeat(99_999);
    excel::read(
        &file("edge.csv", edge.into_bytes()),
        "all",
        SheetBudget::default(),
    )
    .expect("at the edge");
}

#[test]
fn an_ods_gives_no_sheets_as_openpyxl_gives_ragflow_none() {
    let ods = ods();
    // calamine itself reads it: the refusal is the reader's choice, not a broken file.
    let any = calamine::open_workbook_auto_from_rs(std::io::Cursor::new(ods.clone()))
        .expect("calamine reads the ODS");
    use calamine::Reader;
    assert_eq!(any.sheet_names(), vec!["Sheet1".to_string()]);
    let outputs =
        excel::read(&file("people.ods", ods), "all", SheetBudget::default()).expect("read");
    assert_eq!(outputs.summary.as_deref(), Some("No Excel files found"));
    assert_eq!(outputs.data, Some(json!({})));
}
