//! Cases whose expectation is not a report of RAGFlow's engine, so they are not case files:
//! each checks some fields against a text from the library RAGFlow calls. They moved here from
//! the components' unit tests with the runner they use.

use crate::{invoke_server, runner};
use canvasc_engine::Settings;
use canvasc_value::Json;
use libtest_mimic::{Failed, Trial};
use serde_json::json;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "string_transform::jinja_syntax_error_fails_the_node",
            jinja_syntax_error_fails_the_node,
        ),
        Trial::test("invoke::clean_html_extracts_text", clean_html_extracts_text),
    ]
}

/// `Err` naming the field unless `got == want`.
fn expect(field: &str, got: &Json, want: Json, report: &Json) -> Result<(), Failed> {
    if *got == want {
        Ok(())
    } else {
        Err(format!("{field}: want {want}, got {got}\n  report: {report}").into())
    }
}

/// RAGFlow compiles the merged script outside its `try`, so a Jinja syntax error fails the
/// node. Expected text from Jinja2 3.1.6 in the oracle's venv:
/// `SandboxedEnvironment().from_string('hi {% if %}')` raises
/// `TemplateSyntaxError: Expected an expression, got 'end of statement block'`.
fn jinja_syntax_error_fails_the_node() -> Result<(), Failed> {
    let case = json!({"name": "syntax", "kind": "StringTransform", "env": {"s": "hi"},
        "params": {"method": "merge", "script": "{env.s} {% if %}", "delimiters": [","]}});
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let got = rt.block_on(runner::run_case(&case, Settings::default(), false));
    expect("inputs", &got["inputs"], json!({"env.s": "hi"}), &got)?;
    expect(
        "outputs.result",
        &got["outputs"]["result"],
        json!(null),
        &got,
    )?;
    expect(
        "error",
        &got["error"],
        json!("Expected an expression, got 'end of statement block'"),
        &got,
    )
}

/// `clean_html` runs RAGFlow's HTML parser (the oracle only has a stand-in): the expected
/// text is `RAGFlowHtmlParser` run on the page the server returns.
fn clean_html_extracts_text() -> Result<(), Failed> {
    let port = invoke_server::serve();
    let case = json!({"name": "html", "kind": "Invoke", "params": {
        "url": format!("http://127.0.0.1:{port}/html"), "clean_html": true, "timeout": 10}});
    let settings = Settings {
        allow_any_host: true,
        ..Settings::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let got = rt.block_on(runner::run_case(&case, settings, false));
    expect(
        "outputs",
        &got["outputs"],
        json!({"result": "# Title\nHello world & more\na\nb"}),
        &got,
    )?;
    expect(
        "thoughts",
        &got["thoughts"],
        json!("Waiting for the server respond..."),
        &got,
    )
}
