//! Runtime fuzzing (issue 31): hostile but plausible input never crashes the engine.
//!
//! Each input is one canvas run, on both back-ends (the interpreter, and `Interpreter::bound`,
//! which binds every reference as compiled code does), with one of:
//! * a DSL parameter of a seed canvas replaced by a hostile value;
//! * a saved session (`str(canvas)`, what a state file holds) with a hostile global;
//! * a scripted model whose answers are hostile text;
//! * an HTTP response body (Invoke's page, or the chat model's wire response) of hostile bytes,
//!   served by a stub on 127.0.0.1.
//!
//! Hostile means deep nesting (as text: the DSL's own JSON stops at serde_json's 128 levels),
//! numbers at and past every integer and float range, invalid UTF-8, wide and zero-width
//! characters, empty and enormous values. A failure is a panic, an abort (the test process dies),
//! a run that takes longer than [`HANG_LIMIT`], or an error that is not RAGFlow's shape: every
//! `_ERROR` is a string and every escaping exception has a Python class name.
//!
//! `PROPTEST_CASES` sets the number of inputs (default 48, what `.ci/run` runs); for a long
//! local run: `PROPTEST_CASES=5000 cargo test -p canvasc-tests --test fuzz_runtime -- --nocapture`.
//! Parameters whose extreme values make RAGFlow itself run for ever (retry counts and delays,
//! loop counts, agent rounds) are not mutated: a hang there is the reference behaviour.

use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::random::PyRandom;
use canvasc_engine::{Published, RunInput, RunOutcome, Services, Session};
use canvasc_frontend::analyze;
use canvasc_tests::fixture_files;
use canvasc_value::{Json, Map};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A run taking longer than this is a hang.
const HANG_LIMIT: Duration = Duration::from_secs(30);

/// Parameters left alone (see the module documentation).
const NOT_MUTATED: &[&str] = &[
    "max_retries",
    "delay_after_error",
    "maximum_loop_count",
    "max_rounds",
    "loop_termination_condition",
];

/// Python's exception classes an escaping error may carry.
const PYTHON_CLASSES: &[&str] = &[
    "Exception",
    "TypeError",
    "ValueError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "RecursionError",
    "OverflowError",
    "JSONDecodeError",
    "ZeroDivisionError",
    "AssertionError",
    "NameError",
    "RuntimeError",
    "TimeoutError",
    "TaskCanceledException",
    "UndefinedError",
    "TemplateSyntaxError",
    "TemplateError",
    "SyntaxError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "NotImplementedError",
    "LookupError",
    "StopIteration",
];

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

/// Text that opens `n` levels of one nesting syntax (JSON, Python literals, HTML, Jinja).
fn nesting(kind: u8, n: usize) -> String {
    match kind % 8 {
        0 => "[".repeat(n),
        1 => format!("{}{}", "[".repeat(n), "]".repeat(n)),
        2 => "{\"a\":".repeat(n),
        3 => format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n)),
        4 => format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        5 => "{% if 1 %}".repeat(n),
        6 => format!("{}{}", "{{".repeat(n), "}}".repeat(n)),
        _ => format!("{}0{}", "{'a': [".repeat(n), "]}".repeat(n)),
    }
}

fn depth() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(1usize),
        Just(127),
        Just(200),
        Just(491),
        Just(492),
        Just(1000),
        Just(20_000),
        Just(100_000),
        1usize..3000,
    ]
}

/// Numbers at and past the edges of every integer and float type, as JSON text.
fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("9223372036854775807".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("-9223372036854775809".to_string()),
        Just("4294967296".to_string()),
        Just("9223372037".to_string()),
        Just("1e300".to_string()),
        Just("-1e300".to_string()),
        Just("1e-320".to_string()),
        Just("1.7976931348623157e308".to_string()),
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("0.5".to_string()),
        Just("99999999999999999999999999999999".to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
    ]
}

