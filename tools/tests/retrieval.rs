//! Retrieval against a stub of RAGFlow's HTTP API on 127.0.0.1 (`[tools.retrieval]`).
//!
//! The stub answers in the shapes of RAGFlow's `api/apps/restful_apis/chunk_api.py`
//! (`retrieval_test`: the retriever's chunks with `key_mapping` applied, `doc_aggs`, the
//! `{"code", "message", "data"}` envelope) and `dataset_api.py` (`GET /datasets?name=`); the
//! tool's outputs are RAGFlow's `agent/tools/retrieval.py`: chunks in the retriever's keys
//! (`json`), `kb_prompt`'s text (`formalized_content`) and the turn's references.

mod support;

use canvasc_engine::llm::kb_prompt::hash_str2int;
use canvasc_engine::RunOutcome;
use serde_json::{json, Value as Json};
use support::{agent_canvas, calling_script, node_canvas, registry, run, Answer, Stub};

const KEY: &str = "ragflow-test-key";

fn config(stub: &Stub) -> String {
    format!(
        "[tools.retrieval]\nbase_url = \"{}\"\napi_key = \"{KEY}\"\n",
        stub.base
    )
}

/// Two chunks as `POST /api/v1/retrieval` returns them (`key_mapping` applied; the
/// tokenised content is still there, the vector is not).
fn api_chunks() -> Json {
    json!([
        {"id": "chunk-reset", "content_ltks": "hold reset button", "content": "Hold the reset button for ten seconds.",
         "document_id": "doc-router", "document_keyword": "router.pdf", "dataset_id": "kb-manuals",
         "important_keywords": [], "tag_kwd": [], "image_id": "", "similarity": 0.82,
         "vector_similarity": 0.9, "term_similarity": 0.7, "positions": [[1, 10, 20, 30, 40]],
         "doc_type_kwd": "", "mom_id": "", "row_id": null},
        {"id": "chunk-lights", "content_ltks": "light blink", "content": "The lights blink\nwhile it restarts.",
         "document_id": "doc-router", "document_keyword": "router.pdf", "dataset_id": "kb-manuals",
         "important_keywords": ["lights"], "tag_kwd": [], "image_id": "", "similarity": 0.61,
         "vector_similarity": 0.6, "term_similarity": 0.62, "positions": [],
         "doc_type_kwd": "", "mom_id": "", "row_id": null,
         "document_metadata": {"product": "Router X"}}
    ])
}

fn retrieval_answer() -> Answer {
    Answer::json(&json!({"code": 0, "message": "", "data": {
        "total": 2,
        "chunks": api_chunks(),
        "doc_aggs": [{"doc_name": "router.pdf", "doc_id": "doc-router", "count": 2}]
    }}))
}

/// Begin → StringTransform (a dataset name) → Retrieval → Message.
fn canvas(retrieval_params: Json) -> Json {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["StringTransform:Names"], "upstream": []},
            "StringTransform:Names": {"obj": {"component_name": "StringTransform", "params": {
                "method": "merge", "script": "Product manuals", "delimiters": [","], "split_ref": "",
                "outputs": {"result": {"type": "string"}}}},
                "downstream": ["Retrieval:R"], "upstream": ["begin"]},
            "Retrieval:R": {"obj": {"component_name": "Retrieval", "params": retrieval_params},
                            "downstream": ["Message:M"], "upstream": ["StringTransform:Names"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": ["{Retrieval:R@formalized_content}"]}},
                          "downstream": [], "upstream": ["Retrieval:R"]}
        },
        "history": [], "path": [], "retrieval": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    })
}

fn full_params() -> Json {
    json!({
        "query": "sys.query",
        "dataset_ids": ["kb-literal", "StringTransform:Names@result"],
        "similarity_threshold": 0.3,
        "keywords_similarity_weight": 0.3,
        "top_n": 3,
        "top_k": 256,
        "rerank_id": "bge-reranker-v2-m3@BAAI",
        "cross_languages": ["English", "German"],
        "meta_data_filter": {"method": "manual", "logic": "and", "manual": [
            {"key": "product", "op": "=", "value": "{StringTransform:Names@result} X"},
            {"key": "year", "op": "≥", "value": "2024"}
        ]},
        "outputs": {"formalized_content": {"type": "string", "value": ""}, "json": {"type": "Array<Object>", "value": []}}
    })
}

