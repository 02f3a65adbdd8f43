//! Conformance on RAGFlow's own DSLs (`../shared/corpus/ragflow`): every file loads, round-trips
//! v1 → v2 → v1 → v2 with the closure property, and the checker reports errors only where the
//! file really is defective. Each file's round trip is its own test
//! (`cargo test -p canvasc-tests --test corpus -- <dir/file.json>`).

use canvasc_frontend::convert::{to_pretty, to_v1, to_v2};
use canvasc_frontend::{analyze, load_str, load_value, Form, Severity};
use canvasc_tests::harness::Suite;
use canvasc_tests::{corpus_files, shared_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn name(p: &Path) -> String {
    let parent = p
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    format!(
        "{parent}/{}",
        p.file_name()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
    )
}

/// v1 → v2 → v1 → v2 gives the first v2 again.
fn closure(text: &str) -> (Value, Value, Value) {
    let doc = load_str(text).expect("loads").document;
    // A graph-only or template input is first written as v1, which is where the round trip starts.
    let v1 = match doc.form {
        Form::V1 => serde_json::from_str(text).expect("json"),
        _ => to_v1(&doc).expect("to v1"),
    };
    let a = to_v2(&load_value(v1).expect("v1 loads").document).expect("v1 to v2");
    let b = to_v1(&load_value(a.clone()).expect("v2 loads").document).expect("v2 to v1");
    let c =
        to_v2(&load_value(b.clone()).expect("v1 loads again").document).expect("v1 to v2 again");
    (a, b, c)
}

/// The file loads, round-trips with the closure property, keeps RAGFlow's component order and
/// converts deterministically.
fn loads_and_round_trips(path: &Path) {
    let text = std::fs::read_to_string(path).expect("readable");
    let (a, b, c) = closure(&text);
    assert_eq!(
        a,
        c,
        "{}: v1→v2→v1→v2 differs from the first v2",
        name(path)
    );

    let v1_text = to_pretty(&b);
    assert!(
        !v1_text.contains("_feeded_deprecated_params") && !v1_text.contains("_user_feeded_params")
    );
    let components = b["components"].as_object().expect("components");
    // Conversion keeps RAGFlow's component order (the dict's insertion order).
    let loaded = load_str(&text).expect("loads").document;
    let order: Vec<String> = loaded
        .components
        .iter()
        .map(|c| c.id.to_lowercase())
        .collect();
    if loaded.form != Form::V2 {
        let converted: Vec<String> = components.keys().map(|k| k.to_lowercase()).collect();
        assert_eq!(converted, order, "{}: document order", name(path));
    }
    for (id, entry) in components {
        assert!(
            entry["downstream"].is_array() && entry["upstream"].is_array(),
            "{}: {id} lists",
            name(path)
        );
        assert!(
            entry["obj"]["params"].is_object(),
            "{}: {id} params",
            name(path)
        );
        assert!(entry["obj"]["params"].get("custom_header").is_none());
    }
    for key in ["history", "path", "retrieval", "memory"] {
        assert!(b[key].is_array(), "{}: {key} is a list", name(path));
    }
    // Same input, same bytes.
    let (_, b2, _) = closure(&text);
    assert_eq!(
        to_pretty(&b),
        to_pretty(&b2),
        "{}: deterministic",
        name(path)
    );
}

/// The errors the checker reports on the corpus, each a real defect of its file:
/// (file, code, component, pointer).
const KNOWN_DEFECTS: &[(&str, &str, &str, &str)] = &[
    // A v1 DSL with the removed `Answer` node: RAGFlow cannot build it ("Can't import
    // AnswerParam", reference stream ex_exesql) — the first component whose class it looks up
    // and cannot find, before it checks the ExeSQL below.
    (
        "dsl_examples/exesql.json",
        "legacy-kind",
        "answer:0",
        "/components/answer:0/obj/component_name",
    ),
    // RAGFlow's ExeSQL check refuses a database named `rag_flow` with RAGFlow's own password:
    // "For the security reason, it does not support database named rag_flow."
    (
        "dsl_examples/exesql.json",
        "structural",
        "exesql:0",
        "/components/exesql:0/obj/params/password",
    ),
    // A v1 DSL: `Answer` and `Generate` no longer exist (reference stream ex_headhunter_zh ends
    // in "Can't import AnswerParam", the first of them in document order), and its Messages use
    // `messages` where RAGFlow reads `content`, so their check fails with "[Message] Content does
    // not support empty value.".
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "answer:0",
        "/components/answer:0/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "structural",
        "message:introduction",
        "/components/message:introduction/obj/params",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "answer:1",
        "/components/answer:1/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "generate:casual",
        "/components/generate:casual/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "generate:aboutJob",
        "/components/generate:aboutJob/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "generate:get_wechat",
        "/components/generate:get_wechat/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "legacy-kind",
        "generate:nowechat",
        "/components/generate:nowechat/obj/component_name",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "structural",
        "message:reject",
        "/components/message:reject/obj/params",
    ),
    // The Agent has no `structured_content` output (only `content` and `structured`): RAGFlow's
    // own run stops with "generate:0@structured_content must be an array, but its type is
    // <class 'str'>" (reference stream ex_iteration).
    (
        "dsl_examples/iteration.json",
        "unknown-output",
        "iteration:0",
        "/components/iteration:0/obj/params/items_ref",
    ),
    // The `data_ops` case routes to `CodeExec:FunnyBroomsShare`, which does not exist: RAGFlow
    // crashes with "'NoneType' object is not subscriptable" (reference stream td_all_data_ops).
    (
        "go_testdata/all.json",
        "dangling-edge",
        "Switch:Route",
        "/components/Switch:Route/obj/params/conditions/4/to/1",
    ),
    // The template ships its ExeSQL with an empty database (and user, host, password): RAGFlow's
    // check fails with "Database name does not support empty value." until they are filled in
    // (the reference run tpl_text2sql_data_expert sets them with --set).
    (
        "templates/text2sql_data_expert.json",
        "structural",
        "ExeSQL:TiredShirtsPull",
        "/dsl/components/ExeSQL:TiredShirtsPull/obj/params/database",
    ),
    // The template's Google tool has no SerpApi key: the Agent's constructor checks it before it
    // reaches the Bing tool ("SerpApi API key does not support empty value."; the reference run
    // fills every empty api_key with --fill-empty).
    (
        "templates/web_search_assistant.json",
        "structural",
        "Agent:WildGoatsRule",
        "/dsl/components/Agent:WildGoatsRule/obj/params/tools/2/params/api_key",
    ),
    // RAGFlow has no `Bing` tool: loading fails with "Can't import BingParam" (reference stream
    // tpl_web_search_assistant).
    (
        "templates/web_search_assistant.json",
        "unknown-kind",
        "Agent:WildGoatsRule",
        "/dsl/components/Agent:WildGoatsRule/obj/params/tools/3/component_name",
    ),
];

