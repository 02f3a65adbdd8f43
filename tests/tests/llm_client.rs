//! The OpenAI-compatible client against the scripted HTTP server: answers, streams, tool
//! calls, retries, failures, cancellation — and the same script through the in-process
//! provider and through HTTP giving the same answers (scripted-llm.md).

use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::error::{
    BROKEN_STREAM, ERROR_CONNECTION, ERROR_INVALID_REQUEST, ERROR_MAX_RETRIES, ERROR_MODEL,
    ERROR_TIMEOUT,
};
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::llm::{
    ChatMessage, ChatProvider, ChatRequest, ChatResponse, Delta, LlmError, TokenUsage, ToolCall,
};
use canvasc_engine::Services;
use canvasc_tests::scripted_server::ScriptedServer;
use futures::StreamExt;
use serde_json::{json, Value as Json};
use std::time::Duration;

fn provider(server: &ScriptedServer) -> OpenAiProvider {
    let mut config = LlmConfig::single(&server.base_url(), Some("sk-test"));
    config.client.retry_delay = Duration::from_millis(1);
    config.client.timeout = Duration::from_secs(20);
    OpenAiProvider::new(Services::default().http, config)
}

fn request(user: &str) -> ChatRequest {
    ChatRequest {
        llm_id: "gpt-test@OpenAI".into(),
        messages: vec![
            ChatMessage::new("system", "You are terse."),
            ChatMessage::new("user", user),
        ],
        ..ChatRequest::default()
    }
}

fn server(script: Json) -> ScriptedServer {
    ScriptedServer::from_json(&script).expect("valid script")
}

async fn collect(p: &dyn ChatProvider, r: ChatRequest) -> Vec<Result<Delta, LlmError>> {
    p.chat_stream(r).collect().await
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test]
async fn non_streaming_answer_and_what_was_sent() {
    let s = server(json!({"usage": true, "responses": [
        {"match": "weather", "content": "It is sunny.", "reasoning": "Look outside."}
    ]}));
    let mut r = request("weather today?");
    r.gen_conf.insert("temperature".into(), json!(0.2));
    r.gen_conf.insert("max_tokens".into(), json!(100));
    r.gen_conf
        .insert("response_format".into(), json!({"type": "json_object"}));
    let answer = provider(&s).chat(r).await.expect("answer");
    assert_eq!(
        answer,
        ChatResponse {
            content: "It is sunny.".into(),
            reasoning: Some("Look outside.".into()),
            tool_calls: vec![],
            finish_reason: Some("stop".into()),
            usage: Some(TokenUsage {
                prompt_tokens: 5,
                completion_tokens: 3,
                total_tokens: 8
            }),
        }
    );
    let sent = s.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(sent[0].entry, Some(0));
    assert_eq!(
        sent[0].body,
        json!({"model": "gpt-test", "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "weather today?"}],
            "temperature": 0.2, "response_format": {"type": "json_object"}})
    );
}

