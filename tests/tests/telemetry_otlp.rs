//! Telemetry end to end: an Agent that calls two tools (sub-agents) and streams its answer
//! into a Message, run interpreted and compiled (`generated/`), its spans exported over
//! OTLP/HTTP to a collector written for this test on 127.0.0.1 (it decodes the protobuf
//! export requests). The span tree and its attributes must be the same for both back-ends
//! but for `canvasc.mode`; every model request carries the `traceparent` of its model span;
//! and a planted secret (the model key, an `Authorization` run header) appears in no span
//! and no log line.

use axum::body::Bytes;
use axum::routing::post;
use axum::Router;
use canvasc_engine::events::Event;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::random::PyRandom;
use canvasc_engine::telemetry::RunLabels;
use canvasc_engine::{Program, ProgramVisitor, RunInput, RunOutcome, Services, Session};
use canvasc_frontend::analyze;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_host::telemetry::{install_propagation, otel_layer, otlp_provider, Export};
use canvasc_tests::scripted_server::ScriptedServer;
use canvasc_tests::workspace_root;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use prost::Message as _;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::{Arc, Mutex};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

const MODEL_KEY: &str = "sk-planted-model-key-5b1d9c";
const RUN_HEADER_SECRET: &str = "planted-bearer-77e0aa";

/// One exported span, as the collector decoded it.
#[derive(Clone, Debug)]
struct Span {
    trace: String,
    id: String,
    parent: String,
    name: String,
    attrs: BTreeMap<String, String>,
    error: bool,
}

/// What the collector received.
#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    services: BTreeSet<String>,
}

/// An OTLP/HTTP receiver (`POST /v1/traces`, protobuf) on its own runtime thread.
struct Collector {
    base: String,
    received: Arc<Mutex<Received>>,
}

fn text(v: &Option<opentelemetry_proto::tonic::common::v1::AnyValue>) -> String {
    match v.as_ref().and_then(|v| v.value.as_ref()) {
        Some(AnyValue::StringValue(s)) => s.clone(),
        Some(AnyValue::IntValue(i)) => i.to_string(),
        Some(AnyValue::DoubleValue(d)) => d.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn attributes(kvs: &[KeyValue]) -> BTreeMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), text(&kv.value)))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Collector {
    fn start() -> Collector {
        let received = Arc::new(Mutex::new(Received::default()));
        let shared = Arc::clone(&received);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the collector's runtime");
            rt.block_on(async move {
                let app = Router::new().route(
                    "/v1/traces",
                    post(move |body: Bytes| {
                        let shared = Arc::clone(&shared);
                        async move {
                            let request = ExportTraceServiceRequest::decode(body)
                                .expect("an OTLP protobuf export request");
                            let mut got = shared.lock().expect("the collector's lock");
                            for rs in request.resource_spans {
                                if let Some(resource) = &rs.resource {
                                    if let Some(name) =
                                        attributes(&resource.attributes).get("service.name")
                                    {
                                        got.services.insert(name.clone());
                                    }
                                }
                                for ss in rs.scope_spans {
                                    for s in ss.spans {
                                        got.spans.push(Span {
                                            trace: hex(&s.trace_id),
                                            id: hex(&s.span_id),
                                            parent: hex(&s.parent_span_id),
                                            name: s.name.clone(),
                                            attrs: attributes(&s.attributes),
                                            // STATUS_CODE_ERROR
                                            error: s.status.as_ref().is_some_and(|st| st.code == 2),
                                        });
                                    }
                                }
                            }
                            // An empty ExportTraceServiceResponse.
                            (
                                [("content-type", "application/x-protobuf")],
                                Vec::<u8>::new(),
                            )
                        }
                    }),
                );
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("the collector binds 127.0.0.1");
                let addr = listener.local_addr().expect("an address");
                tx.send(format!("http://{addr}")).expect("the test waits");
                axum::serve(listener, app)
                    .await
                    .expect("the collector serves");
            });
        });
        Collector {
            base: rx.recv().expect("the collector starts"),
            received,
        }
    }
}

