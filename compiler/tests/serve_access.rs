//! `canvasc serve`'s access settings as an operator meets them (issue 39, items 11 and 14):
//! open registration is announced with a warning on stderr, and no secret a full session
//! creates (passwords, login tokens, an API key and its beta token, an invitation code) ever
//! appears in an exported span, a log line (`RUST_LOG=debug`) or the metrics. Spans go over
//! OTLP/HTTP to a receiver written here, which keeps the raw bytes of every export: a secret
//! in any attribute would be there verbatim (protobuf stores strings as they are).

#![cfg(unix)]

mod serve_child;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch};

#[test]
fn open_registration_is_warned_about_and_closed_is_the_default() {
    let scratch = Scratch::new("warn");
    let mut open = serve(&scratch.0, &["--registration", "open"], &[]);
    started(&open);
    open.interrupt();
    let stderr = open.stderr();
    assert!(
        stderr.contains("warning: canvasc serve: --registration open"),
        "{stderr}"
    );
    drop(open);

    let scratch = Scratch::new("closed");
    let mut closed = serve(&scratch.0, &[], &[]);
    started(&closed);
    closed.interrupt();
    let stdout = closed.stdout.lock().map(|s| s.clone()).unwrap_or_default();
    assert!(
        stdout.contains("canvasc serve: registration closed"),
        "{stdout}"
    );
    assert!(!closed.stderr().contains("warning"), "{}", closed.stderr());
}

/// Waits until the server has printed its start-up lines: a Ctrl-C before its handler is in
/// place ends the process at once, before it says anything more.
fn started(server: &serve_child::Server) {
    let waited = std::time::Instant::now();
    while !server
        .stdout
        .lock()
        .map(|s| s.contains("compiled program"))
        .unwrap_or(false)
    {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(20),
            "no start-up lines: {}",
            server.stderr()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// An OTLP/HTTP receiver that answers every request with an empty 200 and keeps the raw bytes.
fn collector() -> (String, Arc<Mutex<Vec<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let kept = kept.clone();
            std::thread::spawn(move || receive(stream, &kept));
        }
    });
    (base, received)
}

/// Reads HTTP/1.1 requests off one connection (head, then `Content-Length` bytes of body).
fn receive(mut stream: std::net::TcpStream, kept: &Mutex<Vec<u8>>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let Some(head_end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    buffer.extend_from_slice(&chunk[..n]);
                    continue;
                }
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + 4 + length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let request: Vec<u8> = buffer.drain(..head_end + 4 + length).collect();
        kept.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(&request);
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n",
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_of_a_full_session_reaches_spans_logs_or_metrics() {
    use reqwest::Method;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let scratch = Scratch::new("secrets");
    let (collector, received) = collector();
    let mut server = serve(
        &scratch.0,
        &["--registration", "invite"],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", collector),
            ("OTEL_SERVICE_NAME", "secret-scan".into()),
            ("RUST_LOG", "debug".into()),
        ],
    );
    let http = Http {
        client: reqwest::Client::new(),
        base: server.base.clone(),
    };
    let mut secrets: Vec<(&str, String)> = Vec::new();

    let admin_password = "YWRtaW4tcGFzc3dvcmQtOTk0MQ==";
    secrets.push(("the administrator's password", admin_password.into()));
    http.ok(
        Method::POST,
        "/users",
        "",
        json!({"email": "admin@example.com", "nickname": "a", "password": admin_password}),
    )
    .await;
    let admin = http.login("admin@example.com", admin_password).await;
    secrets.push(("the administrator's login token", admin.clone()));
    let invitation = http
        .ok(
            Method::POST,
            "/admin/invitations",
            &admin,
            json!({"email": "user@example.com"}),
        )
        .await;
    let code = invitation["code"].as_str().expect("a code").to_string();
    secrets.push(("the invitation code", code.clone()));

    let password = "dXNlci1wYXNzd29yZC04ODEy";
    secrets.push(("the user's password", password.into()));
    http.ok(
        Method::POST,
        "/users",
        "",
        json!({"email": "user@example.com", "nickname": "u", "password": password,
               "invitation_code": code}),
    )
    .await;
    let wrong = "d3JvbmctcGFzc3dvcmQtNzcxMw==";
    secrets.push(("a wrong password", wrong.into()));
    let (refused, _) = http
        .send(
            Method::POST,
            "/auth/login",
            "",
            json!({"email": "user@example.com", "password": wrong}),
        )
        .await;
    assert_eq!(refused["code"], 109, "{refused}");
    let token = http.login("user@example.com", password).await;
    secrets.push(("the user's login token", token.clone()));
    let key = http
        .ok(Method::POST, "/system/tokens", &token, json!({}))
        .await;
    let api_key = key["token"].as_str().expect("a key").to_string();
    let beta = key["beta"].as_str().expect("a beta token").to_string();
    secrets.push(("the API key", api_key.clone()));
    secrets.push(("the beta token", beta.clone()));
    let bearer = format!("Bearer {api_key}");

    let dsl = echo_canvas();
    let agent = http
        .ok(
            Method::POST,
            "/agents",
            &bearer,
            json!({"title": "scan", "dsl": dsl}),
        )
        .await;
    let agent_id = agent["id"].as_str().expect("an agent id").to_string();
    let session = http
        .ok(
            Method::POST,
            &format!("/agents/{agent_id}/sessions"),
            &bearer,
            json!({"name": "s"}),
        )
        .await;
    let session_id = session["id"].as_str().expect("a session id").to_string();
    let run = http
        .ok(
            Method::POST,
            "/agents/chat/completions",
            &bearer,
            json!({"agent_id": agent_id, "session_id": session_id, "query": "hello", "stream": false}),
        )
        .await;
    assert_eq!(run["event"], "message_end", "{run}");
    let (streamed, _) = http
        .send(
            Method::POST,
            "/agents/chat/completions",
            &bearer,
            json!({"agent_id": agent_id, "session_id": session_id, "query": "again", "stream": true}),
        )
        .await;
    assert!(streamed.to_string().contains("[DONE]"), "{streamed}");
    http.ok(Method::GET, "/system/tokens", &bearer, json!({}))
        .await;
    let metrics = http
        .client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("a body");
    // RAGFlow's clients revoke a key by the key itself, in the URL.
    http.ok(
        Method::DELETE,
        &format!("/system/tokens/{api_key}"),
        &token,
        json!({}),
    )
    .await;
    http.ok(Method::POST, "/auth/logout", &token, json!({}))
        .await;
    http.ok(Method::POST, "/auth/logout", &admin, json!({}))
        .await;
    server.interrupt();

    let spans = received.lock().map(|r| r.clone()).unwrap_or_default();
    let spans = String::from_utf8_lossy(&spans).into_owned();
    let logs = server.stderr();
    let stdout = server.stdout.lock().map(|s| s.clone()).unwrap_or_default();
    assert!(
        spans.contains("secret-scan") && spans.contains("/api/v1/auth/login"),
        "no request span was exported ({} bytes received)",
        spans.len()
    );
    assert!(
        spans.contains("/api/v1/system/tokens/{key}"),
        "the key's revocation is recorded by its route"
    );
    assert!(
        logs.contains("DEBUG") || logs.contains("debug"),
        "no debug log: {logs}"
    );
    for (what, secret) in &secrets {
        for (place, text) in [
            ("an exported span", &spans),
            ("the log", &logs),
            ("stdout", &stdout),
            ("the metrics", &metrics),
        ] {
            assert!(!text.contains(secret.as_str()), "{what} appears in {place}");
        }
    }
}

