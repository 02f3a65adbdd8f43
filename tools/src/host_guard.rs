//! The SSRF check for raw hosts a canvas names (a database server, an SMTP server):
//! RAGFlow's `assert_host_is_safe` (`common/ssrf_guard.py`) on top of the engine's guard
//! ([`canvasc_engine::ssrf::is_public`]), plus an explicit allow-list from configuration, so a
//! deployment (or a test) can reach one known private server without switching the whole
//! guard off with `ALLOW_ANY_HOST`.
//!
//! Tools call [`safe_host`] only, and connect to the address it returns (DNS pinning): when the
//! engine's guard gets a successor, this is the one place that changes.

use canvasc_engine::ssrf::{is_public, Resolver, SystemResolver};
use std::fmt;
use std::net::IpAddr;

/// Why [`safe_host_with`] refused a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    /// The host could not be resolved: the resolver's text (`[Errno -2] …`). A tool that
    /// RAGFlow runs without the guard (Email) fails at connect with just this text.
    Unresolved { host: String, reason: String },
    /// The guard's own refusal (empty host, a non-public address, no address).
    Refused(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Unresolved { host, reason } => write!(
                f,
                "Could not resolve host {}: {reason}",
                canvasc_value::py::repr_str(host)
            ),
            HostError::Refused(text) => f.write_str(text),
        }
    }
}

/// `assert_host_is_safe(host)`: the first resolved address of `host`, which the caller connects
/// to. Every address must be globally routable unless `allow_any_host` is set or the host (as
/// written, or one of its addresses) is in `allowed`. The error is the guard's `ValueError`
/// text. Resolves with the system resolver.
pub async fn safe_host(
    host: &str,
    allow_any_host: bool,
    allowed: &[String],
) -> Result<IpAddr, String> {
    safe_host_with(host, &SystemResolver, allow_any_host, allowed)
        .await
        .map_err(|e| e.to_string())
}

/// [`safe_host`] with the run's resolver (`Services::resolver`), so a tool resolves a host
/// the way the engine's outbound guard does.
pub async fn safe_host_with(
    host: &str,
    resolver: &dyn Resolver,
    allow_any_host: bool,
    allowed: &[String],
) -> Result<IpAddr, HostError> {
    let host = host.trim();
    if host.is_empty() {
        return Err(HostError::Refused("Host must not be empty.".into()));
    }
    let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => resolver
            .lookup(host)
            .await
            .map_err(|reason| HostError::Unresolved {
                host: host.to_string(),
                reason,
            })?,
    };
    let listed = |ip: &IpAddr| {
        allowed.iter().any(|a| {
            let a = a.trim();
            a.eq_ignore_ascii_case(host) || a.parse::<IpAddr>().is_ok_and(|x| x == *ip)
        })
    };
    let mut first = None;
    for ip in addrs {
        if !allow_any_host && !listed(&ip) && !is_public(ip) {
            return Err(HostError::Refused(format!(
                "Host resolves to a non-public address ({ip}), which is not allowed."
            )));
        }
        first.get_or_insert(ip);
    }
    first.ok_or_else(|| {
        HostError::Refused(format!(
            "Host {} resolved to no addresses.",
            canvasc_value::py::repr_str(host)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn loopback_needs_the_allow_list() {
        assert_eq!(
            safe_host("127.0.0.1", false, &[]).await,
            Err("Host resolves to a non-public address (127.0.0.1), which is not allowed.".into())
        );
        assert_eq!(
            safe_host(" 127.0.0.1 ", false, &["127.0.0.1".into()]).await,
            Ok(IpAddr::from([127, 0, 0, 1]))
        );
        assert_eq!(
            safe_host("127.0.0.1", true, &[]).await,
            Ok(IpAddr::from([127, 0, 0, 1]))
        );
        assert_eq!(
            safe_host("  ", true, &[]).await,
            Err("Host must not be empty.".into())
        );
        assert_eq!(
            safe_host("93.184.216.34", false, &[]).await,
            Ok(IpAddr::from([93, 184, 216, 34]))
        );
    }
}
