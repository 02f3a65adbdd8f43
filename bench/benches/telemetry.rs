//! Telemetry overhead: one turn of a 100-node chain (compiled and interpreted) and one turn of
//! an Agent whose answer (200 chunks, scripted in process) streams into a Message, under the
//! subscriber `CANVASC_BENCH_TELEMETRY` names (one per process: tracing caches each call
//! site's interest process-wide, so modes are not mixed in one process):
//!
//! * `none`: no subscriber at all (the engine as a library);
//! * `off`: what `canvasc run`/`serve` install without an OTLP endpoint (the log layer at
//!   `warn`), i.e. export off;
//! * `noop`: the OpenTelemetry layer and batch processor with an exporter that drops every
//!   batch;
//! * `collector`: OTLP/HTTP export to a live receiver on 127.0.0.1 (in this process).
//!
//! ```text
//! for m in none off noop collector; do
//!   CANVASC_BENCH_TELEMETRY=$m cargo bench -p canvasc-bench --bench telemetry
//! done
//! ```

use axum::body::Bytes;
use axum::routing::post;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::random::PyRandom;
use canvasc_engine::{
    Program, ProgramVisitor, Published, RunInput, RunOutcome, Services, SharedRandom,
};
use canvasc_frontend::analyze;
use canvasc_host::telemetry::{log_layer, otel_layer, otlp_provider, Export, TelemetryConfig};
use canvasc_tests::{synthetic, workspace_root};
use canvasc_value::Json;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::json;
use std::sync::{Arc, LazyLock, Mutex};
use tracing_subscriber::layer::SubscriberExt;

#[allow(dead_code)]
mod compiled {
    include!(concat!(env!("OUT_DIR"), "/compiled.rs"));
}

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

static RANDOM: LazyLock<SharedRandom> = LazyLock::new(|| Arc::new(Mutex::new(PyRandom::seeded(0))));

/// An exporter that drops what it is given (the cost of the layer and the batch processor
/// without a network).
#[derive(Debug)]
struct Discard;

impl SpanExporter for Discard {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        drop(batch);
        Ok(())
    }
}

/// A receiver that accepts every OTLP export on 127.0.0.1; returns its base URL.
fn live_collector() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the collector's runtime");
        rt.block_on(async move {
            let app = axum::Router::new().route(
                "/v1/traces",
                post(|body: Bytes| async move {
                    drop(body);
                    (
                        [("content-type", "application/x-protobuf")],
                        Vec::<u8>::new(),
                    )
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("the collector binds 127.0.0.1");
            let addr = listener.local_addr().expect("an address");
            tx.send(format!("http://{addr}")).expect("the bench waits");
            axum::serve(listener, app)
                .await
                .expect("the collector serves");
        });
    });
    rx.recv().expect("the collector starts")
}

/// Installs the subscriber of `mode`; the provider (if any) must be flushed at the end.
fn install(mode: &str) -> Option<SdkTracerProvider> {
    let config = TelemetryConfig {
        log_filter: "warn".into(),
        ..TelemetryConfig::default()
    };
    let provider = match mode {
        "none" => return None,
        "off" => None,
        "noop" => Some(
            SdkTracerProvider::builder()
                .with_batch_exporter(Discard)
                .build(),
        ),
        "collector" => Some(
            otlp_provider(
                &Export::Url(format!("{}/v1/traces", live_collector())),
                "canvasc-bench",
            )
            .expect("the exporter builds"),
        ),
        other => panic!("CANVASC_BENCH_TELEMETRY={other}: none, off, noop or collector"),
    };
    let subscriber = tracing_subscriber::registry()
        .with(log_layer(&config))
        .with(provider.as_ref().map(otel_layer));
    tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
    provider
}

async fn turn<P: Program>(canvas: &Published<P>, services: &Services, query: &str) {
    let session = canvas.session(services.clone(), RANDOM.clone());
    let mut sink = |_: canvasc_engine::events::Event| {};
    let input = RunInput {
        query: Some(Json::String(query.into())),
        inputs: Some(json!({})),
        ..RunInput::default()
    };
    let outcome = session.run(input, &mut sink).await;
    assert_eq!(outcome, RunOutcome::Finished);
}

struct Chain<'c> {
    c: &'c mut Criterion,
    mode: String,
}

impl ProgramVisitor for Chain<'_> {
    type Output = ();

    fn visit<P: Program>(self, compiled: Arc<P>) {
        let analysis = analyze(&synthetic::chain(100)).expect("a canvas");
        let dsl = Arc::new(analysis.document.dsl.clone());
        let interpreted = Published::new(
            Arc::new(Interpreter::from_analysis(&analysis)),
            Arc::clone(&dsl),
        );
        let compiled = Published::new(compiled, dsl);
        let services = Services::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut group = self.c.benchmark_group("telemetry/chain_100");
        group.sample_size(30);
        group.throughput(Throughput::Elements(100));
        group.bench_function(BenchmarkId::new("compiled", &self.mode), |b| {
            b.iter(|| rt.block_on(turn(&compiled, &services, "bench")));
        });
        group.bench_function(BenchmarkId::new("interpreted", &self.mode), |b| {
            b.iter(|| rt.block_on(turn(&interpreted, &services, "bench")));
        });
        group.finish();
    }
}

/// Begin → Agent (no tools) → Message, the Agent's answer streamed into the Message.
fn agent_canvas() -> String {
    let path = workspace_root().join("fixtures/valid/agent-sub-agents.json");
    let text = std::fs::read_to_string(path).expect("the fixture");
    let mut dsl: Json = serde_json::from_str(&text).expect("JSON");
    if let Some(tools) = dsl.pointer_mut("/components/Agent:Lead/obj/params/tools") {
        *tools = json!([]);
    }
    dsl.to_string()
}

/// The answer: 200 chunks.
fn agent_script() -> Script {
    let chunks: Vec<String> = (0..200).map(|i| format!("word{i} ")).collect();
    Script::parse(&json!({
        "usage": true,
        "responses": [{"match": "Plan", "chunks": chunks, "times": -1}],
    }))
    .expect("the script parses")
}

fn bench(c: &mut Criterion) {
    let mode = std::env::var("CANVASC_BENCH_TELEMETRY").unwrap_or_else(|_| "none".into());
    let provider = install(&mode);
    eprintln!("telemetry mode: {mode}");
    let chain = Chain {
        c: &mut *c,
        mode: mode.clone(),
    };
    if compiled::visit("chain_100", chain).is_none() {
        eprintln!("chain_100 is not compiled in this build (CANVASC_BENCH_ONLY), skipped");
    }

    let analysis = analyze(&agent_canvas()).expect("a canvas");
    let agent = Published::new(
        Arc::new(Interpreter::from_analysis(&analysis)),
        analysis.document.dsl.clone(),
    );
    let services = Services {
        llm: Some(Arc::new(ScriptedProvider::new(agent_script()))),
        ..Services::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("telemetry/agent_stream_200");
    group.sample_size(30);
    group.bench_function(BenchmarkId::new("interpreted", &mode), |b| {
        b.iter(|| rt.block_on(turn(&agent, &services, "Plan the X1 launch")));
    });
    group.finish();
    if let Some(p) = provider {
        let _ = p.force_flush();
        let _ = p.shutdown();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
