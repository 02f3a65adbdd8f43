//! Python's `urllib.parse.urlsplit` and `urlparse` as CPython 3.11.7 runs them, including the
//! `ValueError`s they raise: unbalanced brackets, a bracketed host that is no IPv6 address
//! (`_check_bracketed_host`), and a non-ASCII netloc that NFKC would turn into a delimiter
//! (`_checknetloc`). Later releases also refuse text before a `[` (CVE-2025-0938); 3.11.7 does not.

use super::ipaddress::{is_ipv4, is_ipv6};
use super::repr::repr_str;

/// What `urlsplit` returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitResult {
    pub scheme: String,
    pub netloc: String,
    pub path: String,
    pub query: String,
    pub fragment: String,
}

/// What `urlparse` returns: `urlsplit`'s parts with `;params` cut from the path's last segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseResult {
    pub scheme: String,
    pub netloc: String,
    pub path: String,
    pub params: String,
    pub query: String,
    pub fragment: String,
}

impl SplitResult {
    /// The `hostname` property.
    pub fn hostname(&self) -> Option<String> {
        hostname(&self.netloc)
    }
}

impl ParseResult {
    /// The `hostname` property.
    pub fn hostname(&self) -> Option<String> {
        hostname(&self.netloc)
    }
}

/// `urllib.parse.uses_params`: the schemes whose paths carry `;params`.
const USES_PARAMS: &[&str] = &[
    "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip", "sips",
    "mms", "sftp", "tel",
];

/// Characters whose NFKC form contains one of `/?#@:` (Unicode 14.0, as CPython 3.11 ships).
const NFKC_URL_DELIMITERS: &[char] = &[
    '\u{2047}', '\u{2048}', '\u{2049}', '\u{2100}', '\u{2101}', '\u{2105}', '\u{2106}', '\u{2a74}',
    '\u{fe13}', '\u{fe16}', '\u{fe55}', '\u{fe56}', '\u{fe5f}', '\u{fe6b}', '\u{ff03}', '\u{ff0f}',
    '\u{ff1a}', '\u{ff1f}', '\u{ff20}',
];

/// `urlsplit(url)` (no default scheme, fragments allowed); the error is the `ValueError` text.
pub fn urlsplit(url: &str) -> Result<SplitResult, String> {
    // Leading C0 controls and spaces go, then every tab and line break.
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut scheme = String::new();
    let mut rest = url.as_str();
    if let Some(i) = url.find(':') {
        let candidate = &url[..i];
        if candidate.starts_with(|c: char| c.is_ascii_alphabetic())
            && candidate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            scheme = candidate.to_ascii_lowercase();
            rest = &url[i + 1..];
        }
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        (netloc, rest) = after.split_at(end);
        let (open, close) = (netloc.contains('['), netloc.contains(']'));
        if open != close {
            return Err("Invalid IPv6 URL".into());
        }
        if let Some((_, bracketed)) = netloc.split_once('[') {
            check_bracketed_host(bracketed.split_once(']').map_or(bracketed, |(h, _)| h))?;
        }
    }
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if netloc.contains(|c| NFKC_URL_DELIMITERS.contains(&c)) {
        return Err(format!(
            "netloc '{netloc}' contains invalid characters under NFKC normalization"
        ));
    }
    Ok(SplitResult {
        scheme,
        netloc: netloc.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        fragment: fragment.to_string(),
    })
}

/// `urlparse(url)` (no default scheme, fragments allowed); the error is the `ValueError` text.
pub fn urlparse(url: &str) -> Result<ParseResult, String> {
    let split = urlsplit(url)?;
    let (path, params) = if USES_PARAMS.contains(&split.scheme.as_str()) && split.path.contains(';')
    {
        // `_splitparams`: the params start at the first `;` of the last path segment.
        let from = split.path.rfind('/').unwrap_or(0);
        match split.path[from..].find(';') {
            Some(i) => (
                split.path[..from + i].to_string(),
                split.path[from + i + 1..].to_string(),
            ),
            None => (split.path.clone(), String::new()),
        }
    } else {
        (split.path.clone(), String::new())
    };
    Ok(ParseResult {
        scheme: split.scheme,
        netloc: split.netloc,
        path,
        params,
        query: split.query,
        fragment: split.fragment,
    })
}

/// The `hostname` property: no user info, port or brackets; lower-cased up to a `%zone`, which
/// keeps its case; `None` when empty.
fn hostname(netloc: &str) -> Option<String> {
    let hostinfo = netloc.rsplit_once('@').map_or(netloc, |(_, h)| h);
    let host = match hostinfo.split_once('[') {
        Some((_, bracketed)) => bracketed.split_once(']').map_or(bracketed, |(h, _)| h),
        None => hostinfo.split_once(':').map_or(hostinfo, |(h, _)| h),
    };
    if host.is_empty() {
        return None;
    }
    Some(match host.split_once('%') {
        Some((addr, zone)) => format!("{}%{zone}", addr.to_lowercase()),
        None => host.to_lowercase(),
    })
}

/// `_check_bracketed_host`: an IPvFuture literal, or an address `ipaddress.ip_address` accepts
/// that is not IPv4.
fn check_bracketed_host(host: &str) -> Result<(), String> {
    if let Some(rest) = host.strip_prefix('v') {
        // `\Av[a-fA-F0-9]+\..+\Z`
        let hex = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        let ok = hex > 0 && rest[hex..].strip_prefix('.').is_some_and(|t| !t.is_empty());
        return if ok {
            Ok(())
        } else {
            Err("IPvFuture address is invalid".into())
        };
    }
    if is_ipv4(host).is_some() {
        return Err("An IPv4 address cannot be in brackets".into());
    }
    if is_ipv6(host) {
        return Ok(());
    }
    Err(format!(
        "{} does not appear to be an IPv4 or IPv6 address",
        repr_str(host)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scheme and `hostname` the SSRF guard reads.
    #[test]
    fn hostnames_like_urlparse() {
        let split_url = |url: &str| {
            let parsed = urlparse(url).expect("a URL");
            (parsed.scheme.clone(), parsed.hostname())
        };
        assert_eq!(
            split_url("http://User@Example.COM:8080/x"),
            ("http".into(), Some("example.com".into()))
        );
        assert_eq!(
            split_url("https://[::1]:80/"),
            ("https".into(), Some("::1".into()))
        );
        assert_eq!(split_url("http:///path"), ("http".into(), None));
        assert_eq!(split_url("ftp://h/"), ("ftp".into(), Some("h".into())));
    }
}
