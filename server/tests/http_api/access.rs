//! Who may get in (issue 39, "Access"): registration modes and the administrator, invitations,
//! login limits, bounded password work, token lifetimes and logout, API keys by id, the
//! connection bounds, and RAGFlow's RSA-encrypted password form. Tests that need another
//! configuration than the shared server's start a server of their own (`extra_server`).

use std::time::{Duration, Instant};

use base64::Engine as _;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::{call_at as call, extra_server, tenant, unique, Answer, Client};

async fn register(base: &str, email: &str, password: &str, code: Option<&str>) -> Answer {
    let mut body = json!({"email": email, "nickname": "n", "password": password});
    if let Some(code) = code {
        body["invitation_code"] = code.into();
    }
    call(base, Method::POST, "/users", None, Some(body), &[]).await
}

/// Logs in; the token on success.
async fn login(base: &str, email: &str, password: &str, from: &str) -> (Answer, Option<String>) {
    let answer = call(
        base,
        Method::POST,
        "/auth/login",
        None,
        Some(json!({"email": email, "password": password})),
        &[("X-Test-Client", from)],
    )
    .await;
    let token = answer
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (answer, token)
}

fn email(prefix: &str) -> String {
    format!("{}@example.com", unique(prefix))
}

const PASSWORD: &str = "c2VjcmV0IHBhc3N3b3Jk";

#[tokio::test]
async fn closed_registration_admits_the_first_account_as_admin_and_then_only_admins_create() {
    let base = extra_server(|_| {}).await;
    let config = call(&base, Method::GET, "/system/config", None, None, &[]).await;
    assert_eq!(config.expect(0)["registerEnabled"], 1, "an empty database");

    let admin = email("admin");
    let first = register(&base, &admin, PASSWORD, None).await;
    assert_eq!(first.expect(0)["is_superuser"], true);
    let config = call(&base, Method::GET, "/system/config", None, None, &[]).await;
    assert_eq!(config.expect(0)["registerEnabled"], 0);

    let refused = register(&base, &email("late"), PASSWORD, None).await;
    refused.expect(103);
    assert_eq!(refused.message(), "User registration is disabled!");

    let (_, token) = login(&base, &admin, PASSWORD, "10.0.0.1").await;
    let token = token.expect("the admin logs in");
    let user = email("made");
    let made = call(
        &base,
        Method::POST,
        "/admin/users",
        Some(&token),
        Some(json!({"email": user, "nickname": "m", "password": PASSWORD})),
        &[],
    )
    .await;
    assert_eq!(made.expect(0)["is_superuser"], false);
    let (answer, token) = login(&base, &user, PASSWORD, "10.0.0.1").await;
    answer.expect(0);
    let token = token.expect("a token");
    let not_admin = call(
        &base,
        Method::POST,
        "/admin/users",
        Some(&token),
        Some(json!({"email": email("x"), "nickname": "x", "password": PASSWORD})),
        &[],
    )
    .await;
    not_admin.expect(108);
    let not_admin = call(
        &base,
        Method::POST,
        "/admin/invitations",
        Some(&token),
        Some(json!({})),
        &[],
    )
    .await;
    not_admin.expect(108);
}