/// Log lines, captured.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the log lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const FIXTURE: &str = "fixtures/valid/agent-sub-agents.json";

fn services(llm: &ScriptedServer, session: &str, fp: &str) -> Services {
    let provider = OpenAiProvider::new(
        Services::default().http,
        LlmConfig::single(&llm.base_url(), Some(MODEL_KEY)),
    );
    Services {
        llm: Some(Arc::new(provider)),
        custom_header: Arc::new([(
            "Authorization".to_string(),
            format!("Bearer {RUN_HEADER_SECRET}"),
        )]),
        run_labels: RunLabels {
            canvas_id: Some("agent-sub-agents".into()),
            session_id: Some(session.into()),
            fingerprint: Some(fp.into()),
        },
        ..Services::default()
    }
}

/// Runs one turn of the fixture with `program`.
struct RunTurn {
    dsl: serde_json::Map<String, Json>,
    services: Services,
    rt: Arc<tokio::runtime::Runtime>,
}

impl ProgramVisitor for RunTurn {
    type Output = (RunOutcome, Vec<Json>);

    fn visit<P: Program>(self, program: Arc<P>) -> Self::Output {
        let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
        let session = Session::new(program, self.dsl, self.services, rng, true);
        let mut events = Vec::new();
        let outcome = self.rt.block_on(async {
            let mut sink = |ev: Event<'_>| events.push(ev.to_json());
            session
                .run(
                    RunInput {
                        query: Some(json!("Plan the X1 launch")),
                        user_id: Some(json!("user-1")),
                        inputs: Some(json!({})),
                        ..RunInput::default()
                    },
                    &mut sink,
                )
                .await
        });
        (outcome, events)
    }
}

/// The span tree under `root`, as text: each span's name and the attributes both back-ends
/// must agree on, children sorted.
fn shape(spans: &[Span], root: &Span, depth: usize) -> String {
    const KEYS: &[&str] = &[
        "canvasc.outcome",
        "canvasc.canvas_id",
        "canvasc.fingerprint",
        "canvasc.component.id",
        "canvasc.component.kind",
        "canvasc.component.name",
        "canvasc.component.attempt",
        "canvasc.component.outcome",
        "gen_ai.operation.name",
        "gen_ai.request.model",
        "gen_ai.request.stream",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.tool.name",
        "canvasc.tool.outcome",
    ];
    let attrs: Vec<String> = KEYS
        .iter()
        .filter_map(|k| root.attrs.get(*k).map(|v| format!("{k}={v}")))
        .collect();
    let mut children: Vec<String> = spans
        .iter()
        .filter(|s| s.parent == root.id && s.trace == root.trace)
        .map(|c| shape(spans, c, depth + 1))
        .collect();
    children.sort();
    format!(
        "{}{} [{}]\n{}",
        "  ".repeat(depth),
        root.name,
        attrs.join(" "),
        children.concat()
    )
}

fn children<'a>(spans: &'a [Span], parent: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| s.parent == parent.id && s.trace == parent.trace)
        .collect()
}

fn is_chat(s: &Span) -> bool {
    s.attrs.get("gen_ai.operation.name").map(String::as_str) == Some("chat")
}