/// Wide, zero-width, combining and control characters.
fn odd_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_string()),
        Just("😀👨‍👩‍👧‍👦𝕏中文한국어".to_string()),
        Just("e\u{301}\u{200b}\u{200d}\u{fe0f}\u{202e}".to_string()),
        Just("\u{0}\u{1}\u{7f}\u{85}\u{2028}".to_string()),
        Just("{sys.query}{begin@x}{{ x }}{% raw %}".to_string()),
        Just("\\u0000\\ud800\\\\\"'".to_string()),
        "\\PC{0,40}",
        (0usize..300_000).prop_map(|n| "a".repeat(n)),
        // Dotted paths as deep as a DSL string can spell (assignment targets, output paths).
        (0usize..100_000).prop_map(|n| format!("begin@x{}", ".a".repeat(n))),
        (0usize..100_000).prop_map(|n| "中".repeat(n)),
    ]
}

/// A hostile value for a JSON slot (a DSL parameter or a global).
fn hostile_json() -> impl Strategy<Value = Json> {
    prop_oneof![
        (any::<u8>(), depth()).prop_map(|(k, n)| Json::String(nesting(k, n))),
        number_text().prop_map(|t| serde_json::from_str(&t).unwrap_or(Json::String(t))),
        number_text().prop_map(Json::String),
        odd_text().prop_map(Json::String),
        (1usize..100).prop_map(|n| {
            let mut v = json!(1);
            for _ in 0..n {
                v = json!([v]);
            }
            v
        }),
        (0usize..20_000).prop_map(|n| Json::Array((0..n).map(|i| json!(i)).collect())),
        // Long lists Python cannot order (sorts of 64+ items take CPython's merge path).
        (0usize..300, 0usize..300).prop_map(|(n, at)| {
            let mut items: Vec<Json> = (0..n).rev().map(|i| json!(i)).collect();
            items.insert(at.min(n), json!("a"));
            Json::Array(items)
        }),
        proptest::collection::vec(
            prop_oneof![
                number_text().prop_map(|t| serde_json::from_str(&t).unwrap_or(Json::String(t))),
                odd_text().prop_map(Json::String),
                Just(Json::Null),
                Just(json!({"k": 1})),
                Just(json!([1, "x"])),
            ],
            0..200
        )
        .prop_map(Json::Array),
        Just(json!([3, "a", 1.5, null, [1], {"k": 1}, true])),
        Just(json!({})),
        Just(json!([])),
        Just(Json::Null),
        Just(json!(true)),
    ]
}

/// A hostile body: text from above, or bytes that are not UTF-8.
fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (any::<u8>(), depth()).prop_map(|(k, n)| nesting(k, n).into_bytes()),
        odd_text().prop_map(String::into_bytes),
        number_text().prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..4096),
        Just(b"\xff\xfe<html>\xc3\x28 \xe2\x82</html>".to_vec()),
    ]
}

/// A chat-completions response the way a hostile or broken server might send it: SSE chunks
/// with hostile usage counts and tool-call indices, or a plain body.
fn model_body() -> impl Strategy<Value = (Vec<u8>, &'static str)> {
    let chunk = (number_text(), number_text(), odd_text(), any::<bool>()).prop_map(
        |(usage, index, text, tool)| {
            if tool {
                format!(
                    "data: {{\"choices\":[{{\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"id\":\"c\",\"function\":{{\"name\":\"f\",\"arguments\":{}}}}}]}}}}]}}\n\n",
                    serde_json::to_string(&text).unwrap_or_default()
                )
            } else {
                format!(
                    "data: {{\"choices\":[{{\"delta\":{{\"content\":{}}}}}],\"usage\":{{\"prompt_tokens\":{usage},\"completion_tokens\":{usage},\"total_tokens\":{index}}}}}\n\n",
                    serde_json::to_string(&text).unwrap_or_default()
                )
            }
        },
    );
    prop_oneof![
        proptest::collection::vec(chunk, 0..4).prop_map(|chunks| {
            let mut body = chunks.concat();
            body.push_str("data: [DONE]\n\n");
            (body.into_bytes(), "text/event-stream")
        }),
        hostile_bytes().prop_map(|b| (b, "text/event-stream")),
        hostile_bytes().prop_map(|b| (b, "application/json")),
    ]
}

