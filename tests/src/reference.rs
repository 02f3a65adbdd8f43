//! Running canvases the way the reference oracle (`../shared/reference-oracle`) runs RAGFlow's
//! engine, and printing the same normalised lines, so a golden stream from RAGFlow can be
//! compared byte for byte with ours.

use crate::scripted_server::ScriptedServer;
use crate::tool_stub::{OfflineResolver, ToolStub};
use canvasc_engine::external::Externals;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::mcp::{McpServer, McpServers};
use canvasc_engine::random::PyRandom;
use canvasc_engine::val::Val;
use canvasc_engine::{Program, Published, RunInput, RunOutcome, Services, Session};
use canvasc_frontend::{analyze, Analysis};
use canvasc_tools::config::ToolsConfig;
use canvasc_value::{py, Json, Map};
use regex::Regex;
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

/// One `Canvas.run()` call.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    pub query: String,
    pub inputs: Json,
    pub files: Vec<Json>,
}

impl Turn {
    /// One entry of the oracle's `--turns` list (`{"query", "inputs", "files"}`, each optional).
    pub fn from_json(t: &Json) -> Turn {
        Turn {
            query: t
                .get("query")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string(),
            inputs: t
                .get("inputs")
                .cloned()
                .unwrap_or_else(|| Json::Object(Map::new())),
            files: t
                .get("files")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default(),
        }
    }
}

/// A reference case: the canvas and everything its oracle command passed.
#[derive(Clone, Debug, Default)]
pub struct Case {
    pub dsl: String,
    pub turns: Vec<Turn>,
    /// The `--script` file: scripted LLM under `llm`, tool fixtures under their names.
    pub script: Option<Json>,
    pub default_llm_id: Option<String>,
    pub fill_empty: Vec<(String, String)>,
    pub set: Vec<(String, Json)>,
    /// Environment the command ran with (e.g. `ALLOW_ANY_HOST=1`).
    pub env: Vec<(String, String)>,
    /// Cancel the task this long after each run starts (`tests/golden/cancel_after.py`).
    pub cancel_after: Option<std::time::Duration>,
    /// The MCP server records the oracle's driver answered `MCPServerService` with.
    pub mcp_servers: Vec<McpServer>,
    /// The table the case's scripted SQL reads: the oracle fakes the database cursor, so the
    /// case's `sql` fixture is loaded into this table of the machine's MariaDB and every ExeSQL
    /// node is pointed there (`sql_stub.rs`).
    pub sql_table: Option<String>,
}

fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Read `@file` or inline JSON relative to `base`.
fn arg_json(v: &str, base: &Path) -> Json {
    match v.strip_prefix('@') {
        Some(file) => {
            serde_json::from_str(&std::fs::read_to_string(base.join(file)).unwrap_or_default())
                .unwrap_or(Json::Null)
        }
        None => serde_json::from_str(v).unwrap_or(Json::Null),
    }
}

