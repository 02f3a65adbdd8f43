//! Email (tools.md §8, `agent/tools/email.py`): sends an HTML message over SMTP with the
//! node's server and account. Port 465 is implicit TLS, any other port STARTTLS (required),
//! as in RAGFlow (`smtplib.SMTP_SSL` / `starttls()` with `ssl.create_default_context()`).
//!
//! The server is a host the canvas names, so it passes the SSRF guard and the connection goes
//! to the address the guard resolved, while the certificate is checked against the name. A
//! private CA (an internal relay, a test server) is trusted through `[tools.email] ca_file`.

use crate::config::ToolsConfig;
use crate::host_guard::{safe_host_with, HostError};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use lettre::message::{header::ContentType, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "email";
/// `smtplib.SMTP(..., timeout=10)`.
const TIMEOUT: Duration = Duration::from_secs(10);
const AUTH_FAILED: &str =
    "SMTP Authentication failed. Please check your SMTP username(email) and authorization code.";

pub struct Email {
    config: Arc<ToolsConfig>,
}

impl Email {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        Email { config }
    }
}

/// How one attempt ended, in RAGFlow's exception classes.
enum Failure {
    /// `SMTPAuthenticationError`: no retry.
    Auth,
    /// `SMTPConnectError` / other `SMTPException`: retried.
    Smtp(String),
    /// Anything else (`Unexpected error: …`): no retry.
    Other(String),
}

fn arg_text(args: &Map<String, Json>, key: &str) -> Option<String> {
    args.get(key).map(|v| match v {
        Json::String(s) => s.clone(),
        Json::Null => String::new(),
        other => py::str_of(other),
    })
}

/// `smtplib`'s exception text for a server reply: `(code, b'text')`.
fn reply_text(e: &lettre::transport::smtp::Error) -> String {
    let text = e.source().map(|s| s.to_string()).unwrap_or_default();
    match e.status() {
        Some(code) => format!("({code}, b{})", py::repr_str(&text)),
        None => e.to_string(),
    }
}

fn classify(e: lettre::transport::smtp::Error, server: &str, port: u16) -> Failure {
    match e.status().map(|c| c.to_string()) {
        Some(code) if code == "535" || code == "534" => Failure::Auth,
        Some(_) => Failure::Smtp(format!("SMTP error occurred: {}", reply_text(&e))),
        None if e.is_response() => {
            Failure::Smtp(format!("Failed to connect to SMTP server {server}:{port}"))
        }
        None => {
            let detail = e
                .source()
                .map(|s| s.to_string())
                .unwrap_or_else(|| e.to_string());
            Failure::Other(format!("Unexpected error: {detail}"))
        }
    }
}

