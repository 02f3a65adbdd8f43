//! URLs as canvasc shows them in errors, logs and spans: never a secret a query string or
//! userinfo may carry. Its own module so the outbound layer and telemetry both use it
//! without importing each other.

/// The URL as shown in errors and logs: scheme, host, port and path, no userinfo or query.
pub fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => "<invalid URL>".to_string(),
    }
}
