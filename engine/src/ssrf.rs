//! The one SSRF guard for every URL or host a canvas or its user controls (Invoke, Crawler,
//! SearXNG, …). It keeps RAGFlow's rules and error texts (`common/ssrf_guard.py`: only http(s)
//! URLs with a host whose every resolved address is public, unless `ALLOW_ANY_HOST` is set) and
//! closes what Python's check leaves open:
//!
//! * the URL is also parsed as the HTTP client parses it (WHATWG, the `url` crate) and that
//!   host is checked too, so a URL the two parsers read differently (`\@`, `#@`, userinfo)
//!   cannot pass the check with one host and connect to another;
//! * IPv4 in decimal, octal, hex and short forms is read as the client reads it;
//! * IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4) is checked as that IPv4 address;
//!   multicast is refused (Python's `is_global` counts it as public);
//! * cloud metadata host names are refused by name;
//! * the host is resolved once and the caller connects to the returned address (DNS pinning,
//!   `exec::http`), so a second lookup cannot rebind it.
//!
//! An explicit allow-list (configuration) admits trusted internal hosts or networks.

use canvasc_value::py;
use futures::future::BoxFuture;
use ipnet::IpNet;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, LazyLock};

/// A validated URL target: the host the HTTP client connects to (as it parses the URL), and
/// the vetted address to connect it to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub hostname: String,
    pub ip: IpAddr,
}

/// Name resolution, replaceable so a deployment (or a test) can answer with its own DNS.
pub trait Resolver: Send + Sync + fmt::Debug {
    /// The addresses `host` resolves to, or the resolver's error text.
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, String>>;
}

/// The system resolver (`getaddrinfo`, as Python's `socket.getaddrinfo`).
#[derive(Debug, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, String>> {
        Box::pin(async move {
            match tokio::net::lookup_host((host, 0)).await {
                Ok(it) => Ok(it.map(|a| a.ip()).collect()),
                Err(_) => Err("[Errno -2] Name or service not known".to_string()),
            }
        })
    }
}

/// Hosts and networks configuration trusts although they are not public.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    hosts: Vec<String>,
    nets: Vec<IpNet>,
}

impl AllowList {
    /// Entries are host names (`search.internal`), addresses (`127.0.0.1`, `::1`) or networks
    /// (`10.0.0.0/8`).
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<AllowList, String> {
        let mut list = AllowList::default();
        for entry in entries {
            let e = entry.as_ref().trim();
            if e.is_empty() {
                return Err("an empty entry in the outbound allow-list".into());
            }
            if let Ok(net) = e.parse::<IpNet>() {
                list.nets.push(net);
            } else if let Ok(ip) = e.parse::<IpAddr>() {
                list.nets.push(IpNet::from(ip));
            } else if e.contains('/') || e.contains(':') || e.contains(' ') {
                return Err(format!(
                    "`{e}` in the outbound allow-list is neither a host name, an address nor a network"
                ));
            } else {
                list.hosts
                    .push(e.trim_end_matches('.').to_ascii_lowercase());
            }
        }
        Ok(list)
    }

    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.nets.is_empty()
    }

    fn allows_host(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.hosts.contains(&host)
    }

    fn allows_ip(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|n| n.contains(&ip))
    }
}

/// What the guard admits: RAGFlow's `ALLOW_ANY_HOST`, the allow-list, and the resolver.
#[derive(Clone, Debug)]
pub struct Guard {
    /// `ALLOW_ANY_HOST`: no address check (metadata names stay refused).
    pub allow_any_host: bool,
    pub allow: AllowList,
    pub resolver: Arc<dyn Resolver>,
}

impl Default for Guard {
    fn default() -> Self {
        Guard {
            allow_any_host: false,
            allow: AllowList::default(),
            resolver: Arc::new(SystemResolver),
        }
    }
}

impl Guard {
    /// The default guard with `ALLOW_ANY_HOST` as given.
    pub fn any_host(allow_any_host: bool) -> Self {
        Guard {
            allow_any_host,
            ..Guard::default()
        }
    }
}

/// Host names of cloud metadata services, refused whatever they resolve to.
const METADATA_NAMES: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "metadata.azure.com",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "metadata.oraclecloud.com",
];

