//! Accepting connections with bounds (what `axum::serve` does not offer): at most
//! `max_connections` at once (further clients wait in the kernel's backlog until one ends), a
//! deadline for a request's head (hyper's `header_read_timeout`, which also ends a kept-alive
//! connection that sends no next request), and an idle watchdog that closes a connection on
//! which nothing moved for `idle_timeout` while it had no request running or its answer could
//! not be written (a client that stopped reading). Without these a client that sends nothing,
//! or a header line every few seconds, holds a socket forever, and about a thousand of them
//! stop the server. Every accepted socket gets `TCP_NODELAY`: an event stream's small writes
//! otherwise wait for the client's delayed ACK (about 40 ms per run on a kept-alive
//! connection).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::connect_info::ConnectInfo;
use axum::http::{Request, Response};
use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections served at once; keep it under the process's file limit.
    pub max_connections: usize,
    /// A request's head must arrive within this from when the server starts reading it
    /// (for a kept-alive connection: from the end of the previous answer).
    pub header_read_timeout: Duration,
    /// A connection on which nothing was read or written for this long is closed when it has
    /// no request running or its answer is stuck (event streams send keep-alive comments far
    /// more often).
    pub idle_timeout: Duration,
    /// `TCP_NODELAY` on accepted sockets (on: only a measurement turns it off).
    pub tcp_nodelay: bool,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(120),
            tcp_nodelay: true,
        }
    }
}

/// What the watchdog reads of one connection.
struct Activity {
    start: Instant,
    /// Milliseconds after `start` when a byte last moved.
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
    write_blocked: AtomicBool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            write_blocked: AtomicBool::new(false),
        }
    }

    fn moved(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let since = Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(since)
    }

    /// Whether a silent connection may be closed: nothing running that waits legitimately.
    fn closable(&self) -> bool {
        self.in_flight.load(Ordering::Relaxed) == 0 || self.write_blocked.load(Ordering::Relaxed)
    }
}

/// A socket that tells its [`Activity`] when bytes move and when a write cannot go on.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.moved();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        self.note_write(&polled);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.note_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl Watched {
    fn note_write(&self, polled: &Poll<io::Result<usize>>) {
        match polled {
            Poll::Pending => self.activity.write_blocked.store(true, Ordering::Relaxed),
            Poll::Ready(result) => {
                self.activity.write_blocked.store(false, Ordering::Relaxed);
                if matches!(result, Ok(n) if *n > 0) {
                    self.activity.moved();
                }
            }
        }
    }
}

/// An answer's body that counts its request as running until the body is done or dropped.
struct Tracked {
    body: Body,
    _running: Running,
}

struct Running(Arc<Activity>);

impl Running {
    fn start(activity: &Arc<Activity>) -> Running {
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        Running(activity.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Serves `service` on `listener` until `shutdown` resolves, then closes the listener (new
/// connections are refused, so a load balancer moves on), lets every open connection finish
/// its request (graceful shutdown) for at most `drain`, and returns.
pub(crate) async fn serve<S>(
    listener: TcpListener,
    service: S,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
    drain: std::time::Duration,
) -> io::Result<()>
where
    S: tower::Service<Request<Incoming>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors or a connection reset before it was accepted:
                    // the listener itself is fine; pause so a full table can drain.
                    tracing::warn!(target: "canvasc", error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if limits.tcp_nodelay {
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(target: "canvasc", error = %e, "TCP_NODELAY not set");
            }
        }
        let service = service.clone();
        let stopping = stopping.clone();
        tokio::spawn(async move {
            connection(stream, peer, service, limits, stopping).await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds a slot until it ends.
    if tokio::time::timeout(drain, slots.acquire_many(max as u32))
        .await
        .is_err()
    {
        eprintln!(
            "canvasc serve: {} connection(s) still open after {} s of draining are closed",
            max - slots.available_permits(),
            drain.as_secs()
        );
    }
    Ok(())
}

async fn connection<S>(
    stream: TcpStream,
    peer: SocketAddr,
    service: S,
    limits: ConnectionLimits,
    mut stopping: watch::Receiver<bool>,
) where
    S: tower::Service<Request<Incoming>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
    });
    let per_request = activity.clone();
    let hyper_service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        let running = Running::start(&per_request);
        request.extensions_mut().insert(ConnectInfo(peer));
        let service = service.clone();
        async move {
            let response = service.oneshot(request).await?;
            Ok::<_, Infallible>(response.map(|body| {
                Body::new(Tracked {
                    body,
                    _running: running,
                })
            }))
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let conn = builder.serve_connection(io, hyper_service);
    let mut conn = std::pin::pin!(conn);
    let tick = (limits.idle_timeout / 4).clamp(Duration::from_millis(20), Duration::from_secs(5));
    let mut shutting_down = *stopping.borrow();
    if shutting_down {
        conn.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = stopping.changed(), if !shutting_down => {
                // A dropped sender means the server is gone too: shut down either way.
                shutting_down = true;
                conn.as_mut().graceful_shutdown();
            }
            () = tokio::time::sleep(tick) => {
                if activity.idle_for() >= limits.idle_timeout && activity.closable() {
                    // Dropping the connection closes the socket.
                    return;
                }
            }
        }
    }
}
