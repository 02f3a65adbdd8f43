//! What the tool tests share: a stub of a web API on 127.0.0.1 that records every request it
//! receives, and a runner for canvases whose tools are configured to call it.

#![allow(dead_code)]

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::Router;
use canvasc_engine::external::Externals;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, RunOutcome, Services, Session};
use canvasc_tools::config::ToolsConfig;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One request the stub received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The raw query string (`None` without `?`).
    pub query: Option<String>,
    /// Header names lower-cased.
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

impl Recorded {
    /// The query's pairs, percent-decoded, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(self.query.as_deref().unwrap_or("").as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    pub fn json(&self) -> Json {
        serde_json::from_str(&self.body).unwrap_or(Json::Null)
    }
}

/// A canned answer: status, content type and body.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

impl Answer {
    pub fn json(v: &Json) -> Answer {
        Answer {
            status: 200,
            content_type: "application/json".into(),
            body: v.to_string(),
        }
    }

    pub fn text(content_type: &str, body: &str) -> Answer {
        Answer {
            status: 200,
            content_type: content_type.into(),
            body: body.into(),
        }
    }

    pub fn status(status: u16, v: &Json) -> Answer {
        Answer {
            status,
            content_type: "application/json".into(),
            body: v.to_string(),
        }
    }
}

#[derive(Default)]
struct Inner {
    /// By path: the answers, in order (the last one repeats).
    answers: BTreeMap<String, Vec<Answer>>,
    seen: Vec<Recorded>,
}

/// A stub web API on 127.0.0.1.
#[derive(Clone)]
pub struct Stub {
    inner: Arc<Mutex<Inner>>,
    pub base: String,
}

impl Stub {
    pub async fn start() -> Stub {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&inner));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Stub {
            inner,
            base: format!("http://{addr}"),
        }
    }

    /// Answer requests to `path` with `answers` in turn (the last one repeats).
    pub fn on(&self, path: &str, answers: Vec<Answer>) {
        self.inner
            .lock()
            .expect("stub lock")
            .answers
            .insert(path.to_string(), answers);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().expect("stub lock").seen.clone()
    }
}

async fn handle(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let mut inner = inner.lock().expect("stub lock");
    let path = uri.path().to_string();
    let seen_here = inner.seen.iter().filter(|r| r.path == path).count();
    inner.seen.push(Recorded {
        method: method.to_string(),
        path: path.clone(),
        query: uri.query().map(str::to_string),
        headers: headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    v.to_str().unwrap_or("").to_string(),
                )
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let answer = inner
        .answers
        .get(&path)
        .and_then(|a| a.get(seen_here).or_else(|| a.last()))
        .cloned();
    match answer {
        Some(a) => (
            StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            [("content-type", a.content_type)],
            a.body,
        ),
        None => (
            StatusCode::NOT_FOUND,
            [("content-type", "text/plain".to_string())],
            format!("no stub answer for {path}"),
        ),
    }
}

/// The tools, configured by `toml` (`[tools.<service>]` tables).
pub fn registry(toml: &str) -> Externals {
    let none = |_: &str| None;
    let config = ToolsConfig::from_toml_str(toml, &none).expect("tool configuration");
    let mut registry = Externals::default();
    canvasc_tools::register_all(&mut registry, &config);
    registry
}

/// The outcome, events and saved canvas of one run.
pub struct Ran {
    pub outcome: RunOutcome,
    pub events: Vec<Json>,
    pub saved: Json,
    pub provider: Arc<ScriptedProvider>,
}

impl Ran {
    /// A component's output after the run.
    pub fn output(&self, component: &str, key: &str) -> Json {
        self.saved["components"][component]["obj"]["params"]["outputs"][key]["value"].clone()
    }

    /// The `message` of `workflow_finished`'s reference, or the turn's references as saved.
    pub fn references(&self) -> Json {
        self.saved["retrieval"]
            .as_array()
            .and_then(|r| r.last())
            .cloned()
            .unwrap_or(Json::Null)
    }

    /// The tool results the model received (the contents of `tool` messages of its last call).
    pub fn tool_results(&self) -> Vec<String> {
        self.provider
            .calls()
            .last()
            .map(|c| {
                c.request
                    .messages
                    .iter()
                    .filter(|m| m.role == "tool")
                    .filter_map(|m| m.content.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Run `dsl` once with `query`, the scripted model `script` and `registry`'s tools.
pub async fn run(dsl: &Json, script: &Json, registry: Externals, query: &str) -> Ran {
    run_with(dsl, script, registry, query, |_| {}).await
}

/// [`run`], with the services adjusted by `adjust` (settings, the SSRF guard).
pub async fn run_with(
    dsl: &Json,
    script: &Json,
    registry: Externals,
    query: &str,
    adjust: impl FnOnce(&mut Services),
) -> Ran {
    let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("canvas loads");
    let provider = Arc::new(ScriptedProvider::new(
        Script::parse(script).expect("scripted model"),
    ));
    let mut services = Services {
        llm: Some(provider.clone()),
        external: Arc::new(registry),
        ..Services::default()
    };
    adjust(&mut services);
    let session = Session::new(
        Arc::new(Interpreter::from_analysis(&analysis)),
        analysis.document.dsl.clone(),
        services,
        Arc::new(Mutex::new(PyRandom::seeded(0))),
        true,
    );
    let mut events: Vec<Json> = Vec::new();
    let input = RunInput {
        query: Some(json!(query)),
        inputs: Some(json!({})),
        ..RunInput::default()
    };
    let outcome = session.run(input, &mut events).await;
    Ran {
        outcome,
        events,
        saved: session.save(),
        provider,
    }
}

/// Begin → `tool` (a canvas node with `params`) → Message showing `{tool@<shown>}`.
pub fn node_canvas(component_name: &str, params: Json, shown: &str) -> Json {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Tool:T"], "upstream": []},
            "Tool:T": {"obj": {"component_name": component_name, "params": params},
                       "downstream": ["Message:M"], "upstream": ["begin"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": [format!("{{Tool:T@{shown}}}")]}},
                          "downstream": [], "upstream": ["Tool:T"]}
        },
        "history": [], "path": [], "retrieval": [], "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    })
}

/// Begin → Agent (with the one tool `component_name` and `params`) → Message.
pub fn agent_canvas(component_name: &str, params: Json) -> Json {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["Agent:A"], "upstream": []},
            "Agent:A": {"obj": {"component_name": "Agent", "params": {
                "llm_id": "scripted-chat@Scripted", "sys_prompt": "Use the tool, then answer.",
                "prompts": [{"role": "user", "content": "{sys.query}"}], "max_rounds": 2, "cite": false,
                "tools": [{"component_name": component_name, "name": component_name, "params": params}],
                "outputs": {"content": {"type": "string", "value": ""}}}},
                "downstream": ["Message:M"], "upstream": ["begin"]},
            "Message:M": {"obj": {"component_name": "Message", "params": {"content": ["{Agent:A@content}"]}},
                          "downstream": [], "upstream": ["Agent:A"]}
        },
        "history": [], "path": [], "retrieval": [], "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []}
    })
}

/// A scripted model that calls `tool` with `arguments`, then answers `answer` once it has
/// seen `seen` among the tool results.
pub fn calling_script(tool: &str, arguments: Json, seen: &str, answer: &str) -> Json {
    json!({
        "default": "no match",
        "responses": [
            {"match": seen, "content": answer, "times": -1},
            {"tool_calls": [{"name": tool, "arguments": arguments}]}
        ]
    })
}
