//! One `canvasc serve` per database while runs are coordinated in-process (issue: two servers on
//! one SQLite data dir both started, ran the same session at once, and the last save won). A
//! second process on the same database is refused with a message saying why and what to do,
//! the first keeps serving, and a `kill -9` of the first frees the database at once; with
//! Redis, several processes share it as before. On SQLite, PostgreSQL and MariaDB (the latter
//! two on this machine's servers; unreachable ones fail under `CANVASC_REQUIRE_SHARED=1` or
//! `CI`, and are skipped with a line on stderr otherwise).

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sqlx::Executor;

const REFUSAL: &str = "another canvasc serve process already uses the database";

fn required() -> bool {
    std::env::var("CANVASC_REQUIRE_SHARED").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

fn stamp() -> (u64, u32) {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    (secs, std::process::id())
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let (secs, pid) = stamp();
        let dir = std::env::temp_dir().join(format!("canvasc-sole-{test}-{pid}-{secs}"));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a `canvasc serve` process ended up: serving at a base URL, or exited with its stderr.
enum Started {
    Serving(Server),
    Exited { code: Option<i32>, stderr: String },
}

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path, name: &str, database: Option<&str>, redis: Option<&str>) -> Started {
    serve_with(dir, name, database, redis, &[])
}

fn serve_with(
    dir: &Path,
    name: &str,
    database: Option<&str>,
    redis: Option<&str>,
    env: &[(&str, &str)],
) -> Started {
    let log = dir.join(format!("{name}.log"));
    let stderr = std::fs::File::create(&log).expect("a log file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_canvasc"));
    command
        .args(["serve", "--addr", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .env_remove("DATABASE_URL")
        .env_remove("REDIS_URL")
        .env_remove("CANVASC_CONFIG")
        .env_remove("CANVASC_CORS_ORIGINS")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if let Some(url) = database {
        command.env("DATABASE_URL", url);
    }
    if let Some(url) = redis {
        command
            .env("REDIS_URL", url)
            .env("CANVASC_REDIS_PREFIX", format!("sole-{}:", stamp().1));
    }
    let mut child = command.spawn().expect("canvasc serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(addr) = line.strip_prefix("canvasc serve: listening on ") {
                    std::thread::spawn(move || for _ in lines {});
                    return Started::Serving(Server {
                        child,
                        base: addr.trim().to_string(),
                    });
                }
            }
            _ => {
                let status = child.wait().expect("the process ends");
                return Started::Exited {
                    code: status.code(),
                    stderr: std::fs::read_to_string(&log).unwrap_or_default(),
                };
            }
        }
    }
}

fn serving(started: Started, what: &str) -> Server {
    match started {
        Started::Serving(server) => server,
        Started::Exited { code, stderr } => panic!("{what} did not start ({code:?}): {stderr}"),
    }
}

async fn ping(server: &Server) -> u16 {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("an HTTP client");
    let url = format!("{}/api/v1/system/ping", server.base);
    match client.get(&url).send().await {
        Ok(answer) => answer.status().as_u16(),
        Err(e) => panic!("{url}: {e}"),
    }
}

