//! One server per test process (on its own runtime thread, with a fresh database), and a
//! client per tenant.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use canvasc_server::coord::Coordinator;
use canvasc_server::{ServeConfig, Store};
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::Executor;

pub struct Server {
    pub base: String,
    pub store: Store,
    /// The database's URL, for tests that act on the database directly (a trigger that makes
    /// a write fail).
    pub database_url: String,
    /// The server's run coordinator, where a run's record (its status) is read.
    pub coord: Coordinator,
}

static SERVER: OnceLock<Server> = OnceLock::new();

/// The test server's keep-alive interval (short, so a slow run shows keep-alive comments).
pub const KEEP_ALIVE_MS: u64 = 50;

/// The running test server (started on first use).
pub fn server() -> &'static Server {
    SERVER.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = tx.send(Err(format!("runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let started = match database_url().await {
                    Ok(url) => {
                        remove_stale_data_dirs();
                        let dir = std::env::temp_dir()
                            .join(format!("canvasc-server-test-{}", std::process::id()));
                        let database_url = url.clone().unwrap_or_else(|| Store::sqlite_url(&dir));
                        let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir);
                        config.database_url = url;
                        config.max_body_bytes = 64 * 1024;
                        config.keep_alive = std::time::Duration::from_millis(KEEP_ALIVE_MS);
                        // Every test registers its own tenants.
                        config.registration = canvasc_server::Registration::Open;
                        canvasc_server::start(config, crate::engine::engine())
                            .await
                            .map(|running| (running, database_url))
                            .map_err(|e| e.to_string())
                    }
                    Err(e) => Err(e),
                };
                match started {
                    Ok((running, database_url)) => {
                        let _ = tx.send(Ok(Server {
                            base: format!("http://{}", running.addr),
                            store: running.store.clone(),
                            database_url,
                            coord: running.coord.clone(),
                        }));
                        let _ = running.wait().await;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            });
        });
        match rx.recv() {
            Ok(Ok(server)) => server,
            Ok(Err(e)) => panic!("the test server did not start: {e}"),
            Err(e) => panic!("the test server thread died: {e}"),
        }
    })
}

/// Another server of this test process, on a database of its own (the kind
/// `CANVASC_SERVER_DB` picks), configured by `configure`: for tests of what the shared
/// server's configuration rules out (closed registration, short token lifetimes, tight
/// limits). It serves on the calling test's runtime, until that ends.
pub async fn extra_server(configure: impl FnOnce(&mut ServeConfig)) -> String {
    extra_server_running(crate::engine::engine(), configure).await
}

/// [`extra_server`] with `runner` running its turns.
pub async fn extra_server_running(
    runner: std::sync::Arc<dyn canvasc_server::TurnRunner>,
    configure: impl FnOnce(&mut ServeConfig),
) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Under the shared server's directory, which later runs sweep.
    let dir = std::env::temp_dir()
        .join(format!("canvasc-server-test-{}", std::process::id()))
        .join(format!("extra-{}", N.fetch_add(1, Ordering::Relaxed)));
    let url = database_url().await.unwrap_or_else(|e| panic!("{e}"));
    let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir);
    config.database_url = url;
    config.max_body_bytes = 64 * 1024;
    configure(&mut config);
    let running = canvasc_server::start(config, runner)
        .await
        .unwrap_or_else(|e| panic!("the extra server did not start: {e}"));
    let base = format!("http://{}", running.addr);
    tokio::spawn(running.wait());
    base
}

/// Two replicas of one deployment: servers on one fresh database (the kind
/// `CANVASC_SERVER_DB` picks), each configured by `configure` (which names their shared
/// coordinator), serving on the calling test's runtime until that ends.
pub async fn replica_pair(configure: impl Fn(&mut ServeConfig)) -> (String, String) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = std::env::temp_dir()
        .join(format!("canvasc-server-test-{}", std::process::id()))
        .join(format!("pair-{}", N.fetch_add(1, Ordering::Relaxed)));
    let url = match database_url().await.unwrap_or_else(|e| panic!("{e}")) {
        Some(url) => url,
        None => {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            Store::sqlite_url(&dir)
        }
    };
    let mut bases = Vec::new();
    for replica in ["a", "b"] {
        let mut config = ServeConfig::new(([127, 0, 0, 1], 0).into(), dir.join(replica));
        config.database_url = Some(url.clone());
        config.max_body_bytes = 64 * 1024;
        configure(&mut config);
        // One after the other: the second finds the schema the first made.
        let running = canvasc_server::start(config, crate::engine::engine())
            .await
            .unwrap_or_else(|e| panic!("replica {replica} did not start: {e}"));
        bases.push(format!("http://{}", running.addr));
        tokio::spawn(running.wait());
    }
    let b = bases.pop().unwrap_or_default();
    let a = bases.pop().unwrap_or_default();
    (a, b)
}

