//! The local knowledge base end to end, through the real binary: `canvasc dataset add`
//! indexes a folder the test writes (Markdown, HTML, text, PDF), `list` and `rm` manage it,
//! and `canvasc run` with a scripted model runs RAGFlow's templates
//! `your_starter_dataset_chatbot` (Retrieval as an Agent tool) and
//! `smart_customer_service_specialist` (Retrieval nodes) and a Retrieval-node canvas that
//! names its dataset by name, each against that dataset; the retrieved chunks must reach the
//! model (the script answers only when it sees them) and the answer.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn canvasc(args: &[&str], data_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .env("CANVASC_DATA_DIR", data_dir)
        .env_remove("CANVASC_CONFIG")
        .env_remove("CANVASC_EMBEDDING_BASE_URL")
        .env_remove("RAGFLOW_TOOL_RETRIEVAL_BASE_URL")
        .output()
        .expect("canvasc runs")
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-dataset-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A one-page PDF whose page shows `line` (Helvetica), with a correct cross-reference table.
fn pdf_with(line: &str) -> Vec<u8> {
    let stream = format!("BT /F1 12 Tf 72 720 Td ({line}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// The folder the dataset is made from.
fn documents(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(docs.join("guides")).expect("docs folder");
    std::fs::write(
        docs.join("faq.md"),
        "# Router FAQ\n\nTo restart the router, hold the reset button for ten seconds.\n\nThe lights blink while it restarts.\n",
    )
    .expect("faq.md");
    std::fs::write(
        docs.join("guides/compare.html"),
        "<html><head><title>x</title><style>p{}</style></head><body><h1>Models</h1><p>Model A has two antennas and Model B has four antennas.</p></body></html>",
    )
    .expect("compare.html");
    std::fs::write(
        docs.join("notes.txt"),
        "Warranty: every router is covered for two years.\n",
    )
    .expect("notes.txt");
    std::fs::write(
        docs.join("setup.pdf"),
        pdf_with("Plug the cable into the blue WAN port first."),
    )
    .expect("setup.pdf");
    std::fs::write(docs.join("image.png"), [0u8, 1, 2]).expect("image.png");
    docs
}

/// The shared corpus (`CANVASC_SHARED`, else `../shared` beside the workspace).
fn corpus_template(name: &str) -> Option<Value> {
    let shared = std::env::var_os("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let path = shared.join("corpus/ragflow/templates").join(name);
    match std::fs::read_to_string(&path) {
        Ok(t) => Some(serde_json::from_str(&t).expect("template JSON")),
        Err(_) => {
            assert!(
                std::env::var_os("CANVASC_REQUIRE_SHARED").is_none(),
                "the shared corpus is required but {} is missing",
                path.display()
            );
            eprintln!("NOT RUN: no shared corpus at {}", path.display());
            None
        }
    }
}

/// Every string value in the run's events, joined (what the user and the model were shown).
fn stdout_events(o: &Output) -> Vec<Value> {
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The final answer: the `message` events' content, joined.
fn answer(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["event"] == "message")
        .filter_map(|e| e["data"]["content"].as_str())
        .collect()
}

/// `canvasc dataset add`: the dataset's id from its report.
fn add_dataset(dir: &Path, data: &Path, name: &str) -> String {
    let docs = documents(dir);
    let o = canvasc(&["dataset", "add", name, utf8(&docs)], data);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains(&format!("added dataset {name} (")), "{out}");
    assert!(out.contains("4 documents"), "{out}");
    assert!(out.contains("full-text only"), "{out}");
    assert!(
        text(&o.stderr).contains("skipped"),
        "the image is skipped: {}",
        text(&o.stderr)
    );
    out.split_once(" (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(id, _)| id.to_string())
        .expect("an id in the report")
}

fn run_canvas(
    dir: &Path,
    data: &Path,
    dsl: &Value,
    script: &Value,
    query: &str,
    extra: &[&str],
) -> Vec<Value> {
    let o = run_output(dir, data, dsl, script, query, extra);
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    stdout_events(&o)
}

/// `canvasc run` of `dsl` with the scripted model `script`.
fn run_output(
    dir: &Path,
    data: &Path,
    dsl: &Value,
    script: &Value,
    query: &str,
    extra: &[&str],
) -> Output {
    let canvas = dir.join("canvas.json");
    std::fs::write(&canvas, dsl.to_string()).expect("canvas");
    let script_file = dir.join("script.json");
    std::fs::write(&script_file, script.to_string()).expect("script");
    let mut args = vec![
        "run",
        utf8(&canvas),
        "--query",
        query,
        "--llm-script",
        utf8(&script_file),
    ];
    args.extend_from_slice(extra);
    canvasc(&args, data)
}

#[test]
fn dataset_add_list_rm() {
    let dir = temp_dir("manage");
    let data = dir.join("data");
    let id = add_dataset(&dir, &data, "manuals");
    assert_eq!(id.len(), 32, "{id}");
    assert!(data
        .join("datasets")
        .join(&id)
        .join("dataset.json")
        .is_file());

    let again = canvasc(
        &["dataset", "add", "manuals", utf8(&dir.join("docs"))],
        &data,
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("exists already"),
        "{}",
        text(&again.stderr)
    );

    let missing = canvasc(
        &["dataset", "add", "other", utf8(&dir.join("nothing-here"))],
        &data,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("cannot read"),
        "{}",
        text(&missing.stderr)
    );

    let list = canvasc(&["dataset", "list"], &data);
    assert!(list.status.success());
    let listed = text(&list.stdout);
    assert!(
        listed.contains(&format!("{id}\tmanuals\t4 documents\t")),
        "{listed}"
    );

    let rm = canvasc(&["dataset", "rm", "manuals"], &data);
    assert!(rm.status.success(), "{}", text(&rm.stderr));
    assert!(!data.join("datasets").join(&id).exists());
    let list = canvasc(&["dataset", "list"], &data);
    assert_eq!(text(&list.stdout), "");
    let rm = canvasc(&["dataset", "rm", "manuals"], &data);
    assert_eq!(rm.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_retrieval_node_names_its_dataset_by_name() {
    let dir = temp_dir("node");
    let data = dir.join("data");
    add_dataset(&dir, &data, "manuals");
    let dsl = json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"mode": "conversational", "inputs": {
                "kb": {"name": "Dataset", "type": "line", "optional": false}}}},
                "downstream": ["Retrieval:R"], "upstream": []},
            "Retrieval:R": {"obj": {"component_name": "Retrieval", "params": {
                "query": "sys.query", "dataset_ids": ["begin@kb"], "top_n": 2, "empty_response": "Nothing."}},
                "downstream": ["Message:M"], "upstream": ["begin"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": ["{Retrieval:R@formalized_content}"]}},
                          "downstream": [], "upstream": ["Retrieval:R"]}
        },
        "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    });
    let events = run_canvas(
        &dir,
        &data,
        &dsl,
        &json!({"default": "x"}),
        "How do I restart the router?",
        &["--inputs", r#"{"kb": "manuals"}"#],
    );
    let shown = answer(&events);
    assert!(shown.contains("├── Title: faq.md"), "{shown}");
    assert!(
        shown.contains("hold the reset button for ten seconds"),
        "{shown}"
    );
    let finished = events
        .iter()
        .find(|e| e["event"] == "workflow_finished")
        .expect("finished");
    let chunks = &finished["data"]["outputs"];
    let _ = chunks;
    // The PDF's text is indexed too.
    let events = run_canvas(
        &dir,
        &data,
        &dsl,
        &json!({"default": "x"}),
        "Which WAN port takes the cable?",
        &["--inputs", r#"{"kb": "manuals"}"#],
    );
    let shown = answer(&events);
    assert!(shown.contains("├── Title: setup.pdf"), "{shown}");
    assert!(shown.contains("blue WAN port"), "{shown}");
    // A name nothing answers to: the run stops with RAGFlow's error.
    let o = run_output(
        &dir,
        &data,
        &dsl,
        &json!({"default": "x"}),
        "anything",
        &["--inputs", r#"{"kb": "nope"}"#],
    );
    assert!(!o.status.success());
    let events = stdout_events(&o);
    let failed = events
        .iter()
        .find(|e| e["event"] == "node_finished" && e["data"]["component_id"] == "Retrieval:R")
        .expect("Retrieval finished");
    assert_eq!(
        failed["data"]["error"],
        json!("Dataset(nope) does not exist."),
        "{failed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn your_starter_dataset_chatbot_reads_the_dataset() {
    let Some(template) = corpus_template("your_starter_dataset_chatbot.json") else {
        return;
    };
    let dir = temp_dir("starter");
    let data = dir.join("data");
    let id = add_dataset(&dir, &data, "manuals");
    let mut dsl = template.get("dsl").cloned().unwrap_or(template);
    let tools = dsl["components"]["Agent:StalePandasDream"]["obj"]["params"]["tools"]
        .as_array_mut()
        .expect("the Agent's tools");
    for tool in tools
        .iter_mut()
        .filter(|t| t["component_name"] == "Retrieval")
    {
        tool["params"]["kb_ids"] = json!([id]);
    }
    let dsl = dsl.clone();
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "reset button for ten seconds", "content": "STARTER: hold the reset button for ten seconds.", "times": -1},
            {"tool_calls": [{"name": "search_my_dateset_0", "arguments": {"query": "restart router reset"}}]}
        ]
    });
    let events = run_canvas(
        &dir,
        &data,
        &dsl,
        &script,
        "How do I restart my router?",
        &[],
    );
    let shown = answer(&events);
    assert!(
        shown.contains("STARTER: hold the reset button"),
        "{shown}\n{events:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn smart_customer_service_specialist_reads_the_dataset() {
    let Some(template) = corpus_template("smart_customer_service_specialist.json") else {
        return;
    };
    let dir = temp_dir("smart-cs");
    let data = dir.join("data");
    let id = add_dataset(&dir, &data, "manuals");
    let mut dsl = template.get("dsl").cloned().unwrap_or(template);
    for node in ["Retrieval:EagerTipsFeel", "Retrieval:EightyDaysHappen"] {
        dsl["components"][node]["obj"]["params"]["kb_ids"] = json!([id]);
    }
    // RAGFlow's editor leaves `llm_id`s of a template empty until a model is chosen; the
    // scripted model answers them all.
    fill_llm_ids(&mut dsl);
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "reset button for ten seconds", "content": "USAGE: hold the reset button for ten seconds.", "times": -1},
            {"match": "Book Installation", "content": "Product Usage Guide", "times": -1}
        ]
    });
    let events = run_canvas(
        &dir,
        &data,
        &dsl,
        &script,
        "How do I restart the router with the reset button?",
        &[],
    );
    let shown = answer(&events);
    assert!(
        shown.contains("USAGE: hold the reset button"),
        "{shown}\n{events:?}"
    );
    // The Retrieval node's chunks are the turn's reference.
    let ended = events
        .iter()
        .find(|e| e["event"] == "message_end")
        .expect("message_end");
    let chunks = ended["data"]["reference"]["chunks"].to_string();
    assert!(chunks.contains("faq.md"), "{ended}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every empty `llm_id` set to the scripted model's.
fn fill_llm_ids(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "llm_id" && x.as_str() == Some("") {
                    *x = json!("scripted-chat@Scripted");
                } else {
                    fill_llm_ids(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(fill_llm_ids),
        _ => {}
    }
}