// ---------------------------------------------------------------------------------------------
// The stub HTTP server
// ---------------------------------------------------------------------------------------------

/// What the stub answers every request with: body and content type.
type Reply = Arc<Mutex<(Vec<u8>, String)>>;

/// The stub on 127.0.0.1 (started once): its address and its reply.
fn stub() -> &'static (String, Reply) {
    static STUB: OnceLock<(String, Reply)> = OnceLock::new();
    STUB.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address").to_string();
        let reply: Reply = Arc::new(Mutex::new((Vec::new(), "text/plain".into())));
        let served = Arc::clone(&reply);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let served = Arc::clone(&served);
                std::thread::spawn(move || {
                    read_request(&mut stream);
                    let (body, content_type) = served.lock().map(|r| r.clone()).unwrap_or_default();
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(&body);
                });
            }
        });
        (addr, reply)
    })
}

/// Reads a request's head and its `Content-Length` body, so the reply is not a reset.
fn read_request(stream: &mut std::net::TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut data = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        let Ok(n) = stream.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        data.extend_from_slice(&buf[..n]);
        let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(0);
        if data.len() >= end + 4 + length {
            return;
        }
    }
}

fn serve(body: Vec<u8>, content_type: &str) {
    if let Ok(mut r) = stub().1.lock() {
        *r = (body, content_type.to_string());
    }
}

// ---------------------------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------------------------

/// The fixtures that run offline (the model scripted): every component kind the runtime has.
const SEED_FIXTURES: &[&str] = &[
    "list-operations",
    "data-operations",
    "string-transform",
    "switch-all-operators",
    "variable-aggregator",
    "loop-with-iteration",
    "exception-default",
    "exception-goto",
    "diamond-uneven",
    "categorize-routing",
    "llm-structured-blocking",
    "llm-think-stream",
    "userfillup-resume",
    "agent-sub-agents",
    "agent-max-rounds",
];

fn seed_canvases() -> &'static Vec<(String, Json)> {
    static SEEDS: OnceLock<Vec<(String, Json)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut out = Vec::new();
        for path in fixture_files("valid") {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !SEED_FIXTURES.contains(&name.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let dsl: Json = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            out.push((name, dsl));
        }
        assert_eq!(
            out.len(),
            SEED_FIXTURES.len(),
            "every seed fixture was read"
        );
        out.push(("invoke-stub".into(), invoke_canvas()));
        out.push(("llm-stub".into(), llm_canvas()));
        out
    })
}

/// Begin → Invoke (the stub) → Message.
fn invoke_canvas() -> Json {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"prologue": ""}}, "downstream": ["Invoke:Call"], "upstream": []},
            "Invoke:Call": {"obj": {"component_name": "Invoke", "params": {
                "url": "http://{env.host}/page", "method": "post", "datatype": "json", "timeout": 10,
                "variables": [{"key": "q", "ref": "sys.query"}, {"key": "v", "value": "x"}],
                "headers": "{\"X-Q\": \"{sys.query}\"}", "clean_html": false, "max_retries": 0,
                "delay_after_error": 0, "proxy": "",
                "outputs": {"result": {"type": "string", "value": ""}}}},
                "downstream": ["Message:Out"], "upstream": ["begin"]},
            "Message:Out": {"obj": {"component_name": "Message", "params": {"content": ["{Invoke:Call@result}"]}},
                "downstream": [], "upstream": ["Invoke:Call"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": [], "env.host": ""},
        "variables": {"host": {"name": "host", "type": "string", "value": ""}},
        "history": [], "path": [], "retrieval": []
    })
}