impl Email {
    async fn attempt(
        &self,
        cx: &ToolCx<'_>,
        args: &Map<String, Json>,
        to: &str,
    ) -> Result<(), Failure> {
        let p = |k: &str| crate::common::param_text(cx, k);
        let server = p("smtp_server");
        let port = crate::common::param_int(cx, "smtp_port", 465);
        let port = u16::try_from(port).map_err(|_| {
            Failure::Other(format!("Unexpected error: port {port} is not a TCP port"))
        })?;
        let sender = p("email");
        let other = |what: String| Failure::Other(format!("Unexpected error: {what}"));

        let mailbox = |addr: &str| -> Result<Mailbox, Failure> {
            addr.trim()
                .parse::<Mailbox>()
                .map_err(|e| other(format!("{addr}: {e}")))
        };
        let from_addr: lettre::Address = sender
            .trim()
            .parse()
            .map_err(|e| other(format!("{sender}: {e}")))?;
        let mut builder = lettre::Message::builder()
            .from(Mailbox::new(Some(p("sender_name")), from_addr))
            .to(mailbox(to)?);
        let cc = arg_text(args, "cc_email").unwrap_or_default();
        let cc_list: Vec<&str> = if cc.is_empty() {
            Vec::new()
        } else {
            cc.split(',').collect()
        };
        for c in &cc_list {
            builder = builder.cc(mailbox(c)?);
        }
        let subject = arg_text(args, "subject").unwrap_or_else(|| "No Subject".into());
        let content = arg_text(args, "content").unwrap_or_else(|| "No content provided".into());
        let message = builder
            .subject(subject)
            .multipart(
                MultiPart::alternative().singlepart(
                    SinglePart::builder()
                        .header(ContentType::TEXT_HTML)
                        .body(content),
                ),
            )
            .map_err(|e| other(e.to_string()))?;

        // RAGFlow's tool connects without a guard: a host that does not resolve fails inside
        // smtplib with the resolver's text alone; a refused address is canvasc's own error.
        let ip = safe_host_with(
            &server,
            cx.resolver(),
            cx.settings().allow_any_host,
            self.config.allowed_hosts(SERVICE),
        )
        .await
        .map_err(|e| match e {
            HostError::Unresolved { reason, .. } => other(reason),
            refused => other(format!("SMTP server '{server}' is not allowed: {refused}")),
        })?;
        let mut tls = TlsParameters::builder(server.trim().to_string());
        if let Some(path) = self.config.ca_file(SERVICE) {
            let pem = std::fs::read(path)
                .map_err(|e| other(format!("[tools.email] ca_file {path}: {e}")))?;
            let cert = Certificate::from_pem(&pem)
                .map_err(|e| other(format!("[tools.email] ca_file {path}: {e}")))?;
            tls = tls.add_root_certificate(cert);
        }
        let tls = tls.build_rustls().map_err(|e| other(e.to_string()))?;
        let login = match p("smtp_username") {
            u if !u.is_empty() => u,
            _ => sender.clone(),
        };
        let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(ip.to_string())
            .port(port)
            .tls(if port == 465 {
                Tls::Wrapper(tls)
            } else {
                Tls::Required(tls)
            })
            .credentials(Credentials::new(login, p("password")))
            .timeout(Some(TIMEOUT))
            .build();
        if cx.check_canceled() {
            return Ok(());
        }
        transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| classify(e, &server, port))
    }
}

impl External for Email {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let to = match args.get("to_email") {
                Some(v) if py::truthy(v) => arg_text(&args, "to_email").unwrap_or_default(),
                _ => {
                    cx.set_output("success", Json::Bool(false));
                    return Ok(Json::String(String::new()));
                }
            };
            let retries = crate::common::param_int(cx, "max_retries", 0).max(0);
            let delay = cx
                .param("delay_after_error")
                .and_then(Json::as_f64)
                .filter(|d| d.is_finite() && *d > 0.0)
                .unwrap_or(0.0);
            let mut last = String::new();
            for _ in 0..=retries {
                if cx.check_canceled() {
                    return Ok(Json::Null);
                }
                match self.attempt(cx, &args, &to).await {
                    Ok(()) if cx.is_canceled() => return Ok(Json::Null),
                    Ok(()) => {
                        cx.set_output("success", Json::Bool(true));
                        return Ok(Json::Bool(true));
                    }
                    Err(Failure::Auth) => {
                        cx.set_output("_ERROR", Json::String(AUTH_FAILED.into()));
                        cx.set_output("success", Json::Bool(false));
                        return Ok(Json::Bool(false));
                    }
                    Err(Failure::Other(e)) => {
                        cx.set_output("_ERROR", Json::String(e));
                        cx.set_output("success", Json::Bool(false));
                        return Ok(Json::Bool(false));
                    }
                    Err(Failure::Smtp(e)) => {
                        last = e;
                        if delay > 0.0 {
                            tokio::time::sleep(Duration::from_secs_f64(delay.min(3600.0))).await;
                        }
                    }
                }
            }
            cx.set_output("_ERROR", Json::String(last));
            Ok(Json::Bool(false))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let get = |k: &str| {
            input
                .get(k)
                .map(py::str_of)
                .unwrap_or_else(|| "-_-!".into())
        };
        Some(format!(
            "\nTo: {}\nSubject: {}\nYour email is on its way—sit tight!\n",
            get("to_email"),
            get("subject")
        ))
    }
}
