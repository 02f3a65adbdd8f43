//! The model endpoints (issue 39, item 15): `GET /api/v1/models` lists what the configuration
//! serves (a real `canvasc.toml` text, read as `canvasc serve` reads it), `PATCH
//! /models/default` sets the tenant's default with RAGFlow's checks, and a run whose LLM names
//! no model then calls the tenant's default: a model endpoint in this test (an
//! OpenAI-compatible server on loopback) records which model each run asked for.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use canvasc_engine::llm::config::LlmConfig;
use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::chat_dsl;
use crate::harness::{call_at, extra_server_running, unique, Answer};

/// The model names the test endpoint was asked for, in order.
type Asked = Arc<Mutex<Vec<String>>>;

/// An OpenAI-compatible chat endpoint that answers `Hello.` and records the model asked for.
async fn model_endpoint() -> (String, Asked) {
    async fn chat(State(asked): State<Asked>, body: axum::body::Bytes) -> Response {
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let model = request["model"].as_str().unwrap_or_default().to_string();
        asked.lock().unwrap_or_else(|p| p.into_inner()).push(model);
        if request["stream"] == true {
            let chunk = json!({"id": "c", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello."},
                             "finish_reason": "stop"}]});
            let body = format!("data: {chunk}\n\ndata: [DONE]\n\n");
            ([("content-type", "text/event-stream")], body).into_response()
        } else {
            let answer = json!({"id": "c", "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello."},
                             "finish_reason": "stop"}]});
            ([("content-type", "application/json")], answer.to_string()).into_response()
        }
    }
    let asked = Asked::default();
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(chat))
        .with_state(asked.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), asked)
}

/// The configuration of these tests: two chat models and a vision model of a factory on the
/// test endpoint, a factory section, and `[llm] default`.
fn config_text(base_url: &str) -> String {
    format!(
        r#"
[llm]
default = "alpha@Mock"
max_retries = 0

[factories.ZHIPU-AI]
api_key = "unused"

[[models]]
id = "alpha"
factory = "Mock"
base_url = "{base_url}"
api_key = "k"

[[models]]
id = "beta"
factory = "Mock"
base_url = "{base_url}"
api_key = "k"

[[models]]
id = "seer"
factory = "Mock"
base_url = "{base_url}"
api_key = "k"
vision = true
"#
    )
}

/// A server on the configuration in `config_text` (its engine calls the test endpoint).
async fn model_server(base_url: &str) -> String {
    let text = config_text(base_url);
    let dir = std::env::temp_dir().join(format!("canvasc-models-{}", unique("cfg")));
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join("canvasc.toml");
    std::fs::write(&path, &text).expect("the configuration is written");
    let services = canvasc_host::services::assemble(None, Some(&path)).expect("services");
    let engine = Arc::new(canvasc_host::serve::Programs::new(services, &[], None));
    let config = LlmConfig::from_toml_str(&text, &|_| None).expect("the configuration parses");
    extra_server_running(engine, |serve| {
        serve.registration = canvasc_server::Registration::Open;
        serve.models = canvasc_host::tenant_model::configured_models(&config);
        serve.default_model = config.default_model.clone();
    })
    .await
}

/// One call to the server at `base`, with a JSON body.
async fn call(base: &str, method: Method, path: &str, auth: Option<&str>, body: Value) -> Answer {
    call_at(base, method, path, auth, Some(body), &[]).await
}

/// Registers and logs in; the login token.
async fn login(base: &str) -> String {
    let email = format!("{}@example.com", unique("models"));
    let password = "c2VjcmV0IHBhc3N3b3Jk";
    let body = json!({"email": email, "nickname": "mo", "password": password});
    call(base, Method::POST, "/users", None, body.clone())
        .await
        .expect(0);
    let login = call(base, Method::POST, "/auth/login", None, body).await;
    login.expect(0);
    login.headers["authorization"]
        .to_str()
        .expect("a token")
        .to_string()
}

async fn set_default(base: &str, auth: &str, body: Value) -> Answer {
    call(base, Method::PATCH, "/models/default", Some(auth), body).await
}