impl Case {
    /// Parse an oracle command line (`$RAGFLOW_PY -m ragflow_ref.run_canvas DSL --query … > OUT`);
    /// relative paths are resolved against `base`. Returns the case and the output file.
    pub fn from_command(line: &str, base: &Path) -> Option<(Case, String)> {
        let words = split_words(line);
        let start = words.iter().position(|w| w == "ragflow_ref.run_canvas")? + 1;
        let mut case = Case::default();
        let mut out = String::new();
        let mut query = String::new();
        let mut inputs = Json::Object(Map::new());
        let mut turns: Option<Json> = None;
        let mut env = Vec::new();
        for w in &words[..start] {
            if let Some((k, v)) = w.split_once('=') {
                if k.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    env.push((k.to_string(), v.to_string()));
                }
            }
        }
        case.env = env;
        let mut i = start;
        while i < words.len() {
            let w = &words[i];
            let next = words.get(i + 1).cloned().unwrap_or_default();
            match w.as_str() {
                "--query" => {
                    query = next;
                    i += 1;
                }
                "--inputs" => {
                    inputs = arg_json(&next, base);
                    i += 1;
                }
                "--turns" => {
                    turns = Some(arg_json(&next, base));
                    i += 1;
                }
                "--script" => {
                    case.script = serde_json::from_str(
                        &std::fs::read_to_string(base.join(&next)).unwrap_or_default(),
                    )
                    .ok();
                    i += 1;
                }
                "--default-llm-id" => {
                    case.default_llm_id = Some(next);
                    i += 1;
                }
                "--fill-empty" => {
                    let (k, v) = next.split_once('=').unwrap_or((&next, ""));
                    case.fill_empty.push((k.to_string(), v.to_string()));
                    i += 1;
                }
                "--set" => {
                    let (k, v) = next.split_once('=').unwrap_or((&next, ""));
                    let value =
                        serde_json::from_str(v).unwrap_or_else(|_| Json::String(v.to_string()));
                    case.set.push((k.to_string(), value));
                    i += 1;
                }
                ">" => {
                    out = next;
                    i += 1;
                }
                other if case.dsl.is_empty() && !other.starts_with('-') => {
                    case.dsl = base.join(other).to_string_lossy().to_string()
                }
                _ => {}
            }
            i += 1;
        }
        case.turns = match turns {
            Some(Json::Array(list)) => list.iter().map(Turn::from_json).collect(),
            _ => vec![Turn {
                query,
                inputs,
                files: Vec::new(),
            }],
        };
        Some((case, out))
    }

    /// The DSL as the oracle loads it: unwrapped, with its patches applied.
    pub fn load_dsl(&self) -> Json {
        let text = std::fs::read_to_string(&self.dsl).unwrap_or_default();
        let mut dsl: Json = serde_json::from_str(&text).unwrap_or(Json::Null);
        if dsl.get("components").is_none() {
            if let Some(inner) = dsl.get("dsl").cloned() {
                dsl = inner;
            }
        }
        if let Json::Object(m) = &mut dsl {
            for key in ["history", "path", "retrieval"] {
                m.entry(key).or_insert_with(|| Json::Array(Vec::new()));
            }
        }
        if let Some(id) = &self.default_llm_id {
            fill_empty(&mut dsl, "llm_id", id);
        }
        for (k, v) in &self.fill_empty {
            fill_empty(&mut dsl, k, v);
        }
        for (path, value) in &self.set {
            apply_set(&mut dsl, path, value.clone());
        }
        if self.sql_table.is_some() {
            crate::sql_stub::point_at_fixture(&mut dsl);
        }
        dsl
    }
}

fn fill_empty(v: &mut Json, key: &str, value: &str) {
    match v {
        Json::Object(m) => {
            for (k, item) in m.iter_mut() {
                if k == key && (item.is_null() || item == &Json::String(String::new())) {
                    *item = Json::String(value.to_string());
                } else {
                    fill_empty(item, key, value);
                }
            }
        }
        Json::Array(a) => a.iter_mut().for_each(|i| fill_empty(i, key, value)),
        _ => {}
    }
}

fn apply_set(dsl: &mut Json, path: &str, value: Json) {
    let keys: Vec<&str> = path.split('.').collect();
    let mut cur = dsl;
    for k in &keys[..keys.len() - 1] {
        cur = match cur {
            Json::Array(a) => match k.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return,
            },
            Json::Object(m) => m
                .entry(k.to_string())
                .or_insert_with(|| Json::Object(Map::new())),
            _ => return,
        };
    }
    let last = keys[keys.len() - 1];
    match cur {
        Json::Array(a) => {
            if let Some(x) = last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                *x = value;
            }
        }
        Json::Object(m) => {
            m.insert(last.to_string(), value);
        }
        _ => {}
    }
}

static DATETIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}").expect("re"));
static UUID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[0-9a-f]{32,}").expect("re"));
static REPR_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"'(_created_time|_elapsed_time)': [-+0-9.e]+").expect("re"));

const VOLATILE: &[(&str, &str)] = &[
    ("message_id", "<message_id>"),
    ("task_id", "<task_id>"),
    ("created_at", "<created_at>"),
    ("elapsed_time", "<elapsed_time>"),
    ("_created_time", "<created_time>"),
    ("_elapsed_time", "<elapsed_time>"),
];

/// The oracle's normalisation of volatile fields.
pub fn normalize(v: &Json) -> Json {
    match v {
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, x)| {
                    let y = match VOLATILE.iter().find(|(name, _)| name == k) {
                        Some((_, placeholder)) if !x.is_null() => {
                            Json::String(placeholder.to_string())
                        }
                        _ => normalize(x),
                    };
                    (k.clone(), y)
                })
                .collect(),
        ),
        Json::Array(a) => Json::Array(a.iter().map(normalize).collect()),
        Json::String(s) => {
            let s = DATETIME.replace_all(s, "<datetime>");
            let s = REPR_TIME.replace_all(&s, |c: &regex::Captures| {
                let name = &c[1];
                format!("'{name}': '<{}>'", name.trim_matches('_'))
            });
            // Python's lookarounds: a run of exactly 32 hex digits.
            let s = UUID.replace_all(&s, |c: &regex::Captures| {
                if c[0].len() == 32 {
                    "<uuid>".to_string()
                } else {
                    c[0].to_string()
                }
            });
            Json::String(s.into_owned())
        }
        other => other.clone(),
    }
}