/// The database of this run: `None` for SQLite in a temporary directory, else a fresh
/// database on the machine's PostgreSQL or MariaDB.
async fn database_url() -> Result<Option<String>, String> {
    let kind = std::env::var("CANVASC_SERVER_DB").unwrap_or_else(|_| "sqlite".into());
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // The first is the shared server's; extra servers' get a serial (the pid stays last, so
    // later runs still know whose it was).
    let name = match serial {
        0 => format!("canvasc_test_{stamp}_{}", std::process::id()),
        n => format!("canvasc_test_{stamp}x{n}_{}", std::process::id()),
    };
    let (admin, url) = match kind.as_str() {
        "sqlite" => return Ok(None),
        "postgres" => (
            "postgres://postgres@127.0.0.1:5432/test".to_string(),
            format!("postgres://postgres@127.0.0.1:5432/{name}"),
        ),
        "mysql" => (
            "mysql://root@127.0.0.1:3306/test".to_string(),
            format!("mysql://root@127.0.0.1:3306/{name}"),
        ),
        other => return Err(format!("CANVASC_SERVER_DB: unknown database `{other}`")),
    };
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&admin)
        .await
        .map_err(|e| format!("CANVASC_SERVER_DB={kind}: {admin} is unreachable: {e}"))?;
    drop_stale_databases(&pool, &kind).await;
    pool.execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .map_err(|e| format!("CANVASC_SERVER_DB={kind}: cannot create {name}: {e}"))?;
    pool.close().await;
    Ok(Some(url))
}

/// Drops the databases of earlier runs whose process has ended. A run cannot drop its own:
/// the test harness has no hook after the last test, and the server holds connections to it
/// until the process exits. So each run sweeps what finished runs left (`.ci/run` sweeps the
/// last one the same way), and never a database whose run is still going: the name ends with
/// the pid of the process that made it.
async fn drop_stale_databases(pool: &sqlx::AnyPool, kind: &str) {
    let list = match kind {
        "postgres" => "SELECT datname::text FROM pg_database WHERE datname LIKE 'canvasc_test_%'",
        _ => {
            "SELECT CAST(schema_name AS CHAR) FROM information_schema.schemata \
             WHERE schema_name LIKE 'canvasc_test_%'"
        }
    };
    let names: Vec<String> = match sqlx::query_scalar(list).fetch_all(pool).await {
        Ok(names) => names,
        Err(e) => {
            eprintln!("note: cannot list earlier test databases: {e}");
            return;
        }
    };
    for name in names.into_iter().filter(|name| run_has_ended(name)) {
        if let Err(e) = pool
            .execute(format!("DROP DATABASE IF EXISTS {name}").as_str())
            .await
        {
            eprintln!("note: cannot drop the earlier test database {name}: {e}");
        }
    }
}

/// Removes the data directories (`canvasc-server-test-<pid>`, the SQLite database and
/// uploads) of earlier runs whose process has ended, for the reason the databases are swept.
fn remove_stale_data_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("canvasc-server-test-"))
        else {
            continue;
        };
        if process_has_ended(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether `pid` is a process id and no such process runs (Linux's `/proc`; elsewhere nothing
/// counts as ended, so nothing is removed).
fn process_has_ended(pid: &str) -> bool {
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && std::path::Path::new("/proc/self").exists()
        && !std::path::Path::new("/proc").join(pid).exists()
}

/// Whether `name` is `canvasc_test_<secs>_<pid>` and process `pid` has ended.
fn run_has_ended(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("canvasc_test_") else {
        return false;
    };
    let Some((secs, pid)) = rest.split_once('_') else {
        return false;
    };
    !secs.is_empty()
        && secs.bytes().all(|b| b.is_ascii_digit() || b == b'x')
        && process_has_ended(pid)
}

/// One call to a server at `base` (the shared server's `Client` knows only its own base).
pub async fn call_at(
    base: &str,
    method: Method,
    path: &str,
    auth: Option<&str>,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, format!("{base}/api/v1{path}"))
        .header("Content-Type", "application/json");
    if let Some(auth) = auth {
        request = request.header("Authorization", auth);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body.to_string());
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("a body");
    let body =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {status} {text}"));
    Answer {
        status,
        body,
        headers,
    }
}

/// A JSON answer: its HTTP status and body.
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub headers: reqwest::header::HeaderMap,
}

impl Answer {
    pub fn code(&self) -> i64 {
        self.body["code"].as_i64().unwrap_or(-1)
    }

    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    /// Asserts HTTP 200 and `code`, naming the whole body otherwise.
    pub fn expect(&self, code: i64) -> &Value {
        assert_eq!((self.status, self.code()), (200, code), "{}", self.body);
        &self.body["data"]
    }
}

/// A client acting for one credential (or none).
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    pub auth: Option<String>,
}

impl Client {
    pub fn anonymous() -> Client {
        server();
        Client {
            http: reqwest::Client::new(),
            auth: None,
        }
    }

