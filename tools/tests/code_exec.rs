//! CodeExec against a stub of RAGFlow's sandbox executor on 127.0.0.1: the request the
//! self-managed provider sends (`POST /run`, the code base64-encoded, the language normalised,
//! the arguments resolved from the canvas), and how the answer becomes the node's outputs.
//!
//! The answers follow the executor's response model (`agent/sandbox/executor_manager/models/
//! schemas.py`: `status`, `stdout`, `stderr`, `exit_code`, `detail`, `time_used_ms`,
//! `memory_used_kb`, `artifacts`, `result`).

mod support;

use serde_json::{json, Value as Json};
use support::{node_canvas, registry, run, Answer, Stub};

fn config(stub: &Stub) -> String {
    format!("[tools.sandbox]\nbase_url = \"{}\"\n", stub.base)
}

fn answer(stdout: &str, stderr: &str, result: Json) -> Answer {
    Answer::json(&json!({
        "status": "success", "stdout": stdout, "stderr": stderr, "exit_code": 0, "detail": null,
        "time_used_ms": 12.5, "memory_used_kb": 2048.0, "artifacts": [], "result": result
    }))
}

const SCRIPT: &str =
    "def main(arg1: str, arg2: str) -> dict:\n    return {\"result\": arg1 + arg2}\n";

fn params(outputs: Json) -> Json {
    json!({"lang": "python3", "script": SCRIPT,
           "arguments": {"arg1": "sys.query", "arg2": ""},
           "outputs": outputs})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_the_providers_request_and_checks_the_contract() {
    let stub = Stub::start().await;
    stub.on(
        "/run",
        vec![answer(
            "",
            "",
            json!({"present": true, "value": {"result": "ab"}, "type": "dict"}),
        )],
    );
    let dsl = node_canvas(
        "CodeExec",
        params(json!({"result": {"value": "", "type": "object"}})),
        "content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "hello",
    )
    .await;

    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("POST", "/run")
    );
    use base64::Engine;
    let code_b64 = base64::engine::general_purpose::STANDARD.encode(SCRIPT);
    assert_eq!(
        requests[0].json(),
        json!({"code_b64": code_b64, "language": "python", "arguments": {"arg1": "hello", "arg2": null}})
    );
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!(""));
    assert_eq!(ran.output("Tool:T", "result"), json!({"result": "ab"}));
    assert_eq!(ran.output("Tool:T", "actual_type"), json!("Object"));
    assert_eq!(
        ran.output("Tool:T", "content"),
        json!("{\n  \"result\": \"ab\"\n}")
    );
    assert_eq!(ran.output("Tool:T", "attachments"), json!([]));
    assert_eq!(ran.output("Tool:T", "_ATTACHMENT_CONTENT"), json!(""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_is_the_result_when_there_is_no_structured_one() {
    let stub = Stub::start().await;
    stub.on(
        "/run",
        vec![answer(
            "[1, 2, 'x']\n",
            "warning\n",
            json!({"present": false}),
        )],
    );
    let dsl = node_canvas(
        "CodeExec",
        params(json!({"result": {"value": "", "type": "Array<Number>"}})),
        "content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("CodeExec contract mismatch at [2]: expected type Number, got String")
    );
    assert_eq!(ran.output("Tool:T", "result"), Json::Null);
    assert_eq!(ran.output("Tool:T", "raw_result"), json!([1, 2, "x"]));
    assert_eq!(ran.output("Tool:T", "actual_type"), json!("Array<Any>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stderr_alone_is_the_error() {
    let stub = Stub::start().await;
    stub.on(
        "/run",
        vec![answer("  ", "Traceback: boom", json!({"present": false}))],
    );
    let dsl = node_canvas(
        "CodeExec",
        params(json!({"result": {"value": "", "type": "object"}})),
        "content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!("Traceback: boom"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_executor_error_is_the_providers_error() {
    let stub = Stub::start().await;
    stub.on(
        "/run",
        vec![Answer::status(503, &json!({"detail": "busy"}))],
    );
    let dsl = node_canvas(
        "CodeExec",
        params(json!({"result": {"value": "", "type": "object"}})),
        "content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Provider system execution failed: HTTP 503: {\"detail\":\"busy\"}")
    );
}
