//! Decompression bombs over HTTP (issue 39, item 15), small enough for the test server's body
//! limit: a JPEG data URL in a DocGenerator query whose header says 65,000 × 65,000 pixels, and
//! an XLSX data URL with a few cells spanning 16,384 columns × 200 rows. The run fails with the
//! component's own error, kept as its `_ERROR` in the session, and the server goes on
//! answering; a file within the budget still works through the same canvas.

use base64::Engine;
use serde_json::{json, Value};
use std::io::Write;

use crate::harness::{tenant, unique, Tenant};

/// A baseline JPEG's header saying it is `width` × `height` (only the header is read).
fn jpeg_header(width: u16, height: u16) -> Vec<u8> {
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08];
    out.extend(height.to_be_bytes());
    out.extend(width.to_be_bytes());
    out.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
    out
}

/// The smallest XLSX a reader accepts: one sheet whose `<sheetData>` `rows` writes.
fn xlsx(rows: impl FnOnce(&mut dyn Write)) -> Vec<u8> {
    const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    const RELS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
    const DOC_RELS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let parts = [
        (
            "[Content_Types].xml",
            String::from(
                "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
<Default Extension=\"xml\" ContentType=\"application/xml\"/>\
<Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
<Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/></Types>"
            ),
        ),
        (
            "_rels/.rels",
            format!(
                "<Relationships xmlns=\"{RELS}\"><Relationship Id=\"rId1\" \
Type=\"{DOC_RELS}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>"
            ),
        ),
        (
            "xl/workbook.xml",
            format!(
                "<workbook xmlns=\"{MAIN}\" xmlns:r=\"{DOC_RELS}\"><sheets>\
<sheet name=\"Sheet1\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"
            ),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            format!(
                "<Relationships xmlns=\"{RELS}\"><Relationship Id=\"rId1\" \
Type=\"{DOC_RELS}/worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>"
            ),
        ),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in parts {
        zip.start_file(name, deflated).expect("part");
        zip.write_all(text.as_bytes()).expect("write");
    }
    zip.start_file("xl/worksheets/sheet1.xml", deflated)
        .expect("sheet");
    write!(zip, "<worksheet xmlns=\"{MAIN}\"><sheetData>").expect("write");
    {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, &mut zip);
        rows(&mut buffered);
        buffered.flush().expect("flush");
    }
    zip.write_all(b"</sheetData></worksheet>").expect("write");
    zip.finish().expect("zip").into_inner()
}

fn number_rows(out: &mut dyn Write, rows: u32, columns: u32) {
    for r in 1..=rows {
        write!(out, "<row r=\"{r}\">").expect("write");
        for _ in 0..columns {
            out.write_all(b"<c><v>1</v></c>").expect("write");
        }
        out.write_all(b"</row>").expect("write");
    }
}

fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Begin → `component` (its output `shown` quoted by a Message).
fn dsl(component: &str, params: Value, shown: &str) -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["X:0"], "upstream": []},
            "X:0": {"obj": {"component_name": component, "params": params},
                    "downstream": ["Message:Show"], "upstream": ["begin"]},
            "Message:Show": {"obj": {"component_name": "Message",
                    "params": {"content": [format!("{{X:0@{shown}}}")]}},
                "downstream": [], "upstream": ["X:0"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    })
}

/// Runs `dsl` with `query`; the answer's data and the component's saved outputs.
async fn run(t: &Tenant, dsl: Value, query: &str) -> (Value, Value) {
    let created = t
        .api
        .post("/agents", json!({"title": unique("bomb"), "dsl": dsl}))
        .await;
    let id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let answer = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": query}),
        )
        .await;
    let data = answer.body["data"].clone();
    let session_id = data["session_id"].as_str().unwrap_or_default().to_string();
    let session = t
        .api
        .get(&format!("/agents/{id}/sessions/{session_id}"))
        .await;
    let outputs = session.expect(0)["dsl"]["components"]["X:0"]["obj"]["params"]["outputs"].clone();
    (answer.body, outputs)
}

#[tokio::test]
async fn a_jpeg_bomb_in_a_doc_generator_query_fails_the_component_not_the_server() {
    let t = tenant().await;
    let params = json!({"output_format": "pdf", "content": "# Report\n\n{sys.query}",
                        "add_timestamp": false});
    let bomb = jpeg_header(65_000, 65_000);
    let query = format!("![chart]({})", data_url("image/jpeg", &bomb));
    let (answer, outputs) = run(&t, dsl("DocGenerator", params.clone(), "download"), &query).await;
    let error = outputs["_ERROR"]["value"].as_str().unwrap_or_default();
    assert!(
        error.starts_with(
            "PDF generation failed: [DocGenerator] Image 1 (data:image/jpeg;base64,…) is too \
large: 65000 × 65000 pixels"
        ),
        "{answer}"
    );
    // The server goes on answering, and the same canvas makes its PDF without the bomb.
    let (answer, outputs) = run(&t, dsl("DocGenerator", params, "download"), "All quiet.").await;
    assert_eq!(outputs["_ERROR"]["value"], Value::Null, "{answer}");
    assert_eq!(
        answer["data"]["data"]["downloads"][0]["mime_type"], "application/pdf",
        "{answer}"
    );
}

#[tokio::test]
async fn an_xlsx_bomb_given_to_excel_processor_fails_the_component_not_the_server() {
    let t = tenant().await;
    let params = json!({"operation": "read", "input_files": ["sys.query"]});
    let mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
    // 200 rows of column A and one cell in column XFD: 200 × 16,384 cells as pandas holds them.
    let bomb = xlsx(|out| {
        out.write_all(b"<row r=\"1\"><c r=\"A1\"><v>1</v></c><c r=\"XFD1\"><v>1</v></c></row>")
            .expect("write");
        for r in 2..=200 {
            write!(out, "<row r=\"{r}\"><c r=\"A{r}\"><v>1</v></c></row>").expect("write");
        }
    });
    assert!(bomb.len() < 16 * 1024, "{} bytes", bomb.len());
    let (answer, outputs) = run(
        &t,
        dsl("ExcelProcessor", params.clone(), "summary"),
        &data_url(mime, &bomb),
    )
    .await;
    assert_eq!(
        outputs["_ERROR"]["value"],
        json!("[ExcelProcessor] uploaded.xlsx is too large to read: sheet \"Sheet1\" has more than the 100,000 cells a call may read"),
        "{answer}"
    );
    // The same file with three rows reads (the bomb was refused for its size, not its form).
    let small = xlsx(|out| number_rows(out, 3, 2));
    let (answer, outputs) = run(
        &t,
        dsl("ExcelProcessor", params, "summary"),
        &data_url(mime, &small),
    )
    .await;
    assert_eq!(
        outputs["summary"]["value"],
        json!("**uploaded.xlsx**: 2 rows, 2 columns (1, 1.1)"),
        "{answer}"
    );
}