#[tokio::test]
async fn the_first_account_is_admitted_once_when_many_race_for_it() {
    let base = extra_server(|_| {}).await;
    let attempts = (0..6).map(|_| {
        let base = base.clone();
        async move { register(&base, &email("racer"), PASSWORD, None).await }
    });
    let answers = futures::future::join_all(attempts).await;
    let created: Vec<&Answer> = answers.iter().filter(|a| a.code() == 0).collect();
    assert_eq!(
        created.len(),
        1,
        "{:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    assert_eq!(created[0].body["data"]["is_superuser"], true);
    for refused in answers.iter().filter(|a| a.code() != 0) {
        refused.expect(103);
    }
}

#[tokio::test]
async fn invite_registration_takes_an_unused_invitation_for_its_email() {
    let base = extra_server(|c| c.registration = canvasc_server::Registration::Invite).await;
    let admin = email("admin");
    register(&base, &admin, PASSWORD, None).await.expect(0);
    let (_, token) = login(&base, &admin, PASSWORD, "10.0.0.2").await;
    let token = token.expect("a token");

    let invited = email("invited");
    let no_code = register(&base, &invited, PASSWORD, None).await;
    no_code.expect(103);
    assert_eq!(no_code.message(), "User registration is disabled!");
    let wrong = register(&base, &invited, PASSWORD, Some("not-a-code")).await;
    wrong.expect(103);

    let made = call(
        &base,
        Method::POST,
        "/admin/invitations",
        Some(&token),
        Some(json!({"email": invited})),
        &[],
    )
    .await;
    let code = made.expect(0)["code"].as_str().expect("a code").to_string();
    let other = register(&base, &email("other"), PASSWORD, Some(&code)).await;
    other.expect(103);
    register(&base, &invited, PASSWORD, Some(&code))
        .await
        .expect(0);
    let again = register(&base, &email("again"), PASSWORD, Some(&code)).await;
    again.expect(103);

    let open = call(
        &base,
        Method::POST,
        "/admin/invitations",
        Some(&token),
        Some(json!({"expires_in_days": 1})),
        &[],
    )
    .await;
    let open_code = open.expect(0)["code"].as_str().expect("a code").to_string();
    register(&base, &email("anyone"), PASSWORD, Some(&open_code))
        .await
        .expect(0);

    let list = call(
        &base,
        Method::GET,
        "/admin/invitations",
        Some(&token),
        None,
        &[],
    )
    .await;
    let list = list.expect(0).as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), 2);
    assert!(list
        .iter()
        .all(|i| i["used_by"].is_string() && i.get("code").is_none()));
    let text = serde_json::to_string(&list).unwrap_or_default();
    assert!(!text.contains(&code) && !text.contains(&open_code));
}

#[tokio::test]
async fn open_registration_is_announced_to_the_web_client() {
    let config = Client::anonymous().get("/system/config").await;
    assert_eq!(config.expect(0)["registerEnabled"], 1);
}

#[tokio::test]
async fn failed_logins_back_off_per_account_and_per_address() {
    let base = extra_server(|c| {
        c.registration = canvasc_server::Registration::Open;
        c.client_ip_header = Some("X-Test-Client".into());
    })
    .await;
    let account = email("target");
    register(&base, &account, PASSWORD, None).await.expect(0);
    for _ in 0..6 {
        let (wrong, _) = login(&base, &account, "d3Jvbmc=", "10.1.0.1").await;
        wrong.expect(109);
    }
    // Locked: even the right password from another address waits, without a check.
    let (locked, _) = login(&base, &account, PASSWORD, "10.1.0.2").await;
    assert_eq!(locked.status, 429, "{}", locked.body);
    assert_eq!(locked.code(), 109);
    let wait: u64 = locked.headers["retry-after"]
        .to_str()
        .ok()
        .and_then(|s| s.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=2).contains(&wait), "{wait}");
    tokio::time::sleep(Duration::from_secs(wait)).await;
    let (ok, token) = login(&base, &account, PASSWORD, "10.1.0.2").await;
    ok.expect(0);
    assert!(token.is_some());

    // One address trying many accounts is held up; another address is not.
    for n in 0..21 {
        let (unknown, _) = login(
            &base,
            &format!("nobody{n}@example.com"),
            PASSWORD,
            "10.2.0.1",
        )
        .await;
        unknown.expect(109);
    }
    let (held, _) = login(&base, &account, PASSWORD, "10.2.0.1").await;
    assert_eq!(held.status, 429, "{}", held.body);
    let (other, _) = login(&base, &account, PASSWORD, "10.2.0.2").await;
    other.expect(0);
}

