//! DocGenerator and ExcelProcessor as canvas components, run by the interpreter through the
//! engine's seam: the outputs, the stored file, the `download` a Message turns into
//! `message_end.downloads`, and ExcelProcessor reading a stored file end to end with the
//! outputs RAGFlow's engine gave for the same file (`excel/expected/read_all_sheets.json`).

#[path = "excel/fixtures.rs"]
mod excel_fixtures;

use base64::Engine;
use canvasc_documents::components::{register, DocumentServices};
use canvasc_documents::fonts::{FontConfig, FontSet};
use canvasc_documents::markdown::ImageSource;
use canvasc_documents::store::LocalStore;
use canvasc_documents::Generator;
use canvasc_engine::external::Externals;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, Services, Session};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn services(dir: &std::path::Path) -> DocumentServices {
    DocumentServices {
        generator: Arc::new(Generator::new(
            FontSet::discover(&FontConfig::default()),
            ImageSource::DataUrlsOnly,
        )),
        store: Arc::new(LocalStore::new(dir)),
        bucket: "tenant".to_string(),
        sheet_budget: canvasc_documents::excel::SheetBudget::default(),
        work: canvasc_documents::components::work_slots(),
    }
}

fn canvas(name: &str, params: Value, begin_inputs: Value, shown: &str) -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"inputs": begin_inputs}}, "downstream": ["X:0"], "upstream": []},
            "X:0": {"obj": {"component_name": name, "params": params}, "downstream": ["Message:M"], "upstream": ["begin"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": [shown]}}, "downstream": [], "upstream": ["X:0"]}
        },
        "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    })
}

async fn run(dsl: &Value, docs: &DocumentServices, inputs: Value) -> (Vec<Value>, Value) {
    let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("canvas loads");
    let mut registry = Externals::default();
    register(&mut registry, docs);
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
        inputs: Some(inputs),
        ..RunInput::default()
    };
    session.run(input, &mut events).await;
    (events, session.save())
}

