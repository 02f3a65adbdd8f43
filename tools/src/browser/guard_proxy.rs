//! The SSRF guard in front of Chromium: a SOCKS5 proxy on 127.0.0.1 that Chromium is told to
//! send every connection through (`--proxy-server=socks5://…`, loopback included). Chromium
//! hands it the host name unresolved; the proxy asks the one guard
//! ([`ssrf::assert_host_is_safe`]: `ALLOW_ANY_HOST`, the allow-list, the resolver) and connects
//! to the address the guard vetted, so a page, a redirect, a form post, a download or a popup
//! reaches only what the guard admits, with no second lookup that DNS rebinding could answer
//! differently. Refusals are kept so the agent can tell the model why a page did not load
//! (Chromium's own background connections, to update and sync services, are refused too, and
//! only logged).

use canvasc_engine::ssrf::{self, Guard};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// SOCKS5 reply codes (RFC 1928 §6).
const REPLY_OK: u8 = 0;
const REPLY_NOT_ALLOWED: u8 = 2;
const REPLY_HOST_UNREACHABLE: u8 = 4;
const REPLY_COMMAND_UNSUPPORTED: u8 = 7;
const REPLY_ADDRESS_UNSUPPORTED: u8 = 8;

/// How long a connection to a vetted address may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A running guard proxy; it stops when dropped.
pub struct GuardProxy {
    addr: SocketAddr,
    refused: Arc<Mutex<Refusals>>,
    task: JoinHandle<()>,
}

/// The refusals kept (the most recent).
const KEPT: usize = 256;

impl GuardProxy {
    /// Listens on an ephemeral port of 127.0.0.1.
    pub async fn start(guard: Guard) -> std::io::Result<GuardProxy> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let refused = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&refused);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let guard = guard.clone();
                let log = Arc::clone(&log);
                tokio::spawn(async move {
                    if let Err(Some((host, reason))) = serve(stream, &guard).await {
                        tracing::debug!(host = %host, "the Browser's guard proxy refused a connection");
                        let mut log = lock(&log);
                        if log.len() >= KEPT {
                            log.remove(0);
                        }
                        log.push((host, reason));
                    }
                });
            }
        });
        Ok(GuardProxy {
            addr,
            refused,
            task,
        })
    }

    /// `socks5://127.0.0.1:<port>`, for `--proxy-server`.
    pub fn url(&self) -> String {
        format!("socks5://{}", self.addr)
    }

    /// Why the guard last refused a connection to `host`, if it did.
    pub fn refusal(&self, host: &str) -> Option<String> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        lock(&self.refused)
            .iter()
            .rev()
            .find(|(h, _)| h.eq_ignore_ascii_case(host))
            .map(|(_, reason)| reason.clone())
    }
}

impl Drop for GuardProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Refusals = Vec<(String, String)>;

fn lock(m: &Mutex<Refusals>) -> std::sync::MutexGuard<'_, Refusals> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One client connection: the SOCKS5 greeting and CONNECT, the guard, then the relay.
/// `Err(Some((host, reason)))` is a refusal by the guard; `Err(None)` any other failure.
async fn serve(mut client: TcpStream, guard: &Guard) -> Result<(), Option<(String, String)>> {
    let mut head = [0u8; 2];
    client.read_exact(&mut head).await.map_err(|_| None)?;
    if head[0] != 5 {
        return Err(None);
    }
    let mut methods = vec![0u8; usize::from(head[1])];
    client.read_exact(&mut methods).await.map_err(|_| None)?;
    if !methods.contains(&0) {
        let _ = client.write_all(&[5, 0xff]).await;
        return Err(None);
    }
    client.write_all(&[5, 0]).await.map_err(|_| None)?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await.map_err(|_| None)?;
    if request[0] != 5 || request[1] != 1 {
        reply(&mut client, REPLY_COMMAND_UNSUPPORTED).await;
        return Err(None);
    }
    let host = match request[3] {
        1 => {
            let mut a = [0u8; 4];
            client.read_exact(&mut a).await.map_err(|_| None)?;
            std::net::Ipv4Addr::from(a).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await.map_err(|_| None)?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await.map_err(|_| None)?;
            String::from_utf8(name).map_err(|_| None)?
        }
        4 => {
            let mut a = [0u8; 16];
            client.read_exact(&mut a).await.map_err(|_| None)?;
            std::net::Ipv6Addr::from(a).to_string()
        }
        _ => {
            reply(&mut client, REPLY_ADDRESS_UNSUPPORTED).await;
            return Err(None);
        }
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await.map_err(|_| None)?;
    let port = u16::from_be_bytes(port);
    let ip = match ssrf::assert_host_is_safe(&host, guard).await {
        Ok(ip) => ip,
        Err(reason) => {
            reply(&mut client, REPLY_NOT_ALLOWED).await;
            return Err(Some((host, reason)));
        }
    };
    let upstream = match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect((ip, port))).await
    {
        Ok(Ok(s)) => s,
        _ => {
            reply(&mut client, REPLY_HOST_UNREACHABLE).await;
            return Err(None);
        }
    };
    reply(&mut client, REPLY_OK).await;
    let mut upstream = upstream;
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    Ok(())
}

/// A reply with an unspecified bound address (Chromium does not read it).
async fn reply(client: &mut TcpStream, code: u8) {
    let _ = client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await;
}