/// `kb_prompt(kbinfos, 200000, hash_id=True)` for [`api_chunks`], written out.
fn expected_prompt() -> String {
    format!(
        "\nID: {}\n├── Title: router.pdf\n└── Content:\nHold the reset button for ten seconds.\n\
         \nID: {}\n├── Title: router.pdf\n├── product: Router X\n└── Content:\nThe lights blink\nwhile it restarts.",
        hash_str2int("chunk-reset", 500),
        hash_str2int("chunk-lights", 500)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_sends_ragflows_retrieval_request_and_formats_the_chunks() {
    let stub = Stub::start().await;
    stub.on(
        "/api/v1/datasets",
        vec![Answer::json(
            &json!({"code": 0, "data": [{"id": "kb-manuals", "name": "Product manuals"}], "total_datasets": 1}),
        )],
    );
    stub.on("/api/v1/retrieval", vec![retrieval_answer()]);
    let ran = run(
        &canvas(full_params()),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "User: how do I reset the router?",
    )
    .await;
    assert!(
        matches!(ran.outcome, RunOutcome::Finished),
        "{:?}",
        ran.outcome
    );

    let requests = stub.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let find = &requests[0];
    assert_eq!(
        (find.method.as_str(), find.path.as_str()),
        ("GET", "/api/v1/datasets")
    );
    assert_eq!(
        find.query_pairs(),
        vec![
            ("name".to_string(), "Product manuals".to_string()),
            ("page".to_string(), "1".to_string()),
            ("page_size".to_string(), "1".to_string())
        ]
    );
    let search = &requests[1];
    assert_eq!(
        (search.method.as_str(), search.path.as_str()),
        ("POST", "/api/v1/retrieval")
    );
    for r in &requests {
        assert_eq!(
            r.headers.get("authorization").map(String::as_str),
            Some("Bearer ragflow-test-key")
        );
    }
    assert_eq!(
        search.headers.get("content-type").map(String::as_str),
        Some("application/json")
    );
    // The leading `User:` is removed as RAGFlow's `re.sub(r"^user[:：\s]*", …)` does; the
    // manual filter's reference is rendered (`variable_ref_patt` also takes the spaces after
    // it, so `{…} X` becomes `…X`) and its operators are the API's.
    assert_eq!(
        search.json(),
        json!({
            "question": "how do I reset the router?",
            "dataset_ids": ["kb-literal", "kb-manuals"],
            "page": 1, "page_size": 3,
            "similarity_threshold": 0.3, "vector_similarity_weight": 0.7, "top_k": 256,
            "rerank_id": "bge-reranker-v2-m3@BAAI",
            "use_kg": false, "toc_enhance": false,
            "cross_languages": ["English", "German"],
            "keyword": false, "highlight": false,
            "metadata_condition": {"logic": "and", "conditions": [
                {"name": "product", "comparison_operator": "is", "value": "Product manualsX"},
                {"name": "year", "comparison_operator": ">=", "value": "2024"}
            ]}
        })
    );

    // `json`: the retriever's keys (the API's `key_mapping` undone), without `content_ltks`.
    assert_eq!(
        ran.output("Retrieval:R", "json"),
        json!([
            {"chunk_id": "chunk-reset", "content_with_weight": "Hold the reset button for ten seconds.",
             "doc_id": "doc-router", "docnm_kwd": "router.pdf", "kb_id": "kb-manuals",
             "important_kwd": [], "tag_kwd": [], "image_id": "", "similarity": 0.82,
             "vector_similarity": 0.9, "term_similarity": 0.7, "positions": [[1, 10, 20, 30, 40]],
             "doc_type_kwd": "", "mom_id": "", "row_id": null},
            {"chunk_id": "chunk-lights", "content_with_weight": "The lights blink\nwhile it restarts.",
             "doc_id": "doc-router", "docnm_kwd": "router.pdf", "kb_id": "kb-manuals",
             "important_kwd": ["lights"], "tag_kwd": [], "image_id": "", "similarity": 0.61,
             "vector_similarity": 0.6, "term_similarity": 0.62, "positions": [],
             "doc_type_kwd": "", "mom_id": "", "row_id": null,
             "document_metadata": {"product": "Router X"}}
        ])
    );
    assert_eq!(
        ran.output("Retrieval:R", "formalized_content"),
        json!(expected_prompt())
    );

    // The turn's references: `chunks_format` by hashed id, documents by name.
    let refs = ran.references();
    let reset = hash_str2int("chunk-reset", 500).to_string();
    assert_eq!(
        refs["chunks"][&reset],
        json!({"id": "chunk-reset", "content": "Hold the reset button for ten seconds.",
               "document_id": "doc-router", "document_name": "router.pdf", "dataset_id": "kb-manuals",
               "image_id": "", "positions": [[1, 10, 20, 30, 40]], "url": null, "similarity": 0.82,
               "vector_similarity": 0.9, "term_similarity": 0.7, "row_id": null, "doc_type": "",
               "document_metadata": null}),
        "{refs}"
    );
    assert_eq!(
        refs["doc_aggs"],
        json!({"router.pdf": {"doc_name": "router.pdf", "doc_id": "doc-router", "count": 2}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn datasets_resolve_by_id_when_no_name_matches_and_fail_when_neither_does() {
    let stub = Stub::start().await;
    // `?name=` finds nothing (RAGFlow answers an error envelope), `?id=` finds the dataset.
    stub.on(
        "/api/v1/datasets",
        vec![
            Answer::json(&json!({"code": 102, "message": "User 'x' lacks permission for dataset 'Product manuals'"})),
            Answer::json(&json!({"code": 0, "data": [{"id": "Product manuals"}]})),
        ],
    );
    stub.on("/api/v1/retrieval", vec![retrieval_answer()]);
    let params = json!({"query": "sys.query", "dataset_ids": ["StringTransform:Names@result"]});
    let ran = run(
        &canvas(params.clone()),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "reset",
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert_eq!(
        requests[1].query_pairs()[0],
        ("id".to_string(), "Product manuals".to_string())
    );
    assert_eq!(
        requests[2].json()["dataset_ids"],
        json!(["Product manuals"])
    );
    // RAGFlow's defaults: threshold 0.2, keyword weight 0.5, top_n 8, top_k 1024.
    let body = requests[2].json();
    assert_eq!(
        (
            &body["similarity_threshold"],
            &body["vector_similarity_weight"],
            &body["page_size"],
            &body["top_k"]
        ),
        (&json!(0.2), &json!(0.5), &json!(8), &json!(1024))
    );
    assert!(body.get("metadata_condition").is_none(), "{body}");
    assert_eq!(ran.output("Retrieval:R", "_ERROR"), Json::Null);

    let stub = Stub::start().await;
    stub.on(
        "/api/v1/datasets",
        vec![Answer::json(
            &json!({"code": 102, "message": "lacks permission"}),
        )],
    );
    let ran = run(
        &canvas(params),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "reset",
    )
    .await;
    assert_eq!(
        ran.output("Retrieval:R", "_ERROR"),
        json!("Dataset(Product manuals) does not exist.")
    );
    assert!(stub
        .requests()
        .iter()
        .all(|r| r.path != "/api/v1/retrieval"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_errors_and_empty_answers() {
    let stub = Stub::start().await;
    stub.on(
        "/api/v1/retrieval",
        vec![Answer::json(
            &json!({"code": 102, "message": "You don't own the dataset kb-other."}),
        )],
    );
    let params =
        json!({"query": "sys.query", "kb_ids": ["kb-other"], "empty_response": "Nothing found."});
    let ran = run(
        &node_canvas("Retrieval", params.clone(), "formalized_content"),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("You don't own the dataset kb-other.")
    );

    // Nothing found: `empty_response`, no `json`, no references.
    let stub = Stub::start().await;
    stub.on(
        "/api/v1/retrieval",
        vec![Answer::json(
            &json!({"code": 0, "data": {"total": 0, "chunks": [], "doc_aggs": {}}}),
        )],
    );
    let ran = run(
        &node_canvas("Retrieval", params, "formalized_content"),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("Nothing found.")
    );
    assert_eq!(ran.output("Tool:T", "json"), Json::Null);
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_dataset_and_generated_filters() {
    let stub = Stub::start().await;
    let reg = || registry(&config(&stub));
    // Neither datasets nor memories: `empty_response`, nothing sent.
    let ran = run(
        &node_canvas(
            "Retrieval",
            json!({"query": "sys.query", "empty_response": "None."}),
            "formalized_content",
        ),
        &json!({"default": "x"}),
        reg(),
        "q",
    )
    .await;
    assert_eq!(ran.output("Tool:T", "formalized_content"), json!("None."));
    // Forced to datasets with none named.
    let ran = run(
        &node_canvas(
            "Retrieval",
            json!({"query": "sys.query", "retrieval_from": "dataset"}),
            "formalized_content",
        ),
        &json!({"default": "x"}),
        reg(),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("No dataset is selected.")
    );
    // A generated filter needs what the API does not offer: a clear error, nothing searched.
    let ran = run(&node_canvas("Retrieval", json!({"query": "sys.query", "dataset_ids": ["kb"], "meta_data_filter": {"method": "auto"}}), "formalized_content"), &json!({"default": "x"}), reg(), "q").await;
    let error = ran.output("Tool:T", "_ERROR");
    assert!(
        error
            .as_str()
            .is_some_and(|e| e.contains("`auto` metadata filter")),
        "{error}"
    );
    assert!(stub.requests().is_empty(), "{:?}", stub.requests());
}

/// Memories (`memory_ids`) on the server's memory API: `GET /memories?ids=` says which exist,
/// `GET /messages/search` runs `query_message`; the contents are joined as `memory_prompt`
/// joins them. No memory found is RAGFlow's `No memory is selected.`; memories on two
/// embedding models its assertion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_are_searched_on_the_servers_memory_api() {
    let stub = Stub::start().await;
    stub.on(
        "/api/v1/memories",
        vec![Answer::json(&json!({"code": 0, "data": {"memory_list": [
            {"id": "mem-1", "name": "Support", "embd_id": "bge-m3@BAAI", "memory_type": ["raw"]},
            {"id": "mem-2", "name": "Sales", "embd_id": "bge-m3@BAAI", "memory_type": ["raw"]}
        ], "total_count": 2}}))],
    );
    stub.on(
        "/api/v1/messages/search",
        vec![Answer::json(&json!({"code": 0, "message": true, "data": [
            {"message_id": 7, "memory_id": "mem-1", "content": "User: my router blinks red.", "similarity": 0.8},
            {"message_id": 3, "memory_id": "mem-2", "content": "Assistant: hold the reset button.", "similarity": 0.6}
        ]}))],
    );
    let params = json!({"query": "sys.query", "memory_ids": ["mem-1", "mem-2"], "top_n": 4,
                        "similarity_threshold": 0.3, "keywords_similarity_weight": 0.6,
                        "user_id": "{sys.user_id}"});
    let ran = run(
        &node_canvas("Retrieval", params, "formalized_content"),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "router blinks",
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("User: my router blinks red.\nAssistant: hold the reset button.")
    );
    let requests = stub.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].path, "/api/v1/memories");
    assert_eq!(
        requests[0].query_pairs()[0],
        ("ids".to_string(), "mem-1,mem-2".to_string())
    );
    assert_eq!(requests[1].path, "/api/v1/messages/search");
    let pairs = requests[1].query_pairs();
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(get("memory_id"), "mem-1,mem-2");
    assert_eq!(get("query"), "router blinks");
    assert_eq!(get("top_n"), "4");
    assert_eq!(get("similarity_threshold"), "0.3");
    assert_eq!(get("keywords_similarity_weight"), "0.6");
    assert!(pairs.iter().any(|(k, _)| k == "user_id"), "{pairs:?}");
    assert!(requests
        .iter()
        .all(|r| r.headers.get("authorization") == Some(&format!("Bearer {KEY}"))));

    // Nothing found: `empty_response`.
    let stub = Stub::start().await;
    stub.on(
        "/api/v1/memories",
        vec![Answer::json(&json!({"code": 0, "data": {"memory_list": [
            {"id": "mem-1", "embd_id": "bge-m3@BAAI"}], "total_count": 1}}))],
    );
    stub.on(
        "/api/v1/messages/search",
        vec![Answer::json(&json!({"code": 0, "data": []}))],
    );
    let params = json!({"query": "sys.query", "retrieval_from": "memory", "memory_ids": ["mem-1"],
                        "empty_response": "No memory of that."});
    let ran = run(
        &node_canvas("Retrieval", params, "formalized_content"),
        &json!({"default": "x"}),
        registry(&config(&stub)),
        "q",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!("No memory of that.")
    );

    // None of the ids is a memory the key may read; two embedding models.
    for (list, error) in [
        (json!([]), "No memory is selected."),
        (
            json!([{"id": "mem-1", "embd_id": "a@X"}, {"id": "mem-2", "embd_id": "b@Y"}]),
            "Memory use different embedding models.",
        ),
    ] {
        let stub = Stub::start().await;
        stub.on(
            "/api/v1/memories",
            vec![Answer::json(
                &json!({"code": 0, "data": {"memory_list": list, "total_count": 0}}),
            )],
        );
        let ran = run(
            &node_canvas(
                "Retrieval",
                json!({"query": "sys.query", "memory_ids": ["mem-1", "mem-2"]}),
                "formalized_content",
            ),
            &json!({"default": "x"}),
            registry(&config(&stub)),
            "q",
        )
        .await;
        assert_eq!(ran.output("Tool:T", "_ERROR"), json!(error));
        assert!(stub.requests().iter().all(|r| r.path == "/api/v1/memories"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_an_agent_tool_the_model_reads_the_chunks() {
    let stub = Stub::start().await;
    stub.on("/api/v1/retrieval", vec![retrieval_answer()]);
    let dsl = agent_canvas("Retrieval", json!({"dataset_ids": ["kb-manuals"]}));
    let script = calling_script(
        "search_my_dateset_0",
        json!({"query": "reset router"}),
        "Hold the reset button",
        "Hold it for ten seconds.",
    );
    let ran = run(
        &dsl,
        &script,
        registry(&config(&stub)),
        "How do I reset it?",
    )
    .await;
    assert!(
        matches!(ran.outcome, RunOutcome::Finished),
        "{:?}",
        ran.outcome
    );
    assert_eq!(stub.requests()[0].json()["question"], json!("reset router"));
    assert_eq!(ran.tool_results(), vec![expected_prompt()]);
    assert_eq!(
        ran.references()["chunks"].as_object().map(|c| c.len()),
        Some(2)
    );
}
