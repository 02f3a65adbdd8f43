//! `canvasc serve` as a child process of a bench binary, so its memory and CPU are measured
//! alone: the binary re-runs itself with `--serve` ([`serve`]), the parent reads the address
//! it listens on ([`start_child`]), then makes an account, an API key and agents through the
//! HTTP API ([`account`], [`create_agent`]).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::openai::OpenAiProvider;
use canvasc_host::program_choice::Compiled;
use canvasc_host::serve::{FindProgram, Programs};
use canvasc_server::ServeConfig;
use serde_json::{json, Value};

/// The child's side: a server carrying `compiled` (found by `find`), SQLite storage under
/// `dir`, every model at the OpenAI-compatible `llm`, open registration. It prints
/// `LISTEN <base url>`, then answers each line its parent writes with `answer()` until the
/// parent closes the pipe (or dies).
pub fn serve(
    llm: &str,
    dir: &str,
    compiled: &'static [Compiled],
    find: Option<FindProgram>,
    answer: fn() -> String,
) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    runtime.block_on(async {
        let mut services = canvasc_host::services::from_env();
        services.llm = Some(Arc::new(OpenAiProvider::new(
            services.http.clone(),
            LlmConfig::single(llm, Some("sk-bench")),
        )));
        let engine = Arc::new(Programs::new(services, compiled, find));
        let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir.into());
        config.database_url = None;
        config.registration = canvasc_server::Registration::Open;
        let running = canvasc_server::start(config, engine)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        println!("LISTEN http://{}", running.addr);
        tokio::task::spawn_blocking(move || {
            for _ in std::io::stdin().lines().map_while(Result::ok) {
                println!("{}", answer());
            }
        })
        .await
        .ok();
    });
}

/// The child's side of a bench that measures the interpreter alone: when `args` (without the
/// program name) are `--serve <llm> <dir>`, serves (see [`serve`]) and says so.
pub fn serve_if_child(args: &[String]) -> bool {
    match args {
        [flag, llm, dir, ..] if flag == "--serve" => {
            serve(llm, dir, &[], None, String::new);
            true
        }
        _ => false,
    }
}

/// The parent's handle on the child; dropping it kills the child.
pub struct ServerChild {
    pub child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl ServerChild {
    /// Asks the child one question (a line) and returns its one-line answer (empty when the
    /// child is gone).
    pub fn ask(&mut self) -> String {
        let mut line = String::new();
        match writeln!(self.stdin, "ask").and_then(|()| self.stdout.read_line(&mut line)) {
            Ok(_) => line.trim_end().to_string(),
            Err(_) => String::new(),
        }
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts this binary as `<exe> --serve <llm> <dir>` and waits for the address it listens on.
pub fn start_child(llm: &str, dir: &Path) -> Result<ServerChild, String> {
    start_child_with(llm, dir, &[])
}

/// [`start_child`] with more environment (`REDIS_URL` for a Redis-coordinated server).
pub fn start_child_with(
    llm: &str,
    dir: &Path,
    env: &[(&str, String)],
) -> Result<ServerChild, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("--serve")
        .arg(llm)
        .arg(dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the server child: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(stdout);
    let mut line = String::new();
    stdout.read_line(&mut line).map_err(|e| e.to_string())?;
    let base = line
        .trim()
        .strip_prefix("LISTEN ")
        .ok_or_else(|| format!("the server child said {line:?}"))?
        .to_string();
    Ok(ServerChild {
        child,
        base,
        stdin,
        stdout,
    })
}

/// Registers a user, logs in and makes an API key: the `Authorization` header value
/// (`Bearer …`) for the agent API.
pub async fn account(client: &reqwest::Client, base: &str) -> Result<String, String> {
    let email = format!("load{}@example.com", std::process::id());
    let password = "bG9hZA==";
    let post = |path: &str, body: Value| client.post(format!("{base}/api/v1{path}")).json(&body);
    post(
        "/users",
        json!({"email": email, "nickname": "load", "password": password}),
    )
    .send()
    .await
    .map_err(|e| e.to_string())?;
    let login = post("/auth/login", json!({"email": email, "password": password}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let token = login
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .ok_or("login gave no token")?
        .to_string();
    let key = json_answer(post("/system/tokens", json!({})).header("Authorization", token)).await?;
    key["data"]["token"]
        .as_str()
        .map(|k| format!("Bearer {k}"))
        .ok_or_else(|| format!("no API key: {key}"))
}

/// Creates a released agent from a canvas's DSL (JSON text) and returns its id.
pub async fn create_agent(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    title: &str,
    source: &str,
) -> Result<String, String> {
    let dsl: Value = serde_json::from_str(source).map_err(|e| e.to_string())?;
    let created = json_answer(
        client
            .post(format!("{base}/api/v1/agents"))
            .header("Authorization", key)
            .json(&json!({"title": title, "dsl": dsl, "release": true})),
    )
    .await?;
    created["data"]["id"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no agent: {created}"))
}

/// Sends `request` and reads its answer as JSON.
pub async fn json_answer(request: reqwest::RequestBuilder) -> Result<Value, String> {
    request
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())
}