#[tokio::test]
async fn the_model_list_is_the_configurations_and_a_default_is_one_of_it() {
    let (base_url, _) = model_endpoint().await;
    let base = model_server(&base_url).await;
    let auth = login(&base).await;
    let listed = call(&base, Method::GET, "/models", Some(&auth), Value::Null).await;
    let lines: Vec<(String, String, Value)> = listed
        .expect(0)
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| {
            assert_eq!(m["instance_name"], "default", "{m}");
            assert_eq!(m["tenant_name"], "mo\u{2018}s Kingdom", "{m}");
            (
                m["provider_name"].as_str().unwrap_or_default().to_string(),
                m["name"].as_str().unwrap_or_default().to_string(),
                m["model_type"].clone(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            ("Mock".into(), "alpha".into(), json!(["chat"])),
            ("Mock".into(), "beta".into(), json!(["chat"])),
            ("Mock".into(), "seer".into(), json!(["chat", "vision"])),
            ("ZHIPU-AI".into(), "*".into(), json!(["chat"])),
        ]
    );
    let vision = call(
        &base,
        Method::GET,
        "/models?type=vision",
        Some(&auth),
        Value::Null,
    )
    .await;
    let names: Vec<&str> = vision
        .expect(0)
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["model_id"].as_str())
        .collect();
    assert_eq!(names, ["seer@Mock"]);

    // The tenant's defaults start as the configuration's `[llm] default`.
    let defaults = call(
        &base,
        Method::GET,
        "/models/default",
        Some(&auth),
        Value::Null,
    )
    .await;
    assert_eq!(
        defaults.expect(0),
        &json!({"models": [{"model_id": "alpha@Mock", "model_provider": "Mock",
            "model_instance": "default", "model_name": "alpha", "model_type": "chat",
            "enable": true}]})
    );

    // RAGFlow's refusals, each naming what is wrong.
    let refusals = [
        (json!({}), 101, "model_type is required"),
        (
            json!({"model_type": "llm"}),
            102,
            "model type 'llm' is invalid",
        ),
        (
            json!({"model_type": "chat", "model_provider": "Nope", "model_instance": "default", "model_name": "x"}),
            102,
            "Provider 'Nope' not found",
        ),
        (
            json!({"model_type": "chat", "model_provider": "Mock", "model_instance": "CI", "model_name": "alpha"}),
            102,
            "Instance 'CI' not found for provider 'Mock'",
        ),
        (
            json!({"model_type": "chat", "model_provider": "Mock", "model_instance": "default", "model_name": "gamma"}),
            102,
            "Model 'gamma' isn't available",
        ),
        (
            json!({"model_type": "embedding", "model_provider": "Mock", "model_instance": "default", "model_name": "alpha"}),
            102,
            "Model 'alpha' isn't a embedding model",
        ),
        (
            json!({"model_type": "chat", "model_id": "gamma@Mock"}),
            102,
            "model_id 'gamma@Mock' not found",
        ),
    ];
    for (body, code, message) in refusals {
        let refused = set_default(&base, &auth, body.clone()).await;
        assert_eq!(
            refused.body,
            json!({"code": code, "message": message}),
            "{body}"
        );
    }

    // Set by model id, by provider/instance/name (any model of a factory section), cleared.
    set_default(
        &base,
        &auth,
        json!({"model_type": "vision", "model_id": "seer@Mock"}),
    )
    .await
    .expect(0);
    let zhipu = json!({"model_type": "chat", "model_provider": "ZHIPU-AI",
        "model_instance": "default", "model_name": "glm-4-flash"});
    assert_eq!(
        set_default(&base, &auth, zhipu).await.body,
        json!({"code": 0})
    );
    let defaults = call(
        &base,
        Method::GET,
        "/models/default",
        Some(&auth),
        Value::Null,
    )
    .await;
    let ids: Vec<(&str, &str, &str)> = defaults.expect(0)["models"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m["model_type"].as_str().unwrap_or_default(),
                m["model_id"].as_str().unwrap_or_default(),
                m["model_name"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("chat", "glm-4-flash@ZHIPU-AI", "glm-4-flash"),
            ("vision", "seer@Mock", "seer")
        ]
    );
    set_default(&base, &auth, json!({"model_type": "chat"}))
        .await
        .expect(0);
    let defaults = call(
        &base,
        Method::GET,
        "/models/default",
        Some(&auth),
        Value::Null,
    )
    .await;
    assert_eq!(defaults.expect(0)["models"][0]["model_id"], "alpha@Mock");
}

#[tokio::test]
async fn a_run_whose_llm_names_no_model_calls_the_tenants_default() {
    let (base_url, asked) = model_endpoint().await;
    let base = model_server(&base_url).await;
    let mut dsl = chat_dsl();
    dsl["components"]["LLM:WriteReply"]["obj"]["params"]["llm_id"] = json!("");
    let run = |auth: String| {
        let base = base.clone();
        let dsl = dsl.clone();
        async move {
            let created = call(
                &base,
                Method::POST,
                "/agents",
                Some(&auth),
                json!({"title": unique("default"), "dsl": dsl}),
            )
            .await;
            let agent = created.expect(0)["id"].as_str().expect("an id").to_string();
            let answer = call(
                &base,
                Method::POST,
                "/agents/chat/completions",
                Some(&auth),
                json!({"agent_id": agent, "query": "hi"}),
            )
            .await;
            let content = answer.expect(0)["data"]["content"].clone();
            assert!(
                content.as_str().is_some_and(|c| c.contains("Hello.")),
                "{}",
                answer.body
            );
        }
    };
    let taken =
        |asked: &Asked| std::mem::take(&mut *asked.lock().unwrap_or_else(|p| p.into_inner()));
    let ann = login(&base).await;
    let bob = login(&base).await;
    // No default of the tenant: the configuration's `[llm] default`.
    run(ann.clone()).await;
    assert_eq!(taken(&asked), ["alpha"]);
    set_default(
        &base,
        &ann,
        json!({"model_type": "chat", "model_provider": "Mock",
        "model_instance": "default", "model_name": "beta"}),
    )
    .await
    .expect(0);
    run(ann.clone()).await;
    assert_eq!(taken(&asked), ["beta"]);
    // Another tenant's runs keep theirs.
    run(bob).await;
    assert_eq!(taken(&asked), ["alpha"]);
}
