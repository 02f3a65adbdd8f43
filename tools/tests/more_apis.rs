//! DeepL and KeenableSearch against stubs on 127.0.0.1, answering in the documented shapes:
//!
//! * DeepL API `POST /v2/translate`: <https://developers.deepl.com/docs/api-reference/translate>
//!   (`translations[]` with `detected_source_language`, `text`; `message` on errors);
//! * Keenable search API (`results[]` with `title`, `url`, `snippet`, `description`), as
//!   RAGFlow's `agent/tools/keenable.py` documents it.

mod support;

use serde_json::json;
use support::{node_canvas, registry, run, Answer, Stub};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deepl_translates_with_the_key_header() {
    let stub = Stub::start().await;
    stub.on("/v2/translate", vec![
        Answer::json(&json!({"translations": [{"detected_source_language": "ZH", "text": "Hello world"}]})),
        Answer::status(403, &json!({"message": "Wrong endpoint"})),
    ]);
    let toml = format!("[tools.deepl]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "DeepL",
        json!({"auth_key": "k:fx", "source_lang": "ZH", "target_lang": "EN-GB"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "你好世界").await;
    let r = &stub.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v2/translate")
    );
    assert_eq!(
        r.headers.get("authorization").map(String::as_str),
        Some("DeepL-Auth-Key k:fx")
    );
    assert_eq!(
        r.json(),
        json!({"text": ["你好世界"], "source_lang": "ZH", "target_lang": "EN-GB"})
    );
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("Hello world")
    );

    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "again").await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("DeepL error: Authorization failure, check auth_key, message: Wrong endpoint")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keenable_uses_the_public_endpoint_without_a_key() {
    let stub = Stub::start().await;
    let results = json!([{"title": "A", "url": "https://a.example/", "snippet": "line one\n  line two", "description": ""}]);
    stub.on(
        "/v1/search/public",
        vec![Answer::json(&json!({"results": results}))],
    );
    stub.on("/v1/search", vec![Answer::json(&json!({"results": []}))]);
    let toml = format!("[tools.keenable]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "KeenableSearch",
        json!({"site": "a.example"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "what is a").await;
    let r = &stub.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/search/public")
    );
    assert_eq!(
        r.headers.get("user-agent").map(String::as_str),
        Some("keenable-ragflow")
    );
    assert_eq!(
        r.headers.get("x-keenable-title").map(String::as_str),
        Some("RAGFlow")
    );
    assert!(!r.headers.contains_key("x-api-key"));
    assert_eq!(
        r.json(),
        json!({"query": "what is a", "mode": "pro", "site": "a.example"})
    );
    let text = ran.output("Tool:T", "formalized_content");
    assert!(
        text.as_str()
            .is_some_and(|t| t.ends_with("└── Content:\nline one line two")),
        "{text}"
    );

    let dsl = node_canvas(
        "KeenableSearch",
        json!({"api_key": "kn-1"}),
        "formalized_content",
    );
    run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    let r = &stub.requests()[1];
    assert_eq!(r.path, "/v1/search");
    assert_eq!(r.headers.get("x-api-key").map(String::as_str), Some("kn-1"));
}