fn line(v: &Json) -> String {
    py::json_dumps(&normalize(v))
}

fn state_line<P: Program>(session: &Session<P>) -> Json {
    serde_json::json!({"event": "_state", "data": state_json(session)})
}

/// The session's state as the oracle's `_state` line prints it: path, error, globals,
/// history, references and every component's outputs.
pub fn state_json<P: Program>(session: &Session<P>) -> Json {
    let meta = &session.shared.meta;
    let s = session.shared.state();
    let path: Vec<Json> = s
        .path
        .iter()
        .map(|t| match t {
            canvasc_frontend::meta::Target::Node(n) => Json::String(meta.node(*n).id.clone()),
            canvasc_frontend::meta::Target::Missing(id) => Json::String(id.clone()),
        })
        .collect();
    let mut outputs = Map::new();
    for (i, node) in meta.nodes.iter().enumerate() {
        let mut o = Map::new();
        for (k, v) in s.nodes[i].outputs_map() {
            let j = match v {
                Val::Json(j) => j,
                Val::Stream(_) => Json::String("<partial>".into()),
            };
            o.insert(k, j);
        }
        outputs.insert(node.id.clone(), Json::Object(o));
    }
    serde_json::json!({
        "path": path,
        "error": s.error,
        "globals": canvasc_engine::persist::globals_json(&s.globals),
        "history": s.history,
        "reference": s.reference(),
        "outputs": outputs,
    })
}

/// Run a case like the oracle, interpreted, and return its output lines.
pub async fn run_case(case: &Case) -> Vec<String> {
    run_case_on(case, |a| Arc::new(Interpreter::from_analysis(a)))
        .await
        .lines
}

/// What a case produced: the oracle-style lines and, after each turn, the saved session
/// (`str(canvas)`), normalised.
#[derive(Debug, Default, PartialEq)]
pub struct CaseRun {
    pub lines: Vec<String>,
    pub saved: Vec<String>,
}

/// The case's canvas, loaded and analysed (with the case's patches applied).
pub fn case_analysis(case: &Case) -> Result<Analysis, String> {
    let text = serde_json::to_string(&case.load_dsl()).unwrap_or_default();
    analyze(&text).map_err(|e| e.to_string())
}

/// Run a case like the oracle with the program `make` gives for its canvas, the script
/// answering in-process.
pub async fn run_case_on<P: Program>(case: &Case, make: impl Fn(&Analysis) -> Arc<P>) -> CaseRun {
    run_case_with(case, make, Model::InProcess).await
}

/// Run a case interpreted with the script served by the scripted OpenAI-compatible server on
/// 127.0.0.1, through the real HTTP client.
pub async fn run_case_over_http(case: &Case) -> CaseRun {
    run_case_with(
        case,
        |a| Arc::new(Interpreter::from_analysis(a)),
        Model::OverHttp,
    )
    .await
}

/// Where the case's scripted model answers.
enum Model {
    InProcess,
    OverHttp,
}

