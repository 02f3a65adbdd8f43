//! Every HTTP client canvasc makes (model providers, HTTP tools, MCP servers) starts here, so
//! rustls has its crypto provider (ring) before the first TLS handshake. reqwest and rmcp are
//! built without a provider of their own: one provider for both, and no C build for aws-lc.

use std::sync::Once;

/// A `reqwest` client builder with the process-wide TLS provider installed.
pub fn client_builder() -> reqwest::ClientBuilder {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        // Err means another part of the process installed a provider first; that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}