/// Begin → LLM → Message: the model's answers are what the fuzzer chooses.
fn llm_canvas() -> Json {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {"prologue": ""}}, "downstream": ["LLM:Ask"], "upstream": []},
            "LLM:Ask": {"obj": {"component_name": "LLM", "params": {
                "llm_id": "fuzz", "sys_prompt": "Answer.", "prompts": [{"role": "user", "content": "{sys.query}"}],
                "temperature": 0.1, "output_structure": {}, "max_retries": 0, "delay_after_error": 0,
                "outputs": {"content": {"type": "string", "value": ""}}}},
                "downstream": ["Message:Out"], "upstream": ["begin"]},
            "Message:Out": {"obj": {"component_name": "Message", "params": {"content": ["{LLM:Ask@content}"]}},
                "downstream": [], "upstream": ["LLM:Ask"]}
        },
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": [], "sys.history": []},
        "history": [], "path": [], "retrieval": []
    })
}

/// JSON pointers of every parameter value of every component (not the ones left alone).
fn param_pointers(dsl: &Json) -> Vec<String> {
    fn walk(v: &Json, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        match v {
            Json::Object(m) => {
                for (k, x) in m {
                    if NOT_MUTATED.contains(&k.as_str()) {
                        continue;
                    }
                    walk(
                        x,
                        format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            Json::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(Json::Object(comps)) = dsl.get("components") {
        for (id, c) in comps {
            let at = format!(
                "/components/{}/obj/params",
                id.replace('~', "~0").replace('/', "~1")
            );
            if let Some(params) = c.pointer("/obj/params") {
                walk(params, at, &mut out);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// One input
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the `at`-th parameter value (modulo their number).
    Param { at: usize, value: Json },
    /// Replace a global of the saved session before the run continues it.
    State { global: usize, value: Json },
    /// The scripted model answers every call with this text.
    Script { answer: String },
    /// The stub serves this body to Invoke (`clean_html` as given).
    Page {
        body: Vec<u8>,
        content_type: &'static str,
        clean_html: bool,
    },
    /// The chat model is the OpenAI-compatible client against the stub serving this body.
    ModelBody {
        body: Vec<u8>,
        content_type: &'static str,
    },
}

#[derive(Clone, Debug)]
struct Input {
    seed: usize,
    mutation: Mutation,
    query: String,
}

fn input() -> impl Strategy<Value = Input> {
    let text_answer = prop_oneof![
        (any::<u8>(), depth()).prop_map(|(k, n)| nesting(k, n)),
        odd_text(),
        number_text(),
        Just("```json\n{\"a\": [1, 2\n```".to_string()),
    ];
    let mutation = prop_oneof![
        4 => (any::<usize>(), hostile_json()).prop_map(|(at, value)| Mutation::Param { at, value }),
        2 => (any::<usize>(), hostile_json()).prop_map(|(global, value)| Mutation::State { global, value }),
        2 => text_answer.prop_map(|answer| Mutation::Script { answer }),
        2 => (hostile_bytes(), prop_oneof![Just("text/html"), Just("text/html; charset=gbk"), Just("application/json"), Just("text/plain; charset=latin-1")], any::<bool>())
            .prop_map(|(body, content_type, clean_html)| Mutation::Page { body, content_type, clean_html }),
        2 => model_body().prop_map(|(body, content_type)| Mutation::ModelBody { body, content_type }),
    ];
    let query = prop_oneof![
        Just("hello".to_string()),
        (any::<u8>(), depth()).prop_map(|(k, n)| nesting(k, n)),
        odd_text(),
        number_text(),
    ];
    (any::<usize>(), mutation, query).prop_map(|(seed, mutation, query)| Input {
        seed,
        mutation,
        query,
    })
}

/// Applies the input to a seed; returns the DSL, a saved session to continue (for `State`) and
/// the model to use.
fn prepare(input: &Input) -> (Json, Option<(usize, Json)>, Model) {
    let seeds = seed_canvases();
    let host = stub().0.clone();
    let pick = |name: &str| {
        seeds
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
            .unwrap_or(Json::Null)
    };
    let mut model = Model::Scripted("echo".into());
    let mut state = None;
    let mut dsl = match &input.mutation {
        Mutation::Page { .. } => pick("invoke-stub"),
        Mutation::ModelBody { .. } => pick("llm-stub"),
        _ => seeds[input.seed % seeds.len()].1.clone(),
    };
    match &input.mutation {
        Mutation::Param { at, value } => {
            let pointers = param_pointers(&dsl);
            if !pointers.is_empty() {
                if let Some(slot) = dsl.pointer_mut(&pointers[at % pointers.len()]) {
                    *slot = value.clone();
                }
            }
        }
        Mutation::State { global, value } => state = Some((*global, value.clone())),
        Mutation::Script { answer } => model = Model::Scripted(answer.clone()),
        Mutation::Page {
            body,
            content_type,
            clean_html,
        } => {
            serve(body.clone(), content_type);
            if let Some(p) = dsl.pointer_mut("/components/Invoke:Call/obj/params/clean_html") {
                *p = Json::Bool(*clean_html);
            }
        }
        Mutation::ModelBody { body, content_type } => {
            serve(body.clone(), content_type);
            model = Model::Stub;
        }
    }
    for g in ["/globals/env.host", "/variables/host/value"] {
        if let Some(h) = dsl.pointer_mut(g) {
            *h = Json::String(host.clone());
        }
    }
    (dsl, state, model)
}

enum Model {
    /// The scripted model answering every call with this text (`echo` repeats the question).
    Scripted(String),
    /// The OpenAI-compatible client against the stub.
    Stub,
}

fn services(model: &Model) -> Services {
    let mut services = Services::default();
    services.settings.allow_any_host = true;
    services.llm = Some(match model {
        Model::Scripted(answer) => {
            let script = Script::parse(&json!({"default": answer, "responses": []}))
                .unwrap_or_else(|e| panic!("the fuzzer's script is valid: {e}"));
            Arc::new(ScriptedProvider::new(script))
        }
        Model::Stub => {
            let config = LlmConfig::single(&format!("http://{}/v1", stub().0), Some("sk-fuzz"));
            Arc::new(OpenAiProvider::new(services.http.clone(), config))
        }
    });
    services
}

/// Runs the input on one back-end; `Err` is a failure of the fuzzed property.
async fn run_one(input: &Input, bound: bool) -> Result<(), String> {
    let (dsl, state, model) = prepare(input);
    let text = serde_json::to_string(&dsl).map_err(|e| e.to_string())?;
    // A DSL the loader refuses is a clean error, not a run.
    let Ok(analysis) = analyze(&text) else {
        TALLY.refused.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    };
    let interp = Interpreter::from_analysis(&analysis);
    let program = Arc::new(if bound {
        interp.bound(&analysis.ir)
    } else {
        interp
    });
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    let services = services(&model);
    let published = Published::new(Arc::clone(&program), analysis.document.dsl.clone());
    let session = match state {
        None => published.session(services, rng),
        Some((global, value)) => {
            // A saved session whose global was changed, as a state file could be.
            let mut saved = match published.session(services.clone(), Arc::clone(&rng)).save() {
                Json::Object(m) => m,
                _ => Map::new(),
            };
            if let Some(Json::Object(globals)) = saved.get_mut("globals") {
                let mut keys: Vec<String> = globals.keys().cloned().collect();
                keys.push("sys.conversation_turns".into());
                let key = keys[global % keys.len()].clone();
                globals.insert(key, value);
            }
            Session::new(program, saved, services, rng, false)
        }
    };
    let run_input = RunInput {
        query: Some(Json::String(input.query.clone())),
        user_id: Some(Json::String("fuzz".into())),
        files: Vec::new(),
        inputs: Some(json!({})),
        chat_template_kwargs: None,
        webhook_payload: None,
    };
    let mut events: Vec<Json> = Vec::new();
    let outcome = session.run(run_input, &mut events).await;
    TALLY.ran.fetch_add(1, Ordering::Relaxed);
    let failed_node = events
        .iter()
        .any(|ev| ev["event"] == "node_finished" && ev["data"]["outputs"]["_ERROR"].is_string());
    if failed_node {
        TALLY.component_errors.fetch_add(1, Ordering::Relaxed);
    }
    if matches!(outcome, RunOutcome::Aborted(_)) {
        TALLY.aborted.fetch_add(1, Ordering::Relaxed);
    }
    check_shape(&events, &outcome)?;
    // The session must still save (RAGFlow's `str(canvas)`).
    let _saved = session.save();
    Ok(())
}

/// What the runs came to, reported at the end so a run that exercises nothing is visible.
struct Tally {
    refused: AtomicUsize,
    ran: AtomicUsize,
    component_errors: AtomicUsize,
    aborted: AtomicUsize,
}

static TALLY: Tally = Tally {
    refused: AtomicUsize::new(0),
    ran: AtomicUsize::new(0),
    component_errors: AtomicUsize::new(0),
    aborted: AtomicUsize::new(0),
};

/// RAGFlow's error shape: `_ERROR` outputs are text, escaping errors are Python exceptions.
fn check_shape(events: &[Json], outcome: &RunOutcome) -> Result<(), String> {
    for ev in events {
        if ev["event"] == "node_finished" {
            let err = &ev["data"]["outputs"]["_ERROR"];
            if !(err.is_null() || err.is_string()) {
                return Err(format!("an _ERROR that is not text: {err}"));
            }
        }
    }
    if let RunOutcome::Aborted(e) = outcome {
        if !PYTHON_CLASSES.contains(&e.class()) {
            return Err(format!("an escaping error of class {}: {e}", e.class()));
        }
    }
    Ok(())
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_stack_size(8 * 1024 * 1024)
            .enable_all()
            .build()
            .expect("tokio runtime")
    })
}

/// Both back-ends, each in its own task so a panic is reported as a failure of this input.
fn check(input: &Input) -> Result<(), TestCaseError> {
    for bound in [false, true] {
        let owned = input.clone();
        let started = Instant::now();
        let outcome = runtime().block_on(async move {
            let task = tokio::spawn(async move { run_one(&owned, bound).await });
            tokio::time::timeout(HANG_LIMIT, task).await
        });
        let back_end = if bound { "bound" } else { "interpreter" };
        match outcome {
            Err(_) => {
                return Err(TestCaseError::fail(format!(
                    "{back_end}: no answer after {:?}",
                    started.elapsed()
                )))
            }
            Ok(Err(join)) => return Err(TestCaseError::fail(format!("{back_end}: {join}"))),
            Ok(Ok(Err(shape))) => return Err(TestCaseError::fail(format!("{back_end}: {shape}"))),
            Ok(Ok(Ok(()))) => {}
        }
    }
    Ok(())
}

#[test]
fn hostile_input_never_crashes_the_runtime() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    });
    let ran = AtomicUsize::new(0);
    let result = runner.run(&input(), |input| {
        ran.fetch_add(1, Ordering::Relaxed);
        check(&input)
    });
    let load = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    let _ = writeln!(
        std::io::stderr(),
        "hostile_input_never_crashes_the_runtime: {} inputs, each on both back-ends: {} runs, \
         {} with a component _ERROR, {} aborted with a Python exception, {} DSLs the loader refused",
        load(&ran),
        load(&TALLY.ran),
        load(&TALLY.component_errors),
        load(&TALLY.aborted),
        load(&TALLY.refused),
    );
    assert!(
        load(&TALLY.ran) > 0,
        "no input ran a canvas: the fuzzer exercises nothing"
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
