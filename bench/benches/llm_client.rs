//! Overhead of the OpenAI-compatible client, against the scripted server on 127.0.0.1.
//!
//! `cargo bench -p canvasc-bench --bench llm_client`
//!
//! * `request/*`: one non-streamed call with a two-letter answer. `provider` is
//!   `OpenAiProvider::chat`; `raw_http` is the same POST with bare reqwest (send, read the
//!   body, no parsing), so `provider - raw_http` is the client's own cost per request.
//! * `stream_1000_tokens/*`: one streamed answer of 1000 one-word chunks (1000 SSE events),
//!   reported per token. `provider` parses and yields every delta; `raw_http` only reads the
//!   bytes, so the difference is the client's cost per streamed token.
//!
//! The server runs on its own thread (its own single-threaded runtime); the client runs on a
//! current-thread runtime, so on a 2-core machine each side has a core.

use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::llm::script::Script;
use canvasc_engine::llm::{ChatMessage, ChatProvider, ChatRequest, Delta};
use canvasc_engine::Services;
use canvasc_tests::scripted_server::ScriptedServer;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures::StreamExt;
use serde_json::json;

const TOKENS: usize = 1000;

fn request(user: &str) -> ChatRequest {
    ChatRequest {
        llm_id: "bench-model".into(),
        messages: vec![
            ChatMessage::new("system", "You are a benchmark."),
            ChatMessage::new("user", user),
        ],
        ..ChatRequest::default()
    }
}

fn setup() -> (ScriptedServer, OpenAiProvider, tokio::runtime::Runtime) {
    let chunks: Vec<String> = (0..TOKENS).map(|i| format!("w{i} ")).collect();
    let script = Script::parse(&json!({"responses": [
        {"match": "tiny", "content": "ok", "times": -1},
        {"match": "long", "chunks": chunks, "times": -1}
    ]}))
    .expect("valid script");
    let server = ScriptedServer::start(script);
    server.set_recording(false);
    let provider = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::single(&server.base_url(), Some("sk-bench")),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    (server, provider, rt)
}

fn raw_body(user: &str, stream: bool) -> serde_json::Value {
    json!({"model": "bench-model", "stream": stream, "messages": [
        {"role": "system", "content": "You are a benchmark."},
        {"role": "user", "content": user}]})
}

fn benches(c: &mut Criterion) {
    let (server, provider, rt) = setup();
    let http = Services::default().http;
    let url = format!("{}/chat/completions", server.base_url());

    // Sanity: the answers are what the benchmark claims to measure.
    let tiny = rt.block_on(provider.chat(request("tiny")));
    assert_eq!(tiny.map(|r| r.content).ok().as_deref(), Some("ok"));
    let n = rt.block_on(async {
        provider
            .chat_stream(request("long"))
            .filter(|d| std::future::ready(matches!(d, Ok(Delta::Content(_)))))
            .count()
            .await
    });
    assert_eq!(n, TOKENS);

    let mut g = c.benchmark_group("request");
    g.throughput(Throughput::Elements(1));
    g.bench_function("provider", |b| {
        b.iter(|| rt.block_on(provider.chat(request("tiny"))))
    });
    let body = raw_body("tiny", false);
    g.bench_function("raw_http", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = http.post(&url).json(&body).send().await.expect("send");
                r.bytes().await.expect("body").len()
            })
        })
    });
    g.finish();

    let mut g = c.benchmark_group("stream_1000_tokens");
    g.throughput(Throughput::Elements(TOKENS as u64));
    g.sample_size(30);
    g.bench_function("provider", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut s = provider.chat_stream(request("long"));
                let mut n = 0usize;
                while let Some(d) = s.next().await {
                    n += matches!(d, Ok(Delta::Content(_))) as usize;
                }
                n
            })
        })
    });
    let body = raw_body("long", true);
    g.bench_function("raw_http", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = http.post(&url).json(&body).send().await.expect("send");
                let mut s = r.bytes_stream();
                let mut n = 0usize;
                while let Some(chunk) = s.next().await {
                    n += chunk.map(|c| c.len()).unwrap_or(0);
                }
                n
            })
        })
    });
    g.finish();
}

criterion_group!(llm_client, benches);
criterion_main!(llm_client);