#[test]
fn agent_run_spans_reach_an_otlp_collector_alike_on_both_back_ends() {
    let collector = Collector::start();
    let provider = otlp_provider(
        &Export::Url(format!("{}/v1/traces", collector.base)),
        "canvasc-telemetry-test",
    )
    .expect("the exporter builds");
    let logs = Captured::default();
    let writer = logs.clone();
    let log_layer = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(move || writer.clone())
        .with_filter(tracing_subscriber::filter::LevelFilter::TRACE);
    let subscriber = tracing_subscriber::registry()
        .with(otel_layer(&provider))
        .with(log_layer);
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    install_propagation();

    let root = workspace_root();
    let text = std::fs::read_to_string(root.join(FIXTURE)).expect("the fixture");
    let analysis = analyze(&text).expect("the fixture loads");
    let fp = fingerprint(&analysis.document);
    let script_text = std::fs::read_to_string(root.join("fixtures/scripts/agent-sub-agents.json"))
        .expect("the script");
    let mut script: Json = serde_json::from_str(&script_text).expect("the script is JSON");
    script["llm"]["usage"] = json!(true);
    // One model per back-end: the script's tool-call answer is given once.
    let llm_interpreted =
        ScriptedServer::from_json(&script["llm"]).expect("the scripted model starts");
    let llm_compiled =
        ScriptedServer::from_json(&script["llm"]).expect("the scripted model starts");
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime"),
    );

    let interpreted = RunTurn {
        dsl: analysis.document.dsl.clone(),
        services: services(&llm_interpreted, "session-interpreted", &fp),
        rt: Arc::clone(&rt),
    }
    .visit(Arc::new(Interpreter::from_analysis(&analysis)));
    let compiled = canvasc_generated::visit(
        &fp,
        RunTurn {
            dsl: analysis.document.dsl.clone(),
            services: services(&llm_compiled, "session-compiled", &fp),
            rt: Arc::clone(&rt),
        },
    )
    .expect("generated/ carries the fixture");
    assert_eq!(interpreted.0, RunOutcome::Finished, "{:?}", interpreted.1);
    assert_eq!(compiled.0, RunOutcome::Finished);
    let names = |events: &[Json]| -> Vec<String> {
        events
            .iter()
            .map(|e| e["event"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(&interpreted.1), names(&compiled.1));

    provider.force_flush().expect("the spans are exported");
    let received = collector.received.lock().expect("the collector's lock");
    let spans = &received.spans;
    assert!(
        received.services.contains("canvasc-telemetry-test"),
        "{:?}",
        received.services
    );

    // One run span per back-end, each the root of its own trace.
    let runs: Vec<&Span> = spans.iter().filter(|s| s.name == "canvasc.run").collect();
    assert_eq!(runs.len(), 2, "{spans:#?}");
    let run_of = |mode: &str| {
        *runs
            .iter()
            .find(|r| r.attrs.get("canvasc.mode").map(String::as_str) == Some(mode))
            .unwrap_or_else(|| panic!("no {mode} run span in {runs:#?}"))
    };
    let (interp, comp) = (run_of("interpreted"), run_of("compiled"));
    assert_ne!(interp.trace, comp.trace);
    for (run, session) in [(interp, "session-interpreted"), (comp, "session-compiled")] {
        assert!(run.parent.is_empty(), "a run without a request is a root");
        assert_eq!(run.attrs["canvasc.canvas_id"], "agent-sub-agents");
        assert_eq!(run.attrs["canvasc.session_id"], session);
        assert_eq!(run.attrs["canvasc.fingerprint"], fp);
        assert_eq!(run.attrs["canvasc.outcome"], "finished");
        assert!(!run.error);

        // Begin, the Agent and the Message, each a component span under the run.
        let components = children(spans, run);
        let ids: BTreeSet<&str> = components
            .iter()
            .map(|c| {
                c.attrs
                    .get("canvasc.component.id")
                    .unwrap_or_else(|| panic!("a run's child that is no component: {c:?}"))
                    .as_str()
            })
            .collect();
        assert_eq!(
            ids,
            BTreeSet::from(["begin", "Agent:Lead", "Message:Answer"]),
            "{components:#?}"
        );
        for c in &components {
            assert_eq!(c.attrs["canvasc.component.outcome"], "ok", "{c:?}");
            assert_eq!(c.attrs["canvasc.component.attempt"], "1");
            assert!(c.attrs.contains_key("canvasc.component.kind"));
            assert!(c.attrs.contains_key("canvasc.component.name"));
        }
        let agent = components
            .iter()
            .find(|c| c.attrs["canvasc.component.id"] == "Agent:Lead")
            .expect("the Agent's span");
        assert_eq!(agent.attrs["canvasc.component.kind"], "Agent");
        assert_eq!(agent.name, "Agent Agent:Lead");

        // The Agent's model calls (the round that calls the tools, the streamed answer) and
        // its two tool calls, each tool (a sub-agent) with its own model call.
        let under_agent = children(spans, agent);
        let chats: Vec<&&Span> = under_agent.iter().filter(|s| is_chat(s)).collect();
        assert!(chats.len() >= 2, "{under_agent:#?}");
        let tools: BTreeSet<&str> = under_agent
            .iter()
            .filter_map(|s| s.attrs.get("gen_ai.tool.name").map(String::as_str))
            .collect();
        assert_eq!(tools, BTreeSet::from(["Fact_Finder_0", "Style_Critic_1"]));
        for tool in under_agent
            .iter()
            .filter(|s| s.attrs.contains_key("gen_ai.tool.name"))
        {
            assert_eq!(tool.attrs["gen_ai.operation.name"], "execute_tool");
            assert_eq!(tool.attrs["canvasc.tool.outcome"], "ok");
            assert!(
                children(spans, tool).iter().any(|s| is_chat(s)),
                "the sub-agent's model call runs inside its tool span: {tool:?}"
            );
        }
        let streamed = chats
            .iter()
            .find(|c| c.attrs.get("gen_ai.request.stream").map(String::as_str) == Some("true"))
            .expect("the Agent streams its answer to the Message");
        assert!(
            streamed
                .attrs
                .get("gen_ai.response.time_to_first_token")
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(|t| t >= 0.0),
            "{streamed:?}"
        );
    }
    for chat in spans.iter().filter(|s| is_chat(s)) {
        assert_eq!(
            chat.attrs["gen_ai.request.model"], "scripted-chat",
            "{chat:?}"
        );
        assert_eq!(chat.name, "chat scripted-chat");
        let tokens = |k: &str| {
            chat.attrs
                .get(k)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("{k} missing: {chat:?}"))
        };
        assert!(tokens("gen_ai.usage.input_tokens") > 0, "{chat:?}");
        tokens("gen_ai.usage.output_tokens");
    }

    // The same tree for both back-ends.
    assert_eq!(shape(spans, interp, 0), shape(spans, comp, 0));

    // Every model request continued its model call's span.
    for (llm, run) in [(&llm_interpreted, interp), (&llm_compiled, comp)] {
        let requests = llm.requests();
        assert!(requests.len() >= 4, "{}", requests.len());
        for r in &requests {
            let tp = r
                .traceparent
                .as_deref()
                .expect("a traceparent on every model request");
            let parts: Vec<&str> = tp.split('-').collect();
            assert_eq!(parts.len(), 4, "{tp}");
            let parent = spans
                .iter()
                .find(|s| s.trace == parts[1] && s.id == parts[2])
                .unwrap_or_else(|| panic!("{tp} names no exported span"));
            assert!(is_chat(parent), "{tp} is not a model span: {parent:?}");
            assert_eq!(parent.trace, run.trace);
        }
    }

    // No secret anywhere: span names, attributes, log lines.
    let logs = String::from_utf8_lossy(&logs.0.lock().expect("the log lock")).into_owned();
    assert!(!logs.is_empty(), "the log layer captured the run");
    for secret in [MODEL_KEY, RUN_HEADER_SECRET] {
        assert!(!logs.contains(secret), "a log line carries {secret}");
        for s in spans {
            assert!(!s.name.contains(secret), "{s:?}");
            for v in s.attrs.values() {
                assert!(
                    !v.contains(secret),
                    "a span attribute carries {secret}: {s:?}"
                );
            }
        }
    }
    drop(received);
    let _ = provider.shutdown();
}
