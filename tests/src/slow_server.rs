//! The status service the timeout fixture calls (`fixtures/valid/timeout-invoke.json`): a test
//! double on 127.0.0.1 that answers `GET /status/<seconds>` after that many seconds. Same
//! behaviour and port as `tests/golden/slow_server.py`, which served the oracle's goldens.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The port the fixture's `env.status_host` names.
pub const PORT: u16 = 18765;

/// A running server; dropping it stops accepting connections.
pub struct SlowServer(tokio::task::JoinHandle<()>);

impl Drop for SlowServer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the server on 127.0.0.1:[`PORT`] in the current tokio runtime.
pub async fn start() -> std::io::Result<SlowServer> {
    let listener = TcpListener::bind(("127.0.0.1", PORT)).await?;
    Ok(SlowServer(tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut len = 0;
                while !buf[..len].windows(4).any(|w| w == b"\r\n\r\n") && len < buf.len() {
                    match socket.read(&mut buf[len..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => len += n,
                    }
                }
                let head = String::from_utf8_lossy(&buf[..len]);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let seconds: f64 = path
                    .trim_matches('/')
                    .rsplit('/')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0.0);
                tokio::time::sleep(Duration::from_secs_f64(seconds.max(0.0))).await;
                let body = br#"{"ok": true}"#;
                let head = format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body).await;
            });
        }
    })))
}
