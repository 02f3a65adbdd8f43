//! Every HTTP client canvasc makes (model providers, HTTP tools, MCP servers) is built here, so
//! rustls has its crypto provider (ring) before the first TLS handshake. reqwest and rmcp are
//! built without a provider of their own: one provider for both, and no C build for aws-lc.
//! `tests/http_clients.rs` fails when a client or an rmcp transport is built anywhere else.

use super::ssrf::Target;
use reqwest::header::HeaderMap;
use reqwest::{Client, ClientBuilder};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use std::net::SocketAddr;
use std::sync::{LazyLock, Once};
use std::time::Duration;

/// Installs the process-wide TLS provider (ring), once. Every client here does it; a host that
/// lets a library build its own reqwest client (the OTLP exporter's) calls it first.
pub fn install_tls_provider() {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        // Err means another part of the process installed a provider first; that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A `reqwest` client builder with the process-wide TLS provider installed.
fn client_builder() -> ClientBuilder {
    install_tls_provider();
    Client::builder()
}

/// One HTTP client per process (connection pools and TLS set-up are shared), built on first use.
static SHARED: LazyLock<Client> = LazyLock::new(|| {
    client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
});

/// The process's client for model providers: redirects are not followed.
pub fn shared_client() -> Client {
    SHARED.clone()
}

/// The client of one Invoke request (`requests.request`): no redirects, `target`'s host
/// pinned to the address the SSRF guard checked (so the connection goes where the check
/// looked), `timeout` for connecting and for each read, and through `proxy` (pinned too) when
/// given.
pub fn invoke_client(
    target: &Target,
    timeout: Option<Duration>,
    proxy: Option<(reqwest::Proxy, &Target)>,
) -> reqwest::Result<Client> {
    let mut builder = client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&target.hostname, SocketAddr::new(target.ip, 0));
    if let Some(t) = timeout {
        builder = builder.connect_timeout(t).read_timeout(t);
    }
    if let Some((proxy, t)) = proxy {
        builder = builder
            .proxy(proxy)
            .resolve(&t.hostname, SocketAddr::new(t.ip, 0));
    }
    builder.build()
}

/// The client of one hop of a guarded request (`exec::outbound`): no redirects (the caller
/// checks each one), `target`'s host pinned to the vetted address, `timeout` for connecting
/// and for the whole request.
pub fn pinned_client(target: &Target, timeout: Duration) -> reqwest::Result<Client> {
    client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&target.hostname, SocketAddr::new(target.ip, 0))
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
}

/// The client of one MCP server session, sending the server's `headers` with every request.
pub fn mcp_client(headers: HeaderMap) -> reqwest::Result<Client> {
    client_builder().default_headers(headers).build()
}

/// rmcp's streamable-HTTP transport to `url` over a client of [`mcp_client`].
pub fn mcp_streamable_transport(http: Client, url: &str) -> StreamableHttpClientTransport<Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    StreamableHttpClientTransport::with_client(http, config)
}