fn output(saved: &Value, key: &str) -> Value {
    saved["components"]["X:0"]["obj"]["params"]["outputs"][key]["value"].clone()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("canvasc-components-{}-{name}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[tokio::test]
async fn doc_generator_stores_the_file_and_a_message_reports_the_download() {
    let dir = temp("doc");
    let docs = services(&dir);
    let params = json!({"content": "# Report\n\nTopic: {begin@topic}\n\n<think>not for the reader</think>Done.",
                        "output_format": "docx", "filename": "My: report?"});
    let dsl = canvas(
        "DocGenerator",
        params,
        json!({"topic": {"name": "topic", "type": "line"}}),
        "{X:0@download}",
    );
    let (events, saved) = run(&dsl, &docs, json!({"topic": {"value": "quarterly sales"}})).await;
    assert_eq!(output(&saved, "_ERROR"), Value::Null, "{events:?}");
    assert_eq!(output(&saved, "filename"), json!("My report.docx"));
    assert_eq!(
        output(&saved, "mime_type"),
        json!("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    );
    let doc_id = output(&saved, "doc_id")
        .as_str()
        .unwrap_or_default()
        .to_string();
    let stored = docs
        .store
        .get("tenant", &doc_id)
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    assert!(
        stored.starts_with(b"PK"),
        "a DOCX (zip) is stored under {doc_id}"
    );
    assert_eq!(output(&saved, "size"), json!(stored.len()));
    // The stored document holds the resolved content, not the reasoning. RAGFlow's reference
    // pattern (` *\{…\} *`) takes the spaces around a reference with it: `Topic:quarterly`.
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(stored.clone())).expect("zip");
    let mut body = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("word/document.xml").expect("document part"),
        &mut body,
    )
    .expect("utf-8");
    assert!(
        body.contains("Topic:quarterly sales")
            && body.contains("Done.")
            && !body.contains("not for the reader"),
        "{body}"
    );
    // `download` is json.dumps of the record; its base64 is the stored file.
    let download: Value =
        serde_json::from_str(output(&saved, "download").as_str().unwrap_or_default())
            .expect("download JSON");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(download["base64"].as_str().unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(bytes, stored);
    assert_eq!(
        download["preview_url"],
        json!(format!("/api/v1/agents/attachments/{doc_id}/preview?ext=docx&mime_type=application%2Fvnd.openxmlformats-officedocument.wordprocessingml.document"))
    );
    let end = events
        .iter()
        .find(|e| e["event"] == "message_end")
        .expect("message_end");
    let downloads = &end["data"]["downloads"];
    assert_eq!(downloads.as_array().map(Vec::len), Some(1), "{end}");
    assert_eq!(downloads[0]["doc_id"], json!(doc_id));
    assert_eq!(downloads[0]["filename"], json!("My report.docx"));
}

#[tokio::test]
async fn doc_generator_reports_an_empty_document() {
    let dir = temp("empty");
    let docs = services(&dir);
    let params =
        json!({"content": "{begin@topic}", "output_format": "txt", "add_timestamp": false});
    let dsl = canvas(
        "DocGenerator",
        params,
        json!({"topic": {"name": "topic", "type": "line"}}),
        "{X:0@download}",
    );
    let (_, saved) = run(&dsl, &docs, json!({"topic": {"value": ""}})).await;
    assert_eq!(output(&saved, "_ERROR"), json!("Document file is empty"));
}

#[tokio::test]
async fn excel_processor_reads_a_stored_workbook_as_ragflow_does() {
    let dir = temp("excel");
    let docs = services(&dir);
    let files = excel_fixtures::files().expect("fixtures");
    let sales = files
        .iter()
        .find(|(n, _)| *n == "sales.xlsx")
        .map(|(_, b)| b.clone())
        .unwrap_or_default();
    docs.store
        .put("tenant", "fid-sales", sales)
        .await
        .expect("stored");
    let params =
        json!({"operation": "read", "input_files": ["begin@file0"], "sheet_selection": "all"});
    let dsl = canvas(
        "ExcelProcessor",
        params,
        json!({"file0": {"name": "file0", "type": "line"}}),
        "{X:0@summary}",
    );
    let (events, saved) = run(
        &dsl,
        &docs,
        json!({"file0": {"value": {"id": "fid-sales", "name": "sales.xlsx"}}}),
    )
    .await;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/excel/expected/read_all_sheets.json"
    );
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_default()).expect("expected");
    for key in ["data", "summary", "markdown"] {
        assert_eq!(output(&saved, key), expected[key], "{key}: {events:?}");
    }
}

#[tokio::test]
async fn excel_processor_output_stores_the_workbook() {
    let dir = temp("excel-out");
    let docs = services(&dir);
    let params =
        json!({"operation": "output", "transform_data": "begin@data", "output_filename": "report"});
    let dsl = canvas(
        "ExcelProcessor",
        params,
        json!({"data": {"name": "data", "type": "line"}}),
        "{X:0@summary}",
    );
    let (_, saved) = run(
        &dsl,
        &docs,
        json!({"data": {"value": [{"id": 1, "v": 2.5}]}}),
    )
    .await;
    let attachment = output(&saved, "attachment");
    assert_eq!(attachment["file_name"], json!("report.xlsx"));
    assert_eq!(
        output(&saved, "summary"),
        json!("Generated report.xlsx with 1 sheet(s), 1 total rows")
    );
    let stored = docs
        .store
        .get("tenant", attachment["doc_id"].as_str().unwrap_or_default())
        .await
        .ok()
        .flatten();
    assert!(stored.is_some_and(|b| b.starts_with(b"PK")));
}

#[tokio::test]
async fn a_pdf_with_characters_no_font_has_says_so_in_the_nodes_outputs() {
    let dir = temp("doc-glyphs");
    let docs = services(&dir);
    // U+10FFFD (private use) is in no font; Latin text is in DejaVu.
    let dsl = |content: &str| {
        canvas(
            "DocGenerator",
            json!({"content": content, "output_format": "pdf"}),
            json!({}),
            "{X:0@filename}",
        )
    };
    let (events, saved) = run(&dsl("Plain text only."), &docs, json!({})).await;
    assert_eq!(output(&saved, "_ERROR"), Value::Null, "{events:?}");
    assert_eq!(output(&saved, "_WARNING"), Value::Null);
    let (events, saved) = run(&dsl("Mixed \u{10FFFD}\u{10FFFD} text."), &docs, json!({})).await;
    assert_eq!(output(&saved, "_ERROR"), Value::Null, "{events:?}");
    let warning = output(&saved, "_WARNING");
    let warning = warning.as_str().unwrap_or_default();
    assert!(
        warning.starts_with("2 character(s) of the PDF have no font"),
        "{warning}"
    );
    assert!(warning.contains("fonts-droid-fallback"), "{warning}");
}