#[tokio::test]
async fn streams_reasoning_first_then_content_in_order() {
    let s = server(json!({"chunking": "words", "usage": true, "responses": [
        {"content": "one two three", "reasoning": "Counting."}
    ]}));
    let deltas = collect(&provider(&s), request("count")).await;
    let usage = TokenUsage {
        prompt_tokens: 4,
        completion_tokens: 3,
        total_tokens: 7,
    };
    assert_eq!(
        deltas,
        vec![
            Ok(Delta::Reasoning("Counting.".into())),
            Ok(Delta::Content("one ".into())),
            Ok(Delta::Content("two ".into())),
            Ok(Delta::Content("three".into())),
            Ok(Delta::Usage(usage)),
        ]
    );
    let body = &s.requests()[0].body;
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn two_tool_calls_are_assembled_from_fragments() {
    let script = json!({"responses": [{"match": "search", "times": -1, "tool_calls": [
        {"name": "search_my_dataset", "arguments": {"query": "rust async"}},
        {"name": "fetch_page", "arguments": {"url": "https://example.com/a?b=c"}}
    ]}]});
    let s = server(script);
    let p = provider(&s);
    let mut r = request("search it");
    r.tools = vec![
        json!({"type": "function", "function": {"name": "search_my_dataset", "parameters": {}}}),
        json!({"type": "function", "function": {"name": "fetch_page", "parameters": {}}}),
    ];
    let deltas = collect(&p, r.clone()).await;
    assert_eq!(
        deltas,
        vec![
            Ok(Delta::ToolCall(call(
                "call_0_0",
                "search_my_dataset",
                r#"{"query": "rust async"}"#
            ))),
            Ok(Delta::ToolCall(call(
                "call_0_1",
                "fetch_page",
                r#"{"url": "https://example.com/a?b=c"}"#
            ))),
        ]
    );
    let body = &s.requests()[0].body;
    assert_eq!(body["tool_choice"], json!("auto"));
    assert_eq!(body["tools"].as_array().map(Vec::len), Some(2));
    let whole = p.chat(r).await.expect("answer");
    assert_eq!(whole.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        whole.tool_calls,
        vec![
            call(
                "call_1_0",
                "search_my_dataset",
                r#"{"query": "rust async"}"#
            ),
            call(
                "call_1_1",
                "fetch_page",
                r#"{"url": "https://example.com/a?b=c"}"#
            ),
        ]
    );
}

#[tokio::test]
async fn rate_limit_is_retried_then_answered() {
    let s = server(json!([{"status": 429, "times": 2}, {"content": "ok"}]));
    let p = provider(&s);
    let mut r = request("hi");
    r.max_retries = Some(3);
    r.retry_delay = Some(0.005);
    let answer = p.chat(r.clone()).await.expect("answer after retries");
    assert_eq!(answer.content, "ok");
    let seen: Vec<(Option<usize>, u16)> =
        s.requests().iter().map(|q| (q.entry, q.status)).collect();
    assert_eq!(seen, vec![(Some(0), 429), (Some(0), 429), (Some(1), 200)]);

    // The same through a stream: nothing was yielded before the 429, so it is retried.
    let s = server(json!([{"status": 429}, {"content": "streamed"}]));
    let deltas = collect(&provider(&s), r).await;
    assert_eq!(deltas, vec![Ok(Delta::Content("streamed".into()))]);
    assert_eq!(s.request_count(), 2);
}

#[tokio::test]
async fn server_errors_exhaust_retries_with_ragflow_error_text() {
    let s = server(json!([{"status": 503, "times": -1, "error": "upstream overloaded"}]));
    let p = provider(&s);
    let mut r = request("hi");
    r.max_retries = Some(2);
    r.retry_delay = Some(0.001);
    let e = p.chat(r.clone()).await.expect_err("503 every time");
    assert_eq!(e.code, ERROR_MAX_RETRIES);
    assert_eq!(
        e.to_string(),
        "**ERROR**: MAX_RETRIES_EXCEEDED - Error code: 503 - {'error': {'message': 'upstream \
         overloaded', 'type': 'server_error', 'param': None, 'code': None}}"
    );
    assert_eq!(s.request_count(), 3);
    let deltas = collect(&p, r).await;
    assert!(
        matches!(&deltas[..], [Err(e)] if e.code == ERROR_MAX_RETRIES),
        "{deltas:?}"
    );
    assert_eq!(s.request_count(), 6);

    // A client error is not retried, and keeps RAGFlow's classification.
    let s = server(json!([{"error": "bad parameter"}]));
    let mut r = request("hi");
    r.max_retries = Some(2);
    let e = provider(&s).chat(r).await.expect_err("400");
    assert_eq!(e.code, ERROR_INVALID_REQUEST);
    assert!(e.message.starts_with("Error code: 400 - "), "{e}");
    assert_eq!(s.request_count(), 1);
}

#[tokio::test]
async fn a_stream_broken_mid_answer_is_an_error_and_not_retried() {
    let s = server(json!([
        {"chunks": ["It ", "is ", "sunny."], "error": "broken-stream"},
        {"content": "a retry must not reach this"}
    ]));
    let deltas = collect(&provider(&s), request("weather")).await;
    assert_eq!(
        deltas,
        vec![
            Ok(Delta::Content("It ".into())),
            Err(LlmError::new(ERROR_CONNECTION, BROKEN_STREAM)),
        ]
    );
    assert_eq!(s.request_count(), 1);
}

#[tokio::test]
async fn dropping_a_stream_closes_the_connection() {
    let chunks: Vec<String> = (0..200).map(|i| format!("w{i} ")).collect();
    let s = server(json!([{"chunks": chunks, "delay_ms": 10}]));
    let p = provider(&s);
    let mut stream = p.chat_stream(request("long"));
    assert_eq!(stream.next().await, Some(Ok(Delta::Content("w0 ".into()))));
    assert_eq!(stream.next().await, Some(Ok(Delta::Content("w1 ".into()))));
    assert_eq!(s.disconnects(), 0);
    drop(stream);
    assert!(
        s.wait_for_disconnects(1, Duration::from_secs(5)).await,
        "the server never saw the connection close"
    );
}

#[tokio::test]
async fn timeouts_unreachable_hosts_and_unconfigured_models() {
    let s = server(json!([{"content": "late", "delay_ms": 3000}]));
    let mut config = LlmConfig::single(&s.base_url(), None);
    config.client.timeout = Duration::from_millis(200);
    let p = OpenAiProvider::new(Services::default().http, config);
    let mut r = request("x");
    r.max_retries = Some(3);
    let e = p.chat(r).await.expect_err("timeout");
    assert_eq!(e.code, ERROR_TIMEOUT, "{e}");
    assert_eq!(s.request_count(), 1, "timeouts are not retried");

    // Nothing listens on the port: a connection error, retried, then given up.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let mut config = LlmConfig::single(&format!("http://127.0.0.1:{port}/v1"), None);
    config.client.retry_delay = Duration::from_millis(1);
    let p = OpenAiProvider::new(Services::default().http, config);
    let mut r = request("x");
    r.max_retries = Some(1);
    let e = p.chat(r.clone()).await.expect_err("refused");
    assert_eq!(e.code, ERROR_MAX_RETRIES);
    assert!(e.message.starts_with("Connection error"), "{e}");
    let deltas = collect(&p, r).await;
    assert!(matches!(&deltas[..], [Err(e)] if e.message.starts_with("Connection error")));

    let p = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::from_toml_str("", &|_| None).expect("empty config"),
    );
    let e = p.chat(request("x")).await.expect_err("unconfigured");
    assert_eq!(e.code, ERROR_MODEL);
    assert!(e.message.contains("`gpt-test@OpenAI`"), "{e}");
}