/// The exception RAGFlow's engine raises building each corpus file as it is (no patches), from
/// the reference oracle (`run_canvas <file> --query hello --default-llm-id
/// scripted-chat@Scripted`); every other file builds.
const CONSTRUCTION_ERRORS: &[(&str, &str, &str)] = &[
    (
        "dsl_examples/exesql.json",
        "AssertionError",
        "Can't import AnswerParam",
    ),
    (
        "dsl_examples/headhunter_zh.json",
        "AssertionError",
        "Can't import AnswerParam",
    ),
    (
        "templates/text2sql_data_expert.json",
        "ValueError",
        "ExeSQL: Database name does not support empty value.",
    ),
    (
        "templates/web_search_assistant.json",
        "ValueError",
        "SerpApi API key does not support empty value.",
    ),
];

/// canvasc derives the exception RAGFlow raises building each corpus file, and none for the
/// files RAGFlow builds (graph-only files, which RAGFlow's engine cannot load, are skipped).
fn construction_errors_are_ragflows(files: &[PathBuf]) {
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).expect("readable");
        let analysis = analyze(&text).expect("a canvas");
        if analysis.document.form == Form::Graph {
            continue;
        }
        if let Some(e) = canvasc_frontend::construct::construction_error(&analysis.document) {
            found.push((name(path), e.class.to_string(), e.message));
        }
    }
    let expected: Vec<(String, String, String)> = CONSTRUCTION_ERRORS
        .iter()
        .map(|(f, c, m)| (f.to_string(), c.to_string(), m.to_string()))
        .collect();
    assert_eq!(found, expected);
}

fn checker_reports_only_real_defects(files: &[PathBuf]) {
    let mut found = Vec::new();
    let mut all = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).expect("readable");
        let analysis = analyze(&text).expect("a canvas");
        for d in &analysis.diagnostics {
            if d.severity == Severity::Error {
                found.push((
                    name(path),
                    d.code.as_str().to_string(),
                    d.component.clone().unwrap_or_default(),
                    d.pointer.clone(),
                ));
            }
        }
        all.push(serde_json::json!({"file": name(path), "diagnostics": analysis.diagnostics}));
    }
    let expected: Vec<(String, String, String, String)> = KNOWN_DEFECTS
        .iter()
        .map(|(f, c, id, p)| (f.to_string(), c.to_string(), id.to_string(), p.to_string()))
        .collect();
    assert_eq!(found, expected);
    insta::assert_json_snapshot!("corpus_diagnostics", all);
}

fn main() -> ExitCode {
    let mut suite = Suite::from_args();
    let Some(shared) = shared_dir("corpus") else {
        suite.not_run(
            "corpus",
            "no shared corpus (set CANVASC_SHARED to its location)",
        );
        return suite.run();
    };
    let files = corpus_files(&shared);
    assert!(
        files.len() >= 28,
        "expected the whole corpus, found {} files",
        files.len()
    );
    for path in files.clone() {
        suite.case(&name(&path), move || {
            loads_and_round_trips(&path);
            Ok(())
        });
    }
    let all = files.clone();
    suite.case("construction_errors_are_ragflows", move || {
        construction_errors_are_ragflows(&all);
        Ok(())
    });
    suite.case(
        "checker_reports_only_real_defects_on_the_corpus",
        move || {
            checker_reports_only_real_defects(&files);
            Ok(())
        },
    );
    suite.run()
}
