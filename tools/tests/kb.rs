//! The local knowledge base (feature `kb`): datasets made by `DatasetStore::add`, searched by
//! the Retrieval tool, hybrid when an embedding endpoint is configured. The endpoint is a
//! stub on 127.0.0.1 speaking OpenAI's embeddings API (`POST /embeddings`, `{"model",
//! "input"}` → `{"data": [{"index", "embedding"}]}`) whose vectors count the words of each
//! text in 32 hashed buckets, so texts sharing words are near.

mod support;

use axum::extract::State;
use axum::routing::post;
use axum::{Json as AxJson, Router};
use canvasc_engine::external::Externals;
use canvasc_engine::RunOutcome;
use canvasc_tools::config::ToolsConfig;
use canvasc_tools::kb::embed::Embedder;
use canvasc_tools::kb::DatasetStore;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use support::{node_canvas, run};

const DIM: usize = 32;

/// FNV-1a: the stub's bucket for a word.
fn bucket(word: &str) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in word.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % DIM as u64) as usize
}

fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        v[bucket(w)] += 1.0;
    }
    v
}

type Seen = Arc<Mutex<Vec<(Option<String>, Json)>>>;

async fn embeddings(
    State(seen): State<Seen>,
    headers: axum::http::HeaderMap,
    AxJson(body): AxJson<Json>,
) -> AxJson<Json> {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    seen.lock().expect("lock").push((auth, body.clone()));
    let data: Vec<Json> = body["input"]
        .as_array()
        .map(|inputs| {
            inputs
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t.as_str().unwrap_or(""))}))
                .collect()
        })
        .unwrap_or_default();
    AxJson(json!({"object": "list", "data": data, "model": body["model"]}))
}

async fn embedding_stub() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/v1/embeddings", post(embeddings))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/v1"), seen)
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-kb-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("docs")).expect("temp dir");
    dir
}

fn write_docs(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::write(
        docs.join("router.md"),
        "# Router\n\nTo restart the router, hold the reset button for ten seconds.\n",
    )
    .expect("write");
    std::fs::write(
        docs.join("billing.txt"),
        "Invoices are sent on the first day of each month.\n",
    )
    .expect("write");
    std::fs::write(
        docs.join("garden.txt"),
        "Tomatoes need sun and water every morning.\n",
    )
    .expect("write");
    docs
}

fn config(base: &str, model: &str) -> String {
    format!("[embedding]\nbase_url = \"{base}\"\nmodel = \"{model}\"\napi_key = \"emb-key\"\n")
}

fn registry(toml: &str, datasets: &Path) -> Externals {
    let none = |_: &str| None;
    let config = ToolsConfig::from_toml_str(toml, &none)
        .expect("configuration")
        .with_datasets_dir(datasets);
    let mut registry = Externals::default();
    canvasc_tools::register_all(&mut registry, &config);
    registry
}

