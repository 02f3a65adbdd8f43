//! RAGFlow's SSRF guard (`common/ssrf_guard.py`): only http(s) URLs with a host whose every
//! resolved address is globally routable, unless `ALLOW_ANY_HOST` is set. The caller connects to
//! the returned address (DNS pinning), so a second lookup cannot rebind the host.

use crate::value::py;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A validated URL target: the host as Python's `urlparse(...).hostname` gives it, and the first
/// resolved address, to connect to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub hostname: String,
    pub ip: IpAddr,
}

/// `assert_url_is_safe(url)`; the error is the `ValueError` text of the guard or of `urlparse`.
pub async fn assert_url_is_safe(url: &str, allow_any_host: bool) -> Result<Target, String> {
    let parsed = py::urlparse(url)?;
    if parsed.scheme != "http" && parsed.scheme != "https" {
        return Err(format!(
            "Disallowed URL scheme: {}. Only ['http', 'https'] are allowed.",
            py::repr_str(&parsed.scheme)
        ));
    }
    let Some(hostname) = parsed.hostname() else {
        return Err("URL is missing a host.".to_string());
    };
    let quoted = py::repr_str(&hostname);
    let addrs: Vec<IpAddr> = match tokio::net::lookup_host((hostname.as_str(), 0)).await {
        Ok(it) => it.map(|a| a.ip()).collect(),
        Err(_) => {
            return Err(format!(
                "Could not resolve hostname {quoted}: [Errno -2] Name or service not known"
            ))
        }
    };
    let mut first = None;
    for ip in addrs {
        if !allow_any_host && !is_global(ip) {
            return Err(format!(
                "URL resolves to a non-public address ({ip}), which is not allowed."
            ));
        }
        first.get_or_insert(ip);
    }
    match first {
        Some(ip) => Ok(Target { hostname, ip }),
        None => Err(format!("Hostname {quoted} resolved to no addresses.")),
    }
}

/// Python 3.11's `ip_address(x).is_global`, after mapping `::ffff:a.b.c.d` to IPv4.
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_global_v4(v4),
            None => is_global_v6(v6),
        },
    }
}

/// `ipaddress._IPv4Constants._private_networks`, plus the shared space `100.64.0.0/10` that
/// `is_global` excludes too. Multicast is not listed, so Python counts it as global.
const V4_NOT_GLOBAL: &[([u8; 4], u8)] = &[
    ([0, 0, 0, 0], 8),
    ([10, 0, 0, 0], 8),
    ([127, 0, 0, 0], 8),
    ([169, 254, 0, 0], 16),
    ([172, 16, 0, 0], 12),
    ([192, 0, 0, 0], 29),
    ([192, 0, 0, 170], 31),
    ([192, 0, 2, 0], 24),
    ([192, 168, 0, 0], 16),
    ([198, 18, 0, 0], 15),
    ([198, 51, 100, 0], 24),
    ([203, 0, 113, 0], 24),
    ([240, 0, 0, 0], 4),
    ([255, 255, 255, 255], 32),
    ([100, 64, 0, 0], 10),
];

fn is_global_v4(ip: Ipv4Addr) -> bool {
    let x = u32::from(ip);
    !V4_NOT_GLOBAL.iter().any(|(net, len)| {
        let mask = if *len == 0 {
            0
        } else {
            u32::MAX << (32 - u32::from(*len))
        };
        x & mask == u32::from(Ipv4Addr::from(*net)) & mask
    })
}

/// `ipaddress._IPv6Constants._private_networks`.
const V6_NOT_GLOBAL: &[([u16; 8], u8)] = &[
    ([0, 0, 0, 0, 0, 0, 0, 1], 128),
    ([0, 0, 0, 0, 0, 0, 0, 0], 128),
    ([0, 0, 0, 0, 0, 0xffff, 0, 0], 96),
    ([0x100, 0, 0, 0, 0, 0, 0, 0], 64),
    ([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
    ([0x2001, 2, 0, 0, 0, 0, 0, 0], 48),
    ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32),
    ([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28),
    ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),
    ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10),
];

fn is_global_v6(ip: Ipv6Addr) -> bool {
    let x = u128::from(ip);
    !V6_NOT_GLOBAL.iter().any(|(net, len)| {
        let mask = if *len == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(*len))
        };
        x & mask == u128::from(Ipv6Addr::from(*net)) & mask
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from CPython 3.11.7's `ipaddress` (the reference oracle's Python).
    #[test]
    fn global_addresses_match_python() {
        for (ip, global) in [
            ("127.0.0.1", false),
            ("10.1.2.3", false),
            ("172.31.255.255", false),
            ("172.32.0.1", true),
            ("192.168.1.1", false),
            ("169.254.169.254", false),
            ("100.64.0.1", false),
            ("100.128.0.1", true),
            ("0.0.0.0", false),
            ("8.8.8.8", true),
            ("224.0.0.1", true),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("192.0.0.8", true),
            ("192.0.0.170", false),
            ("::1", false),
            ("::", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:8.8.8.8", true),
            ("fe80::1", false),
            ("fd00::1", false),
            ("2001:db8::1", false),
            ("2606:4700::1111", true),
            ("ff02::1", true),
        ] {
            let addr: IpAddr = ip.parse().expect("ip");
            assert_eq!(is_global(addr), global, "{ip}");
        }
    }

    #[tokio::test]
    async fn guard_rejects_and_allows() {
        assert_eq!(
            assert_url_is_safe("ftp://example.com/", false).await,
            Err("Disallowed URL scheme: 'ftp'. Only ['http', 'https'] are allowed.".into())
        );
        assert_eq!(
            assert_url_is_safe("http:///x", false).await,
            Err("URL is missing a host.".into())
        );
        assert_eq!(
            assert_url_is_safe("http://127.0.0.1:9/", false).await,
            Err("URL resolves to a non-public address (127.0.0.1), which is not allowed.".into())
        );
        let ok = assert_url_is_safe("http://127.0.0.1:9/", true)
            .await
            .expect("allowed");
        assert_eq!(ok.ip, IpAddr::from([127, 0, 0, 1]));
    }
}