/// A hand-written stream with everything servers are seen to send: comments, keep-alive
/// lines, `null`s, chunks without choices or delta, `reasoning` instead of
/// `reasoning_content`, tool calls without an index, no `[DONE]` after the finish reason.
#[tokio::test]
async fn lenient_about_what_real_servers_stream() {
    use axum::http::header;
    let body = concat!(
        ": keep-alive\n\n",
        "data: {\"choices\": [{\"index\": 0, \"delta\": {\"role\": \"assistant\", \"content\": null}}]}\n\n",
        "data: keepalive\n\n",
        "data: {\"choices\": []}\n\n",
        "data: {\"choices\": [{\"index\": 0}], \"extra\": true}\n\n",
        "data: {\"choices\": [{\"delta\": {\"reasoning\": \"r\", \"content\": \"\"}}]}\n\n",
        "data: {\"choices\": [{\"delta\": {\"tool_calls\": [{\"id\": \"t1\", \"function\": {\"name\": \"f\", \"arguments\": \"{\\\"a\\\"\"}}]}}]}\n\n",
        "data: {\"choices\": [{\"delta\": {\"tool_calls\": [{\"function\": {\"arguments\": \": 1}\"}}]}}]}\n\n",
        "data: {\"choices\": [{\"delta\": {\"content\": \"hi\"}, \"finish_reason\": \"stop\"}], \"usage\": null}\n\n",
    );
    let json_answer =
        r#"{"choices": [{"message": {"content": "whole"}, "finish_reason": "stop"}]}"#;
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            axum::routing::post(move || async move {
                ([(header::CONTENT_TYPE, "text/event-stream")], body)
            }),
        )
        .route(
            "/json/v1/chat/completions",
            axum::routing::post(move || async move {
                ([(header::CONTENT_TYPE, "application/json")], json_answer)
            }),
        )
        .route(
            "/err/v1/chat/completions",
            axum::routing::post(move || async move {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"error": {"message": "model overloaded"}}"#,
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });
    let p = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::single(&format!("http://{addr}/v1"), None),
    );
    let deltas = collect(&p, request("x")).await;
    assert_eq!(
        deltas,
        vec![
            Ok(Delta::Reasoning("r".into())),
            Ok(Delta::ToolCall(call("t1", "f", r#"{"a": 1}"#))),
            Ok(Delta::Content("hi".into())),
        ]
    );
    // A server that ignores `stream: true` and answers with one completion.
    let p = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::single(&format!("http://{addr}/json/v1"), None),
    );
    assert_eq!(
        collect(&p, request("x")).await,
        vec![Ok(Delta::Content("whole".into()))]
    );
    // A failure reported inside a 200 answer.
    let p = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::single(&format!("http://{addr}/err/v1"), None),
    );
    let expected = LlmError::new(ERROR_MODEL, "Error: model overloaded");
    assert_eq!(collect(&p, request("x")).await, vec![Err(expected.clone())]);
    assert_eq!(p.chat(request("x")).await, Err(expected));
    serving.abort();
}