#[tokio::test]
async fn a_password_over_the_cap_is_refused_before_hashing() {
    let long = "p".repeat(canvasc_server::MAX_PASSWORD_BYTES + 1);
    let anonymous = Client::anonymous();
    let registered = anonymous
        .post(
            "/users",
            json!({"email": email("long"), "nickname": "l", "password": long}),
        )
        .await;
    registered.expect(101);
    assert!(
        registered.message().contains("too long"),
        "{}",
        registered.body
    );
    let t = tenant().await;
    let login = anonymous
        .post("/auth/login", json!({"email": t.email, "password": long}))
        .await;
    login.expect(101);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saturated_password_work_is_refused_with_503_not_queued() {
    let base = extra_server(|c| {
        c.registration = canvasc_server::Registration::Open;
        c.password_limits = canvasc_server::PasswordLimits {
            concurrent: 1,
            queued: 0,
        };
    })
    .await;
    let attempts = (0..16).map(|_| {
        let base = base.clone();
        async move { register(&base, &email("busy"), PASSWORD, None).await }
    });
    let answers = futures::future::join_all(attempts).await;
    let busy: Vec<&Answer> = answers.iter().filter(|a| a.status == 503).collect();
    assert!(
        !busy.is_empty(),
        "16 registrations at once, one Argon2 slot: some must be refused"
    );
    for answer in &busy {
        assert_eq!(answer.headers["retry-after"], "1");
        assert_eq!(answer.code(), 500);
    }
    for answer in answers.iter().filter(|a| a.status != 503) {
        answer.expect(0);
    }
}

#[tokio::test]
async fn login_tokens_expire_and_logout_revokes_them_while_keys_live_on() {
    let base = extra_server(|c| {
        c.registration = canvasc_server::Registration::Open;
        c.token_ttl = Duration::from_secs(2);
    })
    .await;
    let account = email("ttl");
    register(&base, &account, PASSWORD, None).await.expect(0);
    let (_, token) = login(&base, &account, PASSWORD, "10.3.0.1").await;
    let token = token.expect("a token");
    let key = call(
        &base,
        Method::POST,
        "/system/tokens",
        Some(&token),
        Some(json!({})),
        &[],
    )
    .await;
    let key = key.expect(0)["token"].as_str().expect("a key").to_string();
    call(&base, Method::GET, "/agents", Some(&token), None, &[])
        .await
        .expect(0);
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let expired = call(&base, Method::GET, "/agents", Some(&token), None, &[]).await;
    assert_eq!(expired.status, 401, "{}", expired.body);
    call(&base, Method::GET, "/agents", Some(&key), None, &[])
        .await
        .expect(0);
}

#[tokio::test]
async fn logout_revokes_the_login_token_at_once() {
    let t = tenant().await;
    t.login.get("/agents").await.expect(0);
    let out = t.login.post("/auth/logout", json!({})).await;
    assert_eq!(out.expect(0), &Value::Bool(true));
    assert_eq!(t.login.get("/agents").await.status, 401);
    t.api.get("/agents").await.expect(0);
}

#[tokio::test]
async fn api_keys_are_listed_by_id_and_revoked_by_id() {
    let t = tenant().await;
    let second = t.login.post("/system/tokens", json!({})).await;
    let second = second.expect(0).clone();
    let second_key = second["token"].as_str().expect("a key").to_string();
    let keys = t.login.get("/system/tokens").await;
    let keys = keys.expect(0).as_array().cloned().unwrap_or_default();
    assert_eq!(keys.len(), 2);
    let ids: Vec<&str> = keys.iter().filter_map(|k| k["id"].as_str()).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&second["id"].as_str().unwrap_or_default()));
    assert!(keys.iter().all(|k| !k["token"]
        .as_str()
        .unwrap_or_default()
        .contains(&second_key)));

    // Another tenant cannot revoke it by its id.
    let other = tenant().await;
    let id = second["id"].as_str().expect("an id");
    other
        .login
        .delete(&format!("/system/tokens/{id}"))
        .await
        .expect(0);
    let second_client = Client::anonymous().with_auth(&second_key);
    second_client.get("/agents").await.expect(0);

    t.login
        .delete(&format!("/system/tokens/{id}"))
        .await
        .expect(0);
    assert_eq!(second_client.get("/agents").await.status, 401);
    t.api.get("/agents").await.expect(0);
}