    pub fn with_auth(&self, auth: &str) -> Client {
        Client {
            http: self.http.clone(),
            auth: Some(auth.to_string()),
        }
    }

    pub fn url(path: &str) -> String {
        format!("{}/api/v1{path}", server().base)
    }

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, Client::url(path));
        if let Some(auth) = &self.auth {
            request = request.header("Authorization", auth);
        }
        request
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("a body");
        let body = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {status} {text}"));
        Answer {
            status,
            body,
            headers,
        }
    }

    /// A call as RAGFlow's test helpers make it: JSON content type even without a body.
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let request = self
            .request(method, path)
            .header("Content-Type", "application/json");
        let request = match body {
            Some(body) => request.body(body.to_string()),
            None => request,
        };
        self.send(request).await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Answer {
        self.call(Method::PUT, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        self.call(Method::DELETE, path, None).await
    }

    pub async fn delete_with(&self, path: &str, body: Value) -> Answer {
        self.call(Method::DELETE, path, Some(body)).await
    }
}

/// A registered user: its login token and an API key (`Bearer` form).
pub struct Tenant {
    pub id: String,
    pub email: String,
    pub login: Client,
    pub api: Client,
    pub api_key: String,
    pub beta: String,
}

pub fn unique(prefix: &str) -> String {
    format!("{prefix}_{}", uuid_like())
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:x}{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Registers a user, logs in, and creates an API key.
pub async fn tenant() -> Tenant {
    let anonymous = Client::anonymous();
    let email = format!("{}@example.com", unique("qa"));
    let password = "c2VjcmV0IHBhc3N3b3Jk";
    let user = anonymous
        .post(
            "/users",
            json!({"email": email, "nickname": "qa", "password": password}),
        )
        .await;
    let id = user.expect(0)["id"]
        .as_str()
        .expect("a user id")
        .to_string();
    let login = anonymous
        .post("/auth/login", json!({"email": email, "password": password}))
        .await;
    login.expect(0);
    let token = login.headers["authorization"]
        .to_str()
        .expect("a token")
        .to_string();
    let login = anonymous.with_auth(&token);
    let key = login.post("/system/tokens", json!({})).await;
    let key = key.expect(0).clone();
    let api_key = key["token"].as_str().expect("a key").to_string();
    let beta = key["beta"].as_str().expect("a beta token").to_string();
    Tenant {
        api: anonymous.with_auth(&format!("Bearer {api_key}")),
        id,
        email,
        login,
        api_key,
        beta,
    }
}

/// Registers `email` on the server at `base`, logs in and makes an API key: the
/// `Authorization` value (`Bearer …`).
pub async fn api_key_at(base: &str, email: &str) -> String {
    let password = "c2VjcmV0IHBhc3N3b3Jk";
    let user = json!({"email": email, "nickname": "q", "password": password});
    call_at(base, Method::POST, "/users", None, Some(user), &[])
        .await
        .expect(0);
    let credentials = json!({"email": email, "password": password});
    let login = call_at(
        base,
        Method::POST,
        "/auth/login",
        None,
        Some(credentials),
        &[],
    )
    .await;
    login.expect(0);
    let token = login.headers["authorization"]
        .to_str()
        .expect("a token")
        .to_string();
    let key = call_at(
        base,
        Method::POST,
        "/system/tokens",
        Some(&token),
        Some(json!({})),
        &[],
    )
    .await;
    format!("Bearer {}", key.expect(0)["token"].as_str().expect("a key"))
}

/// The DSL of RAGFlow's own agent tests.
pub fn minimal_dsl() -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["message"], "upstream": []},
            "message": {"obj": {"component_name": "Message", "params": {"content": ["{sys.query}"]}},
                        "downstream": [], "upstream": ["begin"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    })
}

/// A DSL the checker rejects (an edge to a component that does not exist).
pub fn broken_dsl() -> Value {
    serde_json::from_str(include_str!(
        "../../../fixtures/broken/dangling-edge-downstream.json"
    ))
    .expect("the fixture is JSON")
}

/// Creates an agent and returns its id.
pub async fn agent(client: &Client, title: &str) -> String {
    agent_with(client, title, minimal_dsl()).await
}

/// Creates an agent on `dsl` and returns its id.
pub async fn agent_with(client: &Client, title: &str, dsl: Value) -> String {
    let created = client
        .post("/agents", json!({"title": title, "dsl": dsl}))
        .await;
    created.expect(0)["id"]
        .as_str()
        .expect("an agent id")
        .to_string()
}

/// Creates a session and returns its id.
pub async fn session(client: &Client, agent_id: &str, name: &str) -> String {
    let created = client
        .post(
            &format!("/agents/{agent_id}/sessions"),
            json!({"name": name}),
        )
        .await;
    created.expect(0)["id"]
        .as_str()
        .expect("a session id")
        .to_string()
}
