//! Agent round trips whose expected results come from RAGFlow's own engine: the canvas,
//! scripted model and the oracle's output are under `tests/golden/<case>/` (the command is in
//! `COMMAND`). The oracle fakes the tool's client library with its fixture data; here the tool
//! sends its real request to a stub of the service answering with that same data.

mod support;

use serde_json::Value as Json;
use support::{registry, run, Answer, Stub};

fn golden(case: &str, file: &str) -> String {
    let path = format!("{}/tests/golden/{case}/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(case: &str, file: &str) -> Json {
    serde_json::from_str(&golden(case, file)).unwrap_or_else(|e| panic!("{case}/{file}: {e}"))
}

/// The oracle's last `_state` line.
fn oracle_state(case: &str) -> Json {
    golden(case, "oracle.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .rfind(|e| e["event"] == "_state")
        .unwrap_or(Json::Null)
}

/// The tool messages of the model's last call, as the oracle logged them.
fn oracle_tool_messages(case: &str) -> Vec<String> {
    let log = json(case, "llm-log.json");
    let last = log
        .as_array()
        .and_then(|a| a.last())
        .cloned()
        .unwrap_or(Json::Null);
    last["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "tool")
                .filter_map(|m| m["content"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_calls_tavily_as_ragflow_does() {
    let case = "agent_tavily";
    let stub = Stub::start().await;
    // `DEFAULTS["tavily"]["search"]` of the oracle's `fixtures.py`, which its fake client returned.
    stub.on(
        "/search",
        vec![Answer::json(&serde_json::json!({
            "query": "",
            "results": [
                {"title": "Fake search result 1", "url": "https://example.com/1", "content": "Fixed content of result one.", "score": 0.9, "raw_content": null},
                {"title": "Fake search result 2", "url": "https://example.com/2", "content": "Fixed content of result two.", "score": 0.8, "raw_content": null}
            ]
        }))],
    );
    let toml = format!("[tools.tavily]\nbase_url = \"{}\"\n", stub.base);
    let script = json(case, "script.json")["llm"].clone();
    let ran = run(
        &json(case, "canvas.json"),
        &script,
        registry(&toml),
        "what is new in RAG?",
    )
    .await;
    assert_eq!(stub.requests().len(), 1);
    assert_eq!(stub.requests()[0].json()["query"], "rag news");

    assert_eq!(ran.tool_results(), oracle_tool_messages(case));
    let state = oracle_state(case);
    assert_eq!(ran.references(), state["data"]["reference"]);
    let ours = ran.saved["history"][1][1]["content"].clone();
    assert_eq!(ours, state["data"]["history"][1][1]["content"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_calls_yahoo_finance_as_ragflow_does() {
    let case = "agent_yahoo";
    let stub = Stub::start().await;
    // Yahoo's session cookie, crumb, quoteSummary and search answers; the oracle's fake
    // `Ticker` was given what `yfinance` makes of the same answers (`COMMAND`).
    stub.on("/", vec![Answer::text("text/html", "")]);
    stub.on(
        "/v1/test/getcrumb",
        vec![Answer::text("text/plain", "Xy1.crumb")],
    );
    stub.on(
        "/v10/finance/quoteSummary/MSFT",
        vec![Answer::json(&json(case, "quote_summary.json"))],
    );
    stub.on(
        "/v1/finance/search",
        vec![Answer::json(&json(case, "search.json"))],
    );
    let toml = format!(
        "[tools.yahoo]\nbase_url = \"{0}\"\ngeo_url = \"{0}/\"\n",
        stub.base
    );
    let script = json(case, "script.json")["llm"].clone();
    let ran = run(
        &json(case, "canvas.json"),
        &script,
        registry(&toml),
        "How is Microsoft doing?",
    )
    .await;
    let paths: Vec<String> = stub.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/",
            "/v1/test/getcrumb",
            "/v10/finance/quoteSummary/MSFT",
            "/v1/finance/search"
        ]
    );
    assert_eq!(ran.tool_results(), oracle_tool_messages(case));
    let state = oracle_state(case);
    let ours = ran.saved["history"][1][1]["content"].clone();
    assert_eq!(ours, state["data"]["history"][1][1]["content"]);
}
