//! Agent round trips whose expected results come from RAGFlow's own engine: the canvas,
//! scripted model and the oracle's output are under `tests/golden/<case>/` (the command is in
//! `COMMAND`). The oracle fakes the tool's client library with its fixture data; here the tool
//! sends its real request to a stub of the service answering with that same data, in the
//! service's shape:
//!
//! * MediaWiki Action API (`list=search`, `prop=info|pageprops`, `prop=extracts`):
//!   <https://www.mediawiki.org/wiki/API:Search>, <https://www.mediawiki.org/wiki/API:Info>,
//!   <https://www.mediawiki.org/wiki/Extension:TextExtracts#API>;
//! * DuckDuckGo's HTML results page (`POST https://html.duckduckgo.com/html`), the
//!   `result__a`/`result__snippet` markup `duckduckgo_search`'s html backend reads;
//! * SerpApi's Google Search API (`GET https://serpapi.com/search`):
//!   <https://serpapi.com/search-api>, <https://serpapi.com/organic-results>.

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

/// Runs the case's canvas with its scripted model and the tools configured by `toml`.
async fn run_case(case: &str, toml: &str, query: &str) -> support::Ran {
    let script = json(case, "script.json")["llm"].clone();
    run(&json(case, "canvas.json"), &script, registry(toml), query).await
}

/// The oracle's answer, compared with ours: the tool messages the model read last, the
/// references and the reply.
fn assert_matches_oracle(case: &str, ran: &support::Ran) {
    assert_eq!(ran.tool_results(), oracle_tool_messages(case));
    let state = oracle_state(case);
    assert_eq!(ran.references(), state["data"]["reference"]);
    let ours = ran.saved["history"][1][1]["content"].clone();
    assert_eq!(ours, state["data"]["history"][1][1]["content"]);
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
    let ran = run_case(case, &toml, "what is new in RAG?").await;
    assert_eq!(stub.requests().len(), 1);
    assert_eq!(stub.requests()[0].json()["query"], "rag news");
    assert_matches_oracle(case, &ran);
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
    let ran = run_case(case, &toml, "How is Microsoft doing?").await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_calls_wikipedia_as_ragflow_does() {
    let case = "agent_wikipedia";
    let stub = Stub::start().await;
    // The oracle's fake `wikipedia` finds the query itself as the one title, at
    // `https://en.wikipedia.org/wiki/<title>`, with `DEFAULTS["wikipedia"]["summary"]`.
    let page = serde_json::json!({"pageid": 25937, "ns": 0, "title": "Retrieval"});
    stub.on(
        "/w/api.php",
        vec![
            // search(query, results=top_n)
            Answer::json(&serde_json::json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": 1}, "search": [page]}})),
            // page(title): its auto-suggest search, info, extracts
            Answer::json(&serde_json::json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": 1}, "search": [page]}})),
            Answer::json(&serde_json::json!({"batchcomplete": "", "query": {"pages": {"25937": {
                "pageid": 25937, "ns": 0, "title": "Retrieval", "contentmodel": "wikitext",
                "pagelanguage": "en", "touched": "2025-01-01T00:00:00Z", "lastrevid": 1, "length": 2048,
                "fullurl": "https://en.wikipedia.org/wiki/Retrieval",
                "editurl": "https://en.wikipedia.org/w/index.php?title=Retrieval&action=edit",
                "canonicalurl": "https://en.wikipedia.org/wiki/Retrieval"}}}})),
            Answer::json(&serde_json::json!({"batchcomplete": "", "query": {"pages": {"25937": {
                "pageid": 25937, "ns": 0, "title": "Retrieval", "extract": "Fixed Wikipedia summary."}}}})),
        ],
    );
    let toml = format!(
        "[tools.wikipedia]\nbase_url = \"{}/w/api.php\"\n",
        stub.base
    );
    let ran = run_case(case, &toml, "what is new in RAG?").await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests[0]
        .query_pairs()
        .contains(&("srsearch".into(), "Retrieval".into())));
    assert!(requests[3]
        .query_pairs()
        .contains(&("prop".into(), "extracts".into())));
    assert_matches_oracle(case, &ran);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_calls_duckduckgo_as_ragflow_does() {
    let case = "agent_duckduckgo";
    let stub = Stub::start().await;
    // `DEFAULTS["duckduckgo"]` of the oracle's `fixtures.py` as DuckDuckGo's results page
    // lists it (the link behind DuckDuckGo's redirect, as the page gives it).
    let page = r#"<!DOCTYPE html><html><body><div class="serp__results"><div id="links" class="results">
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fddg&amp;rut=0f1e">Fake DDG result</a></h2>
<div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fddg&amp;rut=0f1e">example.com/ddg</a></div></div>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fddg&amp;rut=0f1e">Fixed DDG body.</a>
<div class="clear"></div></div></div>
</div></div></body></html>"#;
    stub.on(
        "/html",
        vec![Answer::text("text/html; charset=UTF-8", page)],
    );
    let toml = format!("[tools.duckduckgo]\nbase_url = \"{}\"\n", stub.base);
    let ran = run_case(case, &toml, "what is new in RAG?").await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].body, "q=rag+news&b=&kl=wt-wt");
    assert_matches_oracle(case, &ran);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_calls_google_as_ragflow_does() {
    let case = "agent_google";
    let stub = Stub::start().await;
    // `DEFAULTS["google"]` of the oracle's `fixtures.py` in a SerpApi answer.
    stub.on(
        "/search",
        vec![Answer::json(&serde_json::json!({
            "search_metadata": {"id": "6745d2f0c0b1a2", "status": "Success"},
            "search_parameters": {"engine": "google", "q": "rag news", "google_domain": "google.com", "hl": "en", "gl": "cn"},
            "organic_results": [
                {"position": 1, "title": "Fake Google result", "link": "https://example.com/g", "snippet": "Fixed Google snippet."}
            ]
        }))],
    );
    let toml = format!("[tools.google]\nbase_url = \"{}\"\n", stub.base);
    let ran = run_case(case, &toml, "what is new in RAG?").await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].query_pairs(),
        [
            ("api_key", "serp-test"),
            ("engine", "google"),
            ("q", "rag news"),
            ("google_domain", "google.com"),
            ("gl", "cn"),
            ("hl", "en"),
            ("source", "python"),
            ("output", "json"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert_matches_oracle(case, &ran);
}