/// `[quotas]` and the models of `./canvasc.toml` reach `canvasc serve` (issue 39, items 12
/// and 15): a second run in one minute is refused, and `GET /models` lists the configured
/// factory. A wrong key in `[quotas]` stops the server with the file and the key named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_configuration_file_sets_quotas_and_lists_its_models() {
    use reqwest::Method;
    let scratch = Scratch::new("quotas");
    std::fs::write(
        scratch.0.join("canvasc.toml"),
        "[quotas]\nruns_per_minute = 1\n\n[factories.DeepSeek]\napi_key = \"unused\"\n",
    )
    .expect("a configuration");
    let server = serve(&scratch.0, &["--registration", "open"], &[]);
    let http = Http {
        client: reqwest::Client::new(),
        base: server.base.clone(),
    };
    let password = "cXVvdGEtcGFzc3dvcmQ=";
    http.ok(
        Method::POST,
        "/users",
        "",
        json!({"email": "q@example.com", "nickname": "q", "password": password}),
    )
    .await;
    let token = http.login("q@example.com", password).await;
    let models = http.ok(Method::GET, "/models", &token, json!({})).await;
    let listed: Vec<(&str, &str)> = models
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m["provider_name"].as_str().unwrap_or_default(),
                m["name"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(listed, [("DeepSeek", "*")]);
    let dsl = echo_canvas();
    let agent = http
        .ok(
            Method::POST,
            "/agents",
            &token,
            json!({"title": "q", "dsl": dsl}),
        )
        .await;
    let agent = agent["id"].as_str().expect("an agent id").to_string();
    let minute = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / 60)
            .unwrap_or(0)
    };
    let run = json!({"agent_id": agent, "query": "hello"});
    // A minute that turns between the two runs opens a new window: tried again.
    let mut refused = None;
    for _ in 0..3 {
        let at = minute();
        let (first, _) = http
            .send(
                Method::POST,
                "/agents/chat/completions",
                &token,
                run.clone(),
            )
            .await;
        let (second, _) = http
            .send(
                Method::POST,
                "/agents/chat/completions",
                &token,
                run.clone(),
            )
            .await;
        if minute() == at {
            assert_eq!(first["code"], 0, "{first}");
            refused = Some(second);
            break;
        }
    }
    let refused = refused.expect("two runs fitted in one minute");
    assert_eq!(refused["code"], 102, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Quota exceeded: runs per minute (1 for this tenant).")),
        "{refused}"
    );
    drop(server);

    let scratch = Scratch::new("quotas-wrong");
    std::fs::write(
        scratch.0.join("canvasc.toml"),
        "[quotas]\nruns_per_hour = 1\n",
    )
    .expect("a configuration");
    let output = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(scratch.0.join("data"))
        .current_dir(&scratch.0)
        .env_remove("CANVASC_CONFIG")
        .env_remove("DATABASE_URL")
        .env_remove("REDIS_URL")
        .stdin(Stdio::null())
        .output()
        .expect("canvasc serve runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("canvasc.toml: [quotas]: unknown key `runs_per_hour`"),
        "{stderr}"
    );
}

/// Begin → Message answering the question back: an agent that needs no model.
fn echo_canvas() -> Value {
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