/// `assert_url_is_safe(url)`: the error is the `ValueError` text of RAGFlow's guard or of
/// `urlparse`, or canvasc's own for what RAGFlow does not check.
pub async fn assert_url_is_safe(url: &str, guard: &Guard) -> Result<Target, String> {
    let parsed = py::urlparse(url)?;
    if parsed.scheme != "http" && parsed.scheme != "https" {
        return Err(format!(
            "Disallowed URL scheme: {}. Only ['http', 'https'] are allowed.",
            py::repr_str(&parsed.scheme)
        ));
    }
    let Some(py_host) = parsed.hostname() else {
        return Err("URL is missing a host.".to_string());
    };
    // The host the HTTP client will connect to, parsed as it parses it.
    let client_url = url::Url::parse(url.trim())
        .map_err(|e| format!("URL {} cannot be used: {e}.", py::repr_str(url)))?;
    if client_url.scheme() != "http" && client_url.scheme() != "https" {
        return Err(format!(
            "Disallowed URL scheme: {}. Only ['http', 'https'] are allowed.",
            py::repr_str(client_url.scheme())
        ));
    }
    let Some(client_host) = client_url.host() else {
        return Err("URL is missing a host.".to_string());
    };
    let connect_host = match client_host {
        url::Host::Domain(d) => d.to_string(),
        url::Host::Ipv4(a) => a.to_string(),
        url::Host::Ipv6(a) => a.to_string(),
    };
    // Python's view first, for RAGFlow's errors; then the client's, when it differs.
    let py_addrs = vetted("URL", &py_host, guard).await?;
    let addrs = if same_host(&py_host, &connect_host) {
        py_addrs
    } else {
        vetted("URL", &connect_host, guard).await?
    };
    match addrs.first() {
        Some(ip) => Ok(Target {
            hostname: connect_host,
            ip: *ip,
        }),
        None => Err(format!(
            "Hostname {} resolved to no addresses.",
            py::repr_str(&connect_host)
        )),
    }
}

/// `assert_host_is_safe(host)` for raw hosts (database drivers, SMTP): the first vetted
/// address, to connect to.
pub async fn assert_host_is_safe(host: &str, guard: &Guard) -> Result<IpAddr, String> {
    let host = host.trim();
    if host.is_empty() {
        return Err("Host must not be empty.".to_string());
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addrs = vetted("Host", host, guard).await?;
    addrs
        .first()
        .copied()
        .ok_or_else(|| format!("Hostname {} resolved to no addresses.", py::repr_str(host)))
}

/// Whether Python's hostname and the client's host name the same thing without a lookup.
fn same_host(py_host: &str, client_host: &str) -> bool {
    let py_host = py_host.trim_end_matches('.').to_ascii_lowercase();
    let client = client_host.trim_end_matches('.');
    if py_host == client {
        return true;
    }
    matches!(
        (literal(&py_host), literal(client)),
        (Some(a), Some(b)) if a == b
    )
}

/// `host` as an address literal, read as the HTTP client reads hosts (IPv4 in decimal, octal,
/// hex and short forms; IPv6 with or without brackets).
fn literal(host: &str) -> Option<IpAddr> {
    if let Ok(ip) = host.parse::<Ipv6Addr>() {
        return Some(IpAddr::V6(ip));
    }
    match url::Host::parse(host).ok()? {
        url::Host::Ipv4(a) => Some(IpAddr::V4(a)),
        url::Host::Ipv6(a) => Some(IpAddr::V6(a)),
        url::Host::Domain(_) => None,
    }
}

/// Resolve `host` once and check every address; `what` is `URL` or `Host` in the errors.
async fn vetted(what: &str, host: &str, guard: &Guard) -> Result<Vec<IpAddr>, String> {
    let quoted = py::repr_str(host);
    let lowered = host.trim_end_matches('.').to_ascii_lowercase();
    let allowed_name = guard.allow.allows_host(&lowered);
    if !allowed_name && METADATA_NAMES.contains(&lowered.as_str()) {
        return Err(format!(
            "{what} names a cloud metadata service ({quoted}), which is not allowed."
        ));
    }
    let addrs = match literal(host) {
        Some(ip) => vec![ip],
        None => guard
            .resolver
            .lookup(host)
            .await
            .map_err(|e| format!("Could not resolve hostname {quoted}: {e}"))?,
    };
    if guard.allow_any_host || allowed_name {
        return Ok(addrs);
    }
    for ip in &addrs {
        if !guard.allow.allows_ip(*ip) && !is_public(*ip) {
            return Err(format!(
                "{what} resolves to a non-public address ({ip}), which is not allowed."
            ));
        }
    }
    Ok(addrs)
}

fn nets(list: &[&str]) -> Vec<IpNet> {
    list.iter().filter_map(|n| n.parse().ok()).collect()
}

/// IPv4 ranges that are neither public nor covered by `Ipv4Addr`'s stable predicates: "this
/// network", shared address space (CGNAT), IETF protocol assignments, benchmarking, 6to4 relay
/// anycast, reserved.
static V4_SPECIAL: LazyLock<Vec<IpNet>> = LazyLock::new(|| {
    nets(&[
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "192.88.99.0/24",
        "198.18.0.0/15",
        "240.0.0.0/4",
    ])
});

/// IPv6 ranges that are not public beyond `Ipv6Addr`'s stable predicates: discard-only, IETF
/// protocol assignments (Teredo among them), ORCHIDv2, documentation, local-use NAT64,
/// deprecated site-local.
static V6_SPECIAL: LazyLock<Vec<IpNet>> = LazyLock::new(|| {
    nets(&[
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "2001:20::/28",
        "64:ff9b:1::/48",
        "fec0::/10",
        "3fff::/20",
    ])
});

/// Whether `ip` is a public unicast address: not loopback, private, link-local, CGNAT,
/// multicast, unspecified, broadcast, documentation or reserved; IPv4 inside IPv6 (mapped,
/// compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) judged as that IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_unspecified()
        || ip.is_multicast()
        || V4_SPECIAL.iter().any(|n| n.contains(&IpAddr::V4(ip))))
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
        || V6_SPECIAL.iter().any(|n| n.contains(&IpAddr::V6(ip))))
}

