//! QueritSearch and QueritContents against a stub of the Querit API on 127.0.0.1, answering in
//! its shapes: `POST /v1/search` → `{"results": {"result": [{"title", "url", "snippet", …}]},
//! …}` and `POST /v1/contents` → `{"results": [...], "statuses": [...]}`, as RAGFlow's own
//! tests record them (`test/unit_test/agent/tools/test_querit_unit.py`,
//! `test_querit_contents_unit.py`) and <https://www.querit.ai> documents its API.

mod support;

use serde_json::json;
use support::{agent_canvas, calling_script, node_canvas, registry, run, Answer, Stub};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn querit_search_sends_filters_and_keeps_the_whole_answer() {
    let stub = Stub::start().await;
    let answer = json!({
        "request_id": "r-1",
        "results": {"result": [
            {"title": "LLM progress", "url": "https://example.com/llm", "snippet": "Recent LLM progress summary", "page_age": "2025-01-01"},
            {"snippet": "Snippet only"},
            "not an object"
        ]}
    });
    stub.on(
        "/v1/search",
        vec![Answer::status(503, &json!({})), Answer::json(&answer)],
    );
    let toml = format!(
        "[tools.querit]\nbase_url = \"{}/v1\"\napi_key = \"qk-secret\"\n",
        stub.base
    );
    let dsl = node_canvas(
        "QueritSearch",
        json!({"count": 5, "chunks_per_doc": 2, "site_include": ["arxiv.org"], "site_exclude": [],
               "time_range": "w1", "country_include": [], "language_include": ["en"],
               "delay_after_error": 0}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "llm news").await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 2, "a 503 is retried");
    let r = &requests[1];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/search"));
    assert_eq!(
        r.headers.get("authorization").map(String::as_str),
        Some("Bearer qk-secret")
    );
    assert_eq!(
        r.headers.get("accept").map(String::as_str),
        Some("application/json")
    );
    assert_eq!(
        r.body,
        r#"{"query": "llm news", "count": 5, "chunksPerDoc": 2, "filters": {"sites": {"include": ["arxiv.org"]}, "timeRange": {"date": "w1"}, "languages": {"include": ["en"]}}}"#
    );
    assert_eq!(ran.output("Tool:T", "json"), answer);
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(
        text.contains("├── Title: LLM progress\n├── URL: https://example.com/llm\n└── Content:\nRecent LLM progress summary"),
        "{text}"
    );
    assert!(text.contains("\n└── Content:\nSnippet only"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn querit_errors_name_the_field_and_never_the_key() {
    let stub = Stub::start().await;
    stub.on(
        "/v1/search",
        vec![Answer::json(&json!({"results": {"result": {}}}))],
    );
    let toml = format!("[tools.querit]\nbase_url = \"{}/v1\"\n", stub.base);
    let dsl = node_canvas("QueritSearch", json!({}), "formalized_content");
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    assert!(stub.requests().is_empty());
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Querit API key is required. Configure api_key or set QUERIT_API_KEY.")
    );

    let dsl = node_canvas(
        "QueritSearch",
        json!({"api_key": " qk-node "}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    assert_eq!(
        stub.requests()[0]
            .headers
            .get("authorization")
            .map(String::as_str),
        Some("Bearer qk-node")
    );
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Querit API response field results.result must be an array.")
    );

    // A key that reaches an error text is redacted.
    stub.on(
        "/v1/qk-node/search",
        vec![Answer::status(400, &json!({"error": "bad"}))],
    );
    let toml = format!("[tools.querit]\nbase_url = \"{}/v1/qk-node\"\n", stub.base);
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    let err = ran.output("Tool:T", "_ERROR");
    let err = err.as_str().unwrap_or_default();
    assert!(
        err.starts_with("400 Client Error: Bad Request for url: "),
        "{err}"
    );
    assert!(err.contains("/v1/[REDACTED]/search"), "{err}");
    assert!(!err.contains("qk-node"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn querit_contents_splits_urls_and_returns_the_answer() {
    let stub = Stub::start().await;
    let answer = json!({
        "results": [{"url": "https://example.com/a", "title": "A", "content": "# A\ntext"}],
        "statuses": [{"url": "https://example.com/a", "status": "success"}, {"url": "https://example.com/b", "status": "error", "error": "timeout"}]
    });
    stub.on("/v1/contents", vec![Answer::json(&answer)]);
    let toml = format!(
        "[tools.querit]\nbase_url = \"{}/v1\"\napi_key = \"qk\"\n",
        stub.base
    );
    let dsl = node_canvas(
        "QueritContents",
        json!({"urls": "https://example.com/a, https://example.com/b,", "format": "text",
               "crawl_timeout": 20, "extras_meta": true}),
        "json",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "").await;
    let r = &stub.requests()[0];
    assert_eq!(r.path, "/v1/contents");
    assert_eq!(
        r.body,
        r#"{"urls": ["https://example.com/a", "https://example.com/b"], "format": "text", "crawlTimeout": 20, "extrasMeta": true}"#
    );
    assert_eq!(ran.output("Tool:T", "json"), answer);

    // The model's arguments are validated again at run time. (The tool's own `urls` must pass
    // RAGFlow's parameter check for the canvas to be built at all.)
    let dsl = agent_canvas("QueritContents", json!({"urls": "https://example.com/a"}));
    let script = calling_script(
        "querit_contents_0",
        json!({"urls": ["ftp://example.com/a"]}),
        "Querit contents error",
        "done",
    );
    let ran = run(&dsl, &script, registry(&toml), "read it").await;
    assert_eq!(stub.requests().len(), 1, "invalid input is not sent");
    assert_eq!(
        ran.tool_results(),
        ["Querit contents error: Querit urls must be absolute HTTP or HTTPS URLs."]
    );
}