/// scripted-llm.md: the same file gives the same answers in process and over HTTP.
#[tokio::test]
async fn in_process_and_http_give_the_same_answers() {
    let scripts = [
        json!({"chunking": "words", "usage": true, "responses": [
            {"match": "weather", "content": "It is sunny today.", "reasoning": "Check the sky."},
            {"match": "plan", "reasoning": "Think first.", "tool_calls": [{"name": "web", "arguments": {"q": "z"}}],
             "content": "Then answer."},
            {"match": "search", "tool_calls": [{"name": "search_my_dateset_0", "arguments": {"query": "x"}},
                                                 {"name": "web", "arguments": "{\"q\": \"y\"}"}],
             "content": "Looking.", "times": 2}
        ]}),
        json!({"chunking": 3, "default": "I do not know.", "responses": [
            {"match": ["alpha", "terse"], "content": "Ünïcödé ✓ answer"},
            {"chunks": ["a", "", "b"], "match": "beta"}
        ]}),
        json!([{"match": "cut", "chunks": ["first ", "second"], "error": "broken-stream", "times": -1},
               {"content": "after"}]),
    ];
    let questions = [
        "weather?",
        "search please",
        "search again",
        "plan it",
        "alpha",
        "beta",
        "echo me",
        "weather?",
        "cut",
    ];
    for script in scripts {
        let parsed = Script::parse(&script).expect("valid");
        let local = ScriptedProvider::new(parsed.clone());
        let s = ScriptedServer::start(parsed);
        let remote = provider(&s);
        for q in questions {
            let mut r = request(q);
            if q.starts_with("search") || q.starts_with("plan") {
                r.tools = vec![json!({"type": "function", "function": {"name": "web"}})];
            }
            let a = collect(&local, r.clone()).await;
            let b = collect(&remote, r.clone()).await;
            assert_eq!(a, b, "streamed {q:?} with {script}");
            if q != "cut" {
                let a = local.chat(r.clone()).await;
                let b = remote.chat(r).await;
                assert_eq!(a, b, "answered {q:?} with {script}");
            }
        }
    }
}