async fn run_case_with<P: Program>(
    case: &Case,
    make: impl Fn(&Analysis) -> Arc<P>,
    model: Model,
) -> CaseRun {
    let mut run = CaseRun::default();
    let lines = &mut run.lines;
    let analysis = match case_analysis(case) {
        Ok(a) => a,
        Err(e) => {
            lines.push(line(&serde_json::json!({"event": "_exception", "data": {"type": "ValueError", "message": e}})));
            return run;
        }
    };
    let program = make(&analysis);
    // RAGFlow's `Canvas(dsl)` raising: the oracle writes the exception before any turn.
    if let Some(e) = &program.meta().construction_error {
        lines.push(line(&serde_json::json!({"event": "_exception", "data": {"type": e.class, "message": e.message}})));
        return run;
    }
    let base_dsl = analysis.document.dsl.clone();
    // RAGFlow's tool libraries answer with the oracle's canned data: our tools get the same
    // data from a stub of each service's HTTP API (kept until the run ends).
    let tool_stub = match ToolStub::start(case.script.as_ref()) {
        Ok(s) => s,
        Err(e) => panic!("the tool stub binds 127.0.0.1: {e}"),
    };
    if let Some(table) = &case.sql_table {
        let fixture = case
            .script
            .as_ref()
            .and_then(|s| s.get("sql"))
            .cloned()
            .unwrap_or_else(crate::sql_stub::default_sql);
        if let Err(e) = crate::sql_stub::load(table, &fixture).await {
            panic!("the case's `sql` fixture as a MariaDB table: {e}");
        }
    }
    let tools = match ToolsConfig::from_toml_str(&tool_stub.config_toml(), &|_: &str| None) {
        Ok(c) => c,
        Err(e) => panic!("the stub's tool configuration: {e}"),
    };
    let mut external = Externals::default();
    canvasc_tools::register_all(&mut external, &tools);
    let mut services = Services {
        mcp: Arc::new(McpServers::new(case.mcp_servers.iter().cloned())),
        external: Arc::new(external),
        resolver: Arc::new(OfflineResolver),
        ..Services::default()
    };
    for (k, v) in &case.env {
        let on = matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on");
        match k.as_str() {
            "ALLOW_ANY_HOST" => services.settings.allow_any_host = on,
            "ENABLE_TIMEOUT_ASSERTION" => services.settings.enforce_timeouts = !v.is_empty(),
            "COMPONENT_EXEC_TIMEOUT" => services.settings.component_exec_timeout = v.parse().ok(),
            _ => {}
        }
    }
    // The oracle's scripted model answers every run; without a script it echoes.
    let llm = case
        .script
        .as_ref()
        .and_then(|s| s.get("llm"))
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    let script = match Script::parse(&llm) {
        Ok(script) => script,
        Err(e) => panic!("the case's LLM script is invalid: {e}"),
    };
    // Kept until the run ends.
    let mut _server = None;
    services.llm = Some(match model {
        Model::InProcess => Arc::new(ScriptedProvider::new(script)),
        Model::OverHttp => {
            let server = ScriptedServer::start(script);
            let config = LlmConfig::single(&server.base_url(), Some("sk-test"));
            let provider = OpenAiProvider::new(services.http.clone(), config);
            _server = Some(server);
            Arc::new(provider)
        }
    });
    let rng = Arc::new(Mutex::new(PyRandom::seeded(0)));
    // The first turn starts a session of the published canvas, as a server does; later turns
    // reload the saved one.
    let mut session =
        Published::new(Arc::clone(&program), base_dsl).session(services.clone(), Arc::clone(&rng));
    {
        let mut s = session.shared.state();
        s.task_id = "task-ref".into();
    }
    for (i, turn) in case.turns.iter().enumerate() {
        let reload = i > 0;
        if reload {
            let saved = match session.save() {
                Json::Object(m) => m,
                _ => Map::new(),
            };
            session = Session::new(
                Arc::clone(&program),
                saved,
                services.clone(),
                Arc::clone(&rng),
                false,
            );
            session.shared.state().task_id = "task-ref".into();
        }
        lines.push(line(&serde_json::json!({"event": "_turn", "data": {
            "index": i, "query": turn.query, "inputs": turn.inputs, "reload": reload}})));
        let input = RunInput {
            query: Some(Json::String(turn.query.clone())),
            user_id: Some(Json::String("user-ref".into())),
            files: turn.files.clone(),
            inputs: Some(turn.inputs.clone()),
            chat_template_kwargs: None,
            webhook_payload: None,
        };
        let mut events: Vec<Json> = Vec::new();
        let canceler = case.cancel_after.map(|after| {
            let flag = session.cancel_flag();
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                flag.cancel();
            })
        });
        let outcome = session.run(input, &mut events).await;
        if let Some(task) = canceler {
            task.abort();
        }
        lines.extend(events.iter().map(line));
        if let RunOutcome::Aborted(e) = outcome {
            lines.push(line(&serde_json::json!({"event": "_exception", "data": {"type": e.class(), "message": e.to_string()}})));
        }
        lines.push(line(&state_line(&session)));
        run.saved.push(line(&session.save()));
    }
    run
}

/// The first difference between expected and actual lines, for a readable failure.
pub fn first_difference(expected: &[String], actual: &[String]) -> Option<String> {
    let n = expected.len().max(actual.len());
    for i in 0..n {
        let e = expected.get(i).map(String::as_str).unwrap_or("<missing>");
        let a = actual.get(i).map(String::as_str).unwrap_or("<missing>");
        if e != a {
            return Some(format!("line {}:\n  expected: {e}\n  actual:   {a}", i + 1));
        }
    }
    None
}
