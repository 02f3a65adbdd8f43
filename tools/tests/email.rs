//! Email against an SMTP server on 127.0.0.1 written here: it offers STARTTLS with a
//! certificate made for the test (trusted by the tool through `[tools.email] ca_file`), checks
//! the login and records the envelope and the message it receives.

mod support;

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use support::{node_canvas, registry, run};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio_rustls::rustls;

/// What the server received in one session.
#[derive(Clone, Debug, Default)]
struct Mail {
    auth: Vec<String>,
    from: String,
    rcpt: Vec<String>,
    data: String,
}

/// A certificate for 127.0.0.1 and its key (DER for the server), and the PEM the tool trusts.
fn certificate(dir: &Path) -> (Vec<u8>, Vec<u8>, PathBuf) {
    let pem = dir.join("cert.pem");
    let key = dir.join("key.pem");
    let ok = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
        ])
        .args([
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-addext",
            "basicConstraints=critical,CA:FALSE",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&pem)
        .output()
        .expect("openssl");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let der = |args: &[&str], input: &Path| {
        let out = Command::new("openssl")
            .args(args)
            .arg("-in")
            .arg(input)
            .args(["-outform", "DER"])
            .output()
            .expect("openssl");
        assert!(out.status.success());
        out.stdout
    };
    (
        der(&["x509"], &pem),
        der(&["pkcs8", "-topk8", "-nocrypt"], &key),
        pem,
    )
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The SMTP server; each session's mail is pushed to the returned list.
async fn smtp_server(
    cert: Vec<u8>,
    key: Vec<u8>,
    password: &'static str,
) -> (u16, Arc<Mutex<Vec<Mail>>>) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![rustls::pki_types::CertificateDer::from(cert)],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.into()),
        )
        .expect("server certificate");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let mails = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&mails);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut mail = Mail::default();
                let mut io: BufReader<Box<dyn Io>> = BufReader::new(Box::new(tcp));
                let mut tls = false;
                let _ = io
                    .get_mut()
                    .write_all(b"220 127.0.0.1 ESMTP test\r\n")
                    .await;
                let mut line = String::new();
                loop {
                    line.clear();
                    if io.read_line(&mut line).await.unwrap_or(0) == 0 {
                        break;
                    }
                    let cmd = line.trim_end().to_string();
                    let upper = cmd.to_ascii_uppercase();
                    let reply: &[u8] = if upper.starts_with("EHLO") {
                        if tls {
                            b"250-127.0.0.1\r\n250 AUTH PLAIN LOGIN\r\n"
                        } else {
                            b"250-127.0.0.1\r\n250 STARTTLS\r\n"
                        }
                    } else if upper == "STARTTLS" {
                        let _ = io.get_mut().write_all(b"220 ready\r\n").await;
                        let plain = io.into_inner();
                        let Ok(stream) = acceptor.accept(plain).await else {
                            return;
                        };
                        io = BufReader::new(Box::new(stream));
                        tls = true;
                        continue;
                    } else if upper.starts_with("AUTH PLAIN") {
                        mail.auth.push(cmd[10..].trim().to_string());
                        let expected = base64_plain("smtp-user", password);
                        if cmd[10..].trim() == expected {
                            b"235 ok\r\n"
                        } else {
                            b"535 5.7.8 bad credentials\r\n"
                        }
                    } else if upper.starts_with("MAIL FROM:") {
                        mail.from = cmd[10..].to_string();
                        b"250 ok\r\n"
                    } else if upper.starts_with("RCPT TO:") {
                        mail.rcpt.push(cmd[8..].to_string());
                        b"250 ok\r\n"
                    } else if upper == "DATA" {
                        let _ = io.get_mut().write_all(b"354 go\r\n").await;
                        loop {
                            line.clear();
                            if io.read_line(&mut line).await.unwrap_or(0) == 0 || line == ".\r\n" {
                                break;
                            }
                            mail.data.push_str(&line);
                        }
                        seen.lock().expect("mails").push(mail.clone());
                        b"250 queued\r\n"
                    } else if upper == "QUIT" {
                        let _ = io.get_mut().write_all(b"221 bye\r\n").await;
                        break;
                    } else {
                        b"250 ok\r\n"
                    };
                    if io.get_mut().write_all(reply).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    (port, mails)
}

fn base64_plain(user: &str, password: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(format!("\0{user}\0{password}"))
}

fn params(port: u16, password: &str) -> Json {
    json!({"to_email": "{sys.query}", "cc_email": "cc1@example.com,cc2@example.com",
           "subject": "Weekly report", "content": "<b>All good</b>",
           "smtp_server": "127.0.0.1", "smtp_port": port, "email": "bot@example.com",
           "smtp_username": "smtp-user", "password": password, "sender_name": "Canvas Bot",
           "max_retries": 1, "delay_after_error": 0.01})
}

fn config(ca: &Path) -> String {
    format!(
        "[tools.email]\nallowed_hosts = \"127.0.0.1\"\nca_file = \"{}\"\n",
        ca.display()
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-email-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_over_starttls_and_the_server_records_it() {
    let dir = scratch("ok");
    let (cert, key, pem) = certificate(&dir);
    let (port, mails) = smtp_server(cert, key, "app-code").await;
    let dsl = node_canvas("Email", params(port, "app-code"), "success");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&pem)),
        "boss@example.com",
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
    assert_eq!(ran.output("Tool:T", "success"), json!(true));
    let mails = mails.lock().expect("mails").clone();
    assert_eq!(mails.len(), 1);
    let m = &mails[0];
    assert_eq!(m.auth, vec![base64_plain("smtp-user", "app-code")]);
    assert_eq!(m.from, "<bot@example.com>");
    assert_eq!(
        m.rcpt,
        vec![
            "<boss@example.com>",
            "<cc1@example.com>",
            "<cc2@example.com>"
        ]
    );
    for header in [
        "From: \"Canvas Bot\" <bot@example.com>\r\n",
        "To: boss@example.com\r\n",
        "Cc: cc1@example.com, cc2@example.com\r\n",
        "Subject: Weekly report\r\n",
        "Content-Type: multipart/alternative;",
        "Content-Type: text/html; charset=utf-8\r\n",
        "<b>All good</b>",
    ] {
        assert!(m.data.contains(header), "{header:?} not in\n{}", m.data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_login_is_ragflows_authentication_error() {
    let dir = scratch("auth");
    let (cert, key, pem) = certificate(&dir);
    let (port, mails) = smtp_server(cert, key, "app-code").await;
    let dsl = node_canvas("Email", params(port, "wrong"), "success");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&config(&pem)),
        "boss@example.com",
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("SMTP Authentication failed. Please check your SMTP username(email) and authorization code.")
    );
    assert_eq!(ran.output("Tool:T", "success"), json!(false));
    assert!(mails.lock().expect("mails").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_recipient_sends_nothing() {
    let dsl = node_canvas("Email", params(1, "x"), "success");
    let ran = run(&dsl, &json!({"default": "x"}), registry(""), "").await;
    assert_eq!(ran.output("Tool:T", "success"), json!(false));
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_must_pass_the_ssrf_guard() {
    let dsl = node_canvas("Email", params(25, "x"), "success");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(""),
        "boss@example.com",
    )
    .await;
    assert_eq!(ran.output("Tool:T", "success"), json!(false));
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Unexpected error: SMTP server '127.0.0.1' is not allowed: Host resolves to a non-public address (127.0.0.1), which is not allowed.")
    );
}
