//! The two tools that fetch a URL the canvas names, against a stub on 127.0.0.1 admitted by
//! the SSRF guard's allow-list (`[outbound] allow`, as a deployment admits an internal host);
//! `ssrf_attacks.rs` shows both refused without it.
//!
//! * SearXNG's search API (`GET <instance>/search?q=…&format=json`):
//!   <https://docs.searxng.org/dev/search_api.html>; the answer below has the JSON format's
//!   keys (`query`, `number_of_results`, `results` with `url`, `title`, `content`, `engine`,
//!   `score`, …, `answers`, `corrections`, `infoboxes`, `suggestions`, `unresponsive_engines`).
//! * Crawler: any web page (`GET <url>`), here a small HTML document with a script, a style and
//!   a comment, which neither output keeps.

mod support;

use canvasc_engine::ssrf::AllowList;
use canvasc_engine::Services;
use serde_json::json;
use support::{node_canvas, registry, run_with, Answer, Stub};

fn admit_loopback(services: &mut Services) {
    services.outbound_allow = AllowList::parse(&["127.0.0.1"]).expect("allow-list");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searxng_asks_the_instance_the_canvas_names() {
    let stub = Stub::start().await;
    let results = json!([
        {"url": "https://example.com/rag", "title": "What is RAG", "content": "Retrieval-augmented generation explained.",
         "engine": "duckduckgo", "parsed_url": ["https", "example.com", "/rag", "", "", ""], "template": "default.html",
         "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general"},
        {"url": "https://example.org/ragflow", "title": "RAGFlow", "content": "An open-source RAG engine.",
         "engine": "brave", "parsed_url": ["https", "example.org", "/ragflow", "", "", ""], "template": "default.html",
         "engines": ["brave"], "positions": [2], "score": 1.0, "category": "general"}
    ]);
    stub.on(
        "/search",
        vec![Answer::json(&json!({
            "query": "rag engine", "number_of_results": 0, "results": results,
            "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []
        }))],
    );
    let dsl = node_canvas(
        "SearXNG",
        json!({"searxng_url": stub.base, "top_n": 1}),
        "formalized_content",
    );
    let ran = run_with(
        &dsl,
        &json!({"default": "x"}),
        registry(""),
        "rag engine",
        admit_loopback,
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/search")
    );
    assert_eq!(
        requests[0].query.as_deref(),
        Some("q=rag+engine&format=json&categories=general&language=auto&safesearch=1&pageno=1")
    );
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!(null));
    // `top_n` keeps the first result; the chunks the model reads name its title, URL and text.
    assert_eq!(ran.output("Tool:T", "json"), json!([results[0]]));
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(
        text.contains("What is RAG")
            && text.contains("https://example.com/rag")
            && text.contains("Retrieval-augmented generation explained.")
            && !text.contains("RAGFlow"),
        "{text}"
    );
}

const PAGE: &str = "<!DOCTYPE html><html><head><title>Lyon guide</title>\
<style>h1 { color: red }</style><script>document.title = 'changed';</script></head>\
<body><!-- nav --><h1>Eating in Lyon</h1><p>Try a <b>bouchon</b>.</p></body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawler_fetches_the_page_and_keeps_neither_scripts_nor_styles() {
    let stub = Stub::start().await;
    stub.on(
        "/lyon",
        vec![
            Answer::text("text/html; charset=utf-8", PAGE),
            Answer::text("text/html; charset=utf-8", PAGE),
        ],
    );
    let url = format!("{}/lyon?lang=en", stub.base);
    for (extract_type, wanted) in [
        ("html", "<h1>Eating in Lyon</h1>"),
        ("markdown", "Eating in Lyon"),
    ] {
        let dsl = node_canvas(
            "Crawler",
            json!({"extract_type": extract_type}),
            "formalized_content",
        );
        let ran = run_with(
            &dsl,
            &json!({"default": "x"}),
            registry(""),
            &url,
            admit_loopback,
        )
        .await;
        assert_eq!(
            ran.output("Tool:T", "_ERROR"),
            json!(null),
            "{extract_type}"
        );
        let text = ran.output("Tool:T", "formalized_content");
        let text = text.as_str().unwrap_or_default();
        assert!(
            text.contains(wanted)
                && text.contains("bouchon")
                && !text.contains("document.title")
                && !text.contains("color: red")
                && !text.contains("nav"),
            "{extract_type}: {text}"
        );
    }
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
            ("GET", "/lyon", Some("lang=en"))
        );
    }
}