/// The IPv4 address an IPv6 address carries: IPv4-mapped and IPv4-compatible (`to_ipv4`),
/// NAT64's well-known prefix, and 6to4.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4() {
        return Some(v4);
    }
    let s = ip.segments();
    let octets = ip.octets();
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(Ipv4Addr::new(
            octets[12], octets[13], octets[14], octets[15],
        ));
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(octets[2], octets[3], octets[4], octets[5]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses() {
        for (ip, public) in [
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
            ("224.0.0.1", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("192.0.0.170", false),
            ("198.18.0.1", false),
            ("::1", false),
            ("::", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:8.8.8.8", true),
            ("::127.0.0.1", false),
            ("64:ff9b::7f00:1", false),
            ("64:ff9b::808:808", true),
            ("2002:7f00:1::", false),
            ("2002:808:808::", true),
            ("fe80::1", false),
            ("fd00::1", false),
            ("2001:db8::1", false),
            ("2001::1", false),
            ("2606:4700::1111", true),
            ("ff02::1", false),
        ] {
            let addr: IpAddr = ip.parse().expect("ip");
            assert_eq!(is_public(addr), public, "{ip}");
        }
    }

    #[tokio::test]
    async fn guard_rejects_and_allows() {
        let strict = Guard::default();
        assert_eq!(
            assert_url_is_safe("ftp://example.com/", &strict).await,
            Err("Disallowed URL scheme: 'ftp'. Only ['http', 'https'] are allowed.".into())
        );
        assert_eq!(
            assert_url_is_safe("http:///x", &strict).await,
            Err("URL is missing a host.".into())
        );
        assert_eq!(
            assert_url_is_safe("http://127.0.0.1:9/", &strict).await,
            Err("URL resolves to a non-public address (127.0.0.1), which is not allowed.".into())
        );
        let ok = assert_url_is_safe("http://127.0.0.1:9/", &Guard::any_host(true))
            .await
            .expect("allowed");
        assert_eq!(ok.ip, IpAddr::from([127, 0, 0, 1]));
        let listed = Guard {
            allow: AllowList::parse(&["127.0.0.0/8"]).expect("list"),
            ..Guard::default()
        };
        assert!(assert_url_is_safe("http://127.0.0.1:9/", &listed)
            .await
            .is_ok());
        assert!(assert_url_is_safe("http://10.0.0.1:9/", &listed)
            .await
            .is_err());
    }

    #[test]
    fn allow_list_entries() {
        assert!(AllowList::parse(&["a.internal", "10.0.0.0/8", "::1"]).is_ok());
        assert!(AllowList::parse(&[""]).is_err());
        assert!(AllowList::parse(&["http://x/"]).is_err());
    }
}