/// Opens a connection that sends a request head one header line at a time, forever.
async fn trickler(addr: &str) -> tokio::net::TcpStream {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("a connection");
    stream
        .write_all(b"GET /api/v1/system/ping HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("a first line");
    stream
}

/// Whether the server closed `stream` within `within` while a header line is sent every
/// 200 ms.
async fn closed_by_server(mut stream: tokio::net::TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 256];
    while Instant::now() < deadline {
        if stream.write_all(b"X-Slow: 1\r\n").await.is_err() {
            return true;
        }
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => return true,
            Err(_) => {}
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_silent_connections_are_closed_and_capped() {
    let base = extra_server(|c| {
        c.connections.max_connections = 4;
        c.connections.header_read_timeout = Duration::from_millis(600);
        c.connections.idle_timeout = Duration::from_secs(1);
    })
    .await;
    let addr = base.trim_start_matches("http://").to_string();
    let mut slow = Vec::new();
    for _ in 0..4 {
        slow.push(trickler(&addr).await);
    }
    let silent = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("a connection");
    // Every slot is held by a trickler: the ping waits for a header timeout to free one.
    let started = Instant::now();
    let ping = reqwest::Client::new()
        .get(format!("{base}/api/v1/system/ping"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .expect("the ping is answered once a slow connection is closed");
    assert_eq!(ping.status().as_u16(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let closed = futures::future::join_all(
        slow.into_iter()
            .map(|s| closed_by_server(s, Duration::from_secs(4))),
    )
    .await;
    assert!(
        closed.iter().all(|c| *c),
        "trickling connections stay open: {closed:?}"
    );
    assert!(
        closed_by_server(silent, Duration::from_secs(4)).await,
        "a silent connection stays open"
    );
}

#[tokio::test]
async fn the_web_clients_rsa_encrypted_password_logs_in_beside_the_plain_form() {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    use rsa::{Pkcs1v15Encrypt, RsaPrivateKey, RsaPublicKey};
    let mut rng = rand::thread_rng();
    let key = RsaPrivateKey::new(&mut rng, 1024).expect("a key");
    let public = RsaPublicKey::from(&key);
    let dir = std::env::temp_dir().join(format!("canvasc-server-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let pem_path = dir.join(format!("{}.pem", unique("rsa")));
    let pem = key.to_pkcs1_pem(rsa::pkcs1::LineEnding::LF).expect("PEM");
    std::fs::write(&pem_path, pem.as_bytes()).expect("the key file");
    let base = extra_server(|c| {
        c.registration = canvasc_server::Registration::Open;
        c.rsa_private_key = Some(pem_path.clone());
    })
    .await;
    let b64 = base64::engine::general_purpose::STANDARD;
    // What RAGFlow's web client sends: base64(RSA(base64(password))), fresh padding each time.
    let web_form = |password: &str| {
        let inner = b64.encode(password);
        let block = public
            .encrypt(&mut rand::thread_rng(), Pkcs1v15Encrypt, inner.as_bytes())
            .expect("encrypts");
        b64.encode(block)
    };
    let account = email("web");
    register(&base, &account, &web_form("hunter2"), None)
        .await
        .expect(0);
    let (answer, _) = login(&base, &account, &web_form("hunter2"), "10.4.0.1").await;
    answer.expect(0);
    // An API client sends base64(password), what the web form decrypts to.
    let (answer, _) = login(&base, &account, &b64.encode("hunter2"), "10.4.0.1").await;
    answer.expect(0);
    let (wrong, _) = login(&base, &account, &web_form("hunter3"), "10.4.0.1").await;
    wrong.expect(109);
}
