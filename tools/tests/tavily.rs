//! TavilySearch and TavilyExtract against a stub of Tavily's API on 127.0.0.1.
//!
//! Response shapes are those of Tavily's API reference:
//! <https://docs.tavily.com/documentation/api-reference/endpoint/search> (`query`, `answer`,
//! `images`, `results[]` with `title`, `url`, `content`, `score`, `raw_content`,
//! `response_time`) and
//! <https://docs.tavily.com/documentation/api-reference/endpoint/extract> (`results[]` with
//! `url`, `raw_content`, `images`; `failed_results`; `response_time`). The request is the one
//! `tavily-python`'s `TavilyClient.search`/`extract` sends: a JSON body, the key as a bearer
//! token.

mod support;

use serde_json::json;
use support::{agent_canvas, calling_script, node_canvas, registry, run, Answer, Stub};

fn search_response() -> serde_json::Value {
    json!({
        "query": "latest RAG news",
        "answer": null,
        "images": [],
        "results": [
            {"title": "RAG in 2026", "url": "https://news.example/rag", "content": "Retrieval keeps improving.", "score": 0.91, "raw_content": null},
            {"title": "Vector stores", "url": "https://news.example/vectors", "content": "short", "score": 0.5, "raw_content": "Full text of the vector article."}
        ],
        "response_time": "1.67"
    })
}

fn config(stub: &Stub) -> String {
    format!("[tools.tavily]\nbase_url = \"{}\"\n", stub.base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_node_sends_the_clients_request_and_cites_the_results() {
    let stub = Stub::start().await;
    stub.on("/search", vec![Answer::json(&search_response())]);
    let dsl = node_canvas(
        "TavilySearch",
        json!({"api_key": "tvly-node-key"}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "latest RAG news",
    )
    .await;
    assert!(
        matches!(ran.outcome, canvasc_engine::RunOutcome::Finished),
        "{:?}",
        ran.outcome
    );

    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.query.as_deref()),
        ("POST", "/search", None)
    );
    assert_eq!(
        r.headers.get("authorization").map(String::as_str),
        Some("Bearer tvly-node-key")
    );
    assert_eq!(
        r.headers.get("content-type").map(String::as_str),
        Some("application/json")
    );
    assert_eq!(
        r.headers.get("x-client-source").map(String::as_str),
        Some("tavily-python")
    );
    assert_eq!(
        r.json(),
        json!({
            "query": "latest RAG news", "topic": "general", "include_domains": [], "exclude_domains": [],
            "search_depth": "basic", "max_results": 6, "days": 14, "include_answer": false,
            "include_raw_content": false, "include_images": false, "include_image_descriptions": false
        })
    );

    assert_eq!(ran.output("Tool:T", "json"), search_response()["results"]);
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    // `raw_content`, when there is one, is the content the model reads.
    for part in [
        "├── Title: RAG in 2026",
        "├── URL: https://news.example/rag",
        "Retrieval keeps improving.",
        "Full text of the vector article.",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert!(!text.contains("\n└── Content:\nshort"), "{text}");
    let refs = ran.references();
    assert_eq!(
        refs["chunks"].as_object().map(|c| c.len()),
        Some(2),
        "{refs}"
    );
    assert_eq!(
        refs["doc_aggs"].as_object().map(|c| c.len()),
        Some(2),
        "{refs}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_errors_are_worded_as_ragflow_words_them() {
    let stub = Stub::start().await;
    stub.on(
        "/search",
        vec![Answer::status(
            401,
            &json!({"detail": {"error": "Unauthorized: missing or invalid API key."}}),
        )],
    );
    let dsl = node_canvas(
        "TavilySearch",
        json!({"api_key": "bad", "delay_after_error": 0.01, "max_retries": 1}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(stub.requests().len(), 2, "max_retries + 1 attempts");
    let error = ran.output("Tool:T", "_ERROR");
    assert_eq!(error, json!("Unauthorized: missing or invalid API key."));
    assert!(
        !error.to_string().contains("bad"),
        "the key never shows: {error}"
    );

    // No key anywhere: the client refuses before sending anything.
    let stub = Stub::start().await;
    let dsl = node_canvas("TavilySearch", json!({}), "formalized_content");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert!(stub.requests().is_empty());
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("No API key provided. Please provide the api_key attribute or set the TAVILY_API_KEY environment variable.")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_as_an_agent_tool_with_the_configured_key() {
    let stub = Stub::start().await;
    stub.on("/search", vec![Answer::json(&search_response())]);
    let toml = format!("{}api_key = \"tvly-config-key\"\n", config(&stub));
    let dsl = agent_canvas("TavilySearch", json!({}));
    let script = calling_script(
        "tavily_search_0",
        json!({"query": "rag news", "topic": "news"}),
        "RAG in 2026",
        "Done.",
    );
    let ran = run(&dsl, &script, registry(&toml), "what is new in RAG?").await;
    let r = &stub.requests()[0];
    assert_eq!(
        r.headers.get("authorization").map(String::as_str),
        Some("Bearer tvly-config-key")
    );
    assert_eq!(r.json()["query"], json!("rag news"));
    assert_eq!(r.json()["topic"], json!("news"));
    let results = ran.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("├── Title: RAG in 2026"), "{results:?}");
    assert_eq!(
        ran.references()["chunks"].as_object().map(|c| c.len()),
        Some(2)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_splits_urls_and_returns_the_results() {
    let stub = Stub::start().await;
    let response = json!({
        "results": [{"url": "https://a.example/", "raw_content": "A page.", "images": []}],
        "failed_results": [{"url": "https://b.example/", "error": "timeout"}],
        "response_time": 0.4
    });
    stub.on("/extract", vec![Answer::json(&response)]);
    let dsl = node_canvas(
        "TavilyExtract",
        json!({"api_key": "k", "urls": "https://a.example/,https://b.example/"}),
        "json",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    let r = &stub.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/extract"));
    assert_eq!(
        r.json(),
        json!({"urls": ["https://a.example/", "https://b.example/"], "extract_depth": "basic", "format": "markdown", "include_images": false})
    );
    assert_eq!(ran.output("Tool:T", "json"), response["results"]);
}
