//! `canvasc serve` as a child process, for the tests that drive it as an operator would: a
//! scratch directory, the server started on a free port (its address read off stdout), and
//! a small JSON client of its API. Each test binary uses part of it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A scratch directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("canvasc-serve-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub struct Server {
    pub child: Child,
    pub base: String,
    pub stdout: Arc<Mutex<String>>,
    pub log: PathBuf,
    /// Collects stdout after the address line; done once the server has exited.
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Ctrl-C, as an operator stops it (the trace exporter flushes), within 20 s.
    pub fn interrupt(&mut self) {
        // SAFETY: `kill` with a pid this test spawned and a valid signal number.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its whole stdout is in `stdout` once the reader has met the end.
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

pub fn serve(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Server {
    let log = dir.join("serve.log");
    let stderr = std::fs::File::create(&log).expect("a log file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_canvasc"));
    command
        .args(["serve", "--addr", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args(args)
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env_remove("REDIS_URL")
        .env_remove("CANVASC_CONFIG")
        .env_remove("CANVASC_REGISTRATION")
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("OTEL_TRACES_EXPORTER")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("canvasc serve starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let seen = Arc::new(Mutex::new(String::new()));
    loop {
        match lines.next() {
            Some(Ok(line)) => {
                seen.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push_str(&line);
                seen.lock().unwrap_or_else(|e| e.into_inner()).push('\n');
                if let Some(addr) = line.strip_prefix("canvasc serve: listening on ") {
                    let base = addr.trim().to_string();
                    let rest = seen.clone();
                    let reader = std::thread::spawn(move || {
                        for line in lines.map_while(Result::ok) {
                            let mut rest = rest.lock().unwrap_or_else(|e| e.into_inner());
                            rest.push_str(&line);
                            rest.push('\n');
                        }
                    });
                    return Server {
                        child,
                        base,
                        stdout: seen,
                        log,
                        reader: Some(reader),
                    };
                }
            }
            _ => {
                let _ = child.wait();
                panic!(
                    "canvasc serve did not start: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
        }
    }
}

pub struct Http {
    pub client: reqwest::Client,
    pub base: String,
}

impl Http {
    /// A client of the server at `base` (rustls with ring, as the product's clients).
    pub fn new(base: &str) -> Http {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Http {
            client: reqwest::Client::new(),
            base: base.to_string(),
        }
    }

    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        auth: &str,
        body: Value,
    ) -> (Value, Option<String>) {
        let mut request = self
            .client
            .request(method, format!("{}/api/v1{path}", self.base))
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if !auth.is_empty() {
            request = request.header("Authorization", auth);
        }
        let response = request.send().await.expect("the server answers");
        let token = response
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = response.text().await.expect("a body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (body, token)
    }

    pub async fn ok(&self, method: reqwest::Method, path: &str, auth: &str, body: Value) -> Value {
        let (answer, _) = self.send(method, path, auth, body).await;
        assert_eq!(answer["code"], 0, "{path}: {answer}");
        answer["data"].clone()
    }

    pub async fn login(&self, email: &str, password: &str) -> String {
        let (answer, token) = self
            .send(
                reqwest::Method::POST,
                "/auth/login",
                "",
                json!({"email": email, "password": password}),
            )
            .await;
        assert_eq!(answer["code"], 0, "{answer}");
        token.expect("a login token")
    }
}