fn embedder(toml: &str) -> Embedder {
    let none = |_: &str| None;
    let config = ToolsConfig::from_toml_str(toml, &none).expect("configuration");
    Embedder::new(
        config.embedding().cloned().expect("[embedding]"),
        canvasc_engine::http::shared_client(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_search_weighs_terms_and_vectors() {
    let (base, seen) = embedding_stub().await;
    let dir = temp_dir("hybrid");
    let docs = write_docs(&dir);
    let datasets = dir.join("datasets");
    let toml = config(&base, "hash-embed");
    let store = DatasetStore::new(&datasets);
    let mut log = Vec::new();
    let meta = store
        .add(
            "manuals",
            &[docs],
            Some(&embedder(&toml)),
            &mut |l: &str| log.push(l.to_string()),
        )
        .await
        .expect("dataset made");
    assert_eq!(
        (
            meta.embd_id.as_str(),
            meta.dim,
            meta.documents.len(),
            meta.chunk_count
        ),
        ("hash-embed", DIM, 3, 3),
        "{meta:?}"
    );
    {
        let seen = seen.lock().expect("lock");
        // Document titles, then chunk contents; the key as a bearer token.
        assert_eq!(seen[0].0.as_deref(), Some("Bearer emb-key"));
        assert_eq!(
            seen[0].1,
            json!({"model": "hash-embed", "input": ["billing.txt", "garden.txt", "router.md"]})
        );
        assert_eq!(seen[1].1["input"].as_array().map(Vec::len), Some(3));
    }

    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "dataset_ids": ["manuals"], "empty_response": "Nothing.", "top_n": 2}),
        "formalized_content",
    );
    // A name without `@` is an id to RAGFlow: nothing is found under it.
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml, &datasets),
        "restart the router",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("No dataset is selected.")
    );

    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "dataset_ids": [meta.id], "empty_response": "Nothing.", "top_n": 2}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml, &datasets),
        "how to restart the router",
    )
    .await;
    assert!(
        matches!(ran.outcome, RunOutcome::Finished),
        "{:?}",
        ran.outcome
    );
    let chunks = ran.output("Tool:T", "json");
    let chunks = chunks.as_array().expect("json chunks");
    assert!(!chunks.is_empty());
    let first = &chunks[0];
    assert!(
        first["content_with_weight"]
            .as_str()
            .is_some_and(|c| c.contains("reset button")),
        "{first}"
    );
    assert_eq!(first["docnm_kwd"], json!("router.md"));
    assert_eq!(first["kb_id"], json!(meta.id));
    let (sim, tsim, vsim) = (
        first["similarity"].as_f64().unwrap_or(-1.0),
        first["term_similarity"].as_f64().unwrap_or(-1.0),
        first["vector_similarity"].as_f64().unwrap_or(-1.0),
    );
    assert!(tsim > 0.4 && vsim > 0.3, "{first}");
    assert!((sim - (0.5 * tsim + 0.5 * vsim)).abs() < 1e-9, "{first}");
    // Every chunk passed the threshold, best first.
    let sims: Vec<f64> = chunks
        .iter()
        .filter_map(|c| c["similarity"].as_f64())
        .collect();
    assert!(
        sims.iter().all(|s| *s >= 0.2) && sims.windows(2).all(|w| w[0] >= w[1]),
        "{sims:?}"
    );
    let text = ran.output("Tool:T", "formalized_content");
    assert!(
        text.as_str()
            .is_some_and(|t| t.contains("├── Title: router.md\n└── Content:\n")),
        "{text}"
    );
    let refs = ran.references();
    assert!(
        refs["doc_aggs"]["router.md"]["count"]
            .as_u64()
            .is_some_and(|n| n >= 1),
        "{refs}"
    );

    // Keyword weight 1 (vector weight 0): term similarity alone, no threshold.
    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "kb_ids": [meta.id], "keywords_similarity_weight": 1.0, "similarity_threshold": 0.99}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml, &datasets),
        "invoices month",
    )
    .await;
    let chunks = ran.output("Tool:T", "json");
    assert_eq!(chunks[0]["docnm_kwd"], json!("billing.txt"), "{chunks}");
    assert_eq!(chunks[0]["similarity"], chunks[0]["term_similarity"]);

    // Nothing in common: `empty_response`.
    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "kb_ids": [meta.id], "empty_response": "Nothing.", "similarity_threshold": 0.9}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml, &datasets),
        "zebra xylophone",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("Nothing.")
    );

    // Searched with another embedding model: a clear error.
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&base, "other-model"), &datasets),
        "restart",
    )
    .await;
    let error = ran.output("Tool:T", "_ERROR");
    assert!(
        error.as_str().is_some_and(|e| e.contains("hash-embed")),
        "{error}"
    );

    // A manual metadata filter: local documents carry no metadata, so nothing matches.
    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "kb_ids": [meta.id], "empty_response": "Filtered.",
               "meta_data_filter": {"method": "manual", "manual": [{"key": "author", "op": "=", "value": "x"}]}}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml, &datasets),
        "restart the router",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("Filtered.")
    );

    let removed = store.remove("manuals").expect("removed");
    assert_eq!(removed.id, meta.id);
    assert!(store.list().expect("list").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_text_only_datasets_and_failed_adds_leave_nothing() {
    let dir = temp_dir("fulltext");
    let docs = write_docs(&dir);
    let datasets = dir.join("datasets");
    let store = DatasetStore::new(&datasets);
    let meta = store
        .add(
            "plain",
            std::slice::from_ref(&docs),
            None,
            &mut |_: &str| {},
        )
        .await
        .expect("dataset");
    assert_eq!((meta.embd_id.as_str(), meta.dim), ("", 0));
    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "kb_ids": [meta.id]}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry("", &datasets),
        "tomatoes sun",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "json")[0]["docnm_kwd"],
        json!("garden.txt")
    );
    assert_eq!(
        ran.output("Tool:T", "json")[0]["vector_similarity"],
        json!(0.0)
    );

    // An unreachable embedding endpoint fails the add; no dataset, no leftovers.
    let toml = config("http://127.0.0.1:9/v1", "hash-embed");
    let failed = store
        .add("broken", &[docs], Some(&embedder(&toml)), &mut |_: &str| {})
        .await;
    assert!(failed.is_err());
    let names: Vec<String> = store
        .list()
        .expect("list")
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, vec!["plain".to_string()]);
    let leftovers: Vec<_> = std::fs::read_dir(&datasets)
        .expect("datasets dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Chinese and Japanese have no spaces between words: their text is indexed as character
/// bigrams, so a Chinese query finds the Chinese chunk that shares its words (and not the
/// others), and a Japanese one the Japanese chunk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chinese_and_japanese_queries_find_their_chunks() {
    let dir = temp_dir("cjk");
    let docs = dir.join("docs");
    std::fs::write(
        docs.join("路由器.md"),
        "# 路由器常见问题\n\n重启路由器时，请按住复位键十秒钟。\n",
    )
    .expect("write");
    std::fs::write(docs.join("账单.txt"), "每月第一天发送发票。\n").expect("write");
    std::fs::write(docs.join("庭.txt"), "トマトは毎朝、日光と水が必要です。\n").expect("write");
    std::fs::write(
        docs.join("garden.txt"),
        "Tomatoes need sun and water every morning.\n",
    )
    .expect("write");
    let datasets = dir.join("datasets");
    let store = DatasetStore::new(&datasets);
    let meta = store
        .add("cjk", &[docs], None, &mut |_: &str| {})
        .await
        .expect("dataset");
    let dsl = node_canvas(
        "Retrieval",
        json!({"query": "sys.query", "kb_ids": [meta.id], "top_n": 8}),
        "formalized_content",
    );
    for (query, file, content) in [
        ("怎么重启路由器？", "路由器.md", "按住复位键十秒钟"),
        ("トマトに水", "庭.txt", "日光と水"),
    ] {
        let ran = run(
            &dsl,
            &json!({"default": "x"}),
            registry("", &datasets),
            query,
        )
        .await;
        let found = ran.output("Tool:T", "json");
        let names: Vec<&str> = found
            .as_array()
            .expect("chunks")
            .iter()
            .filter_map(|c| c["docnm_kwd"].as_str())
            .collect();
        assert_eq!(names, vec![file], "{query}: {found}");
        let text = ran.output("Tool:T", "formalized_content");
        assert!(
            text.as_str().is_some_and(|t| t.contains(content)),
            "{query}: {text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