/// Starts A, refuses B, checks A still serves, kills A with SIGKILL and starts C at once.
async fn one_server_per_database(test: &str, database: Option<String>) {
    let scratch = Scratch::new(test);
    let db = database.as_deref();
    let mut a = serving(serve(&scratch.0, "a", db, None), "the first server");
    match serve(&scratch.0, "b", db, None) {
        Started::Serving(_) => panic!("a second server started on the database the first uses"),
        Started::Exited { code, stderr } => {
            assert_ne!(code, Some(0), "the refused server exits with a failure");
            assert!(stderr.contains(REFUSAL), "the refusal says why: {stderr}");
            assert!(
                stderr.contains("REDIS_URL"),
                "the refusal says what to do: {stderr}"
            );
            if let Some(url) = db {
                let password_free = url.split('@').next_back().unwrap_or(url);
                assert!(
                    stderr.contains(password_free),
                    "it names the database: {stderr}"
                );
            }
        }
    }
    assert_eq!(ping(&a).await, 200, "the first server still answers");
    // SIGKILL: nothing of canvasc runs on the way out, the OS or the database drops the claim.
    let _ = a.child.kill();
    let _ = a.child.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    let c = loop {
        match serve(&scratch.0, "c", db, None) {
            Started::Serving(c) => break c,
            // A PostgreSQL or MariaDB session of a killed client ends when the server notices
            // the closed socket: at once on loopback, allowed a few seconds here.
            Started::Exited { stderr, .. } if Instant::now() < deadline => {
                assert!(stderr.contains(REFUSAL), "{stderr}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Started::Exited { code, stderr } => {
                panic!("no server could start after the first was killed ({code:?}): {stderr}")
            }
        }
    };
    assert_eq!(ping(&c).await, 200);
}

/// A database of its own on the server at `admin` (named as `.ci/run` sweeps them).
async fn fresh_database(admin: &str, base: &str, kind: &str) -> Option<String> {
    let (secs, pid) = stamp();
    let name = format!("canvasc_test_{secs}_{pid}");
    let made = async {
        let pool = sqlx::AnyPool::connect(admin).await?;
        pool.execute(format!("CREATE DATABASE {name}").as_str())
            .await?;
        pool.close().await;
        Ok::<_, sqlx::Error>(())
    };
    match tokio::time::timeout(Duration::from_secs(5), made).await {
        Ok(Ok(())) => Some(format!("{base}/{name}")),
        Ok(Err(e)) => unavailable(format!("{kind} at {admin}: {e}")),
        Err(_) => unavailable(format!("{kind} at {admin} does not answer")),
    }
}

fn unavailable<T>(why: String) -> Option<T> {
    assert!(!required(), "{why}");
    eprintln!("skipped: {why}");
    None
}

#[tokio::test]
async fn a_second_server_on_one_sqlite_data_dir_is_refused_until_the_first_dies() {
    one_server_per_database("sqlite", None).await;
}

#[tokio::test]
async fn a_second_server_on_one_postgresql_database_is_refused_until_the_first_dies() {
    sqlx::any::install_default_drivers();
    let base = "postgres://postgres@127.0.0.1:5432";
    let Some(url) = fresh_database(&format!("{base}/test"), base, "PostgreSQL").await else {
        return;
    };
    one_server_per_database("postgres", Some(url)).await;
}

#[tokio::test]
async fn a_second_server_on_one_mariadb_database_is_refused_until_the_first_dies() {
    sqlx::any::install_default_drivers();
    let base = "mysql://root@127.0.0.1:3306";
    let Some(url) = fresh_database(&format!("{base}/test"), base, "MariaDB").await else {
        return;
    };
    one_server_per_database("mariadb", Some(url)).await;
}

/// With Redis coordinating, replicas share one database by design: nothing is claimed.
#[tokio::test]
async fn servers_coordinated_through_redis_share_one_database() {
    let redis = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let reachable = std::net::TcpStream::connect_timeout(
        &"127.0.0.1:6379".parse().expect("an address"),
        Duration::from_secs(2),
    );
    if redis.contains("127.0.0.1:6379") && reachable.is_err() {
        unavailable::<()>(format!("Redis at {redis} is unreachable"));
        return;
    }
    let scratch = Scratch::new("redis");
    let a = serving(serve(&scratch.0, "a", None, Some(&redis)), "replica A");
    let b = serving(serve(&scratch.0, "b", None, Some(&redis)), "replica B");
    assert_eq!(ping(&a).await, 200);
    assert_eq!(ping(&b).await, 200);
}

/// A browser's preflight from `origin`: the `Access-Control-Allow-Origin` answered, if any.
async fn preflight(server: &Server, origin: &str) -> Option<String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let answer = client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/api/v1/agents", server.base),
        )
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization,content-type",
        )
        .send()
        .await
        .expect("the server answers");
    answer
        .headers()
        .get("access-control-allow-origin")
        .and_then(|v| v.to_str().ok())
        .map(String::from)
}

#[tokio::test]
async fn browsers_reach_the_api_only_from_the_configured_origins() {
    let scratch = Scratch::new("cors");
    // The default: same-origin only, no CORS answer for any other page.
    let closed = serving(
        serve(&scratch.0, "closed", None, None),
        "the default server",
    );
    assert_eq!(preflight(&closed, "https://evil.example").await, None);
    drop(closed);
    let open = serving(
        serve_with(
            &scratch.0,
            "open",
            None,
            None,
            &[(
                "CANVASC_CORS_ORIGINS",
                "https://agents.example, http://localhost:9222",
            )],
        ),
        "the server with origins",
    );
    assert_eq!(
        preflight(&open, "https://agents.example").await.as_deref(),
        Some("https://agents.example")
    );
    assert_eq!(
        preflight(&open, "http://localhost:9222").await.as_deref(),
        Some("http://localhost:9222")
    );
    assert_eq!(preflight(&open, "https://evil.example").await, None);
    drop(open);
    // A malformed origin stops the start with the setting's name.
    match serve_with(
        &scratch.0,
        "bad",
        None,
        None,
        &[("CANVASC_CORS_ORIGINS", "https://agents.example/app")],
    ) {
        Started::Exited { stderr, .. } => assert!(
            stderr.contains("CANVASC_CORS_ORIGINS") && stderr.contains("agents.example/app"),
            "{stderr}"
        ),
        Started::Serving(_) => panic!("a path in an origin is refused"),
    }
}
