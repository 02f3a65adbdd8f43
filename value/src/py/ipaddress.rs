//! The textual forms Python's `ipaddress.ip_address` accepts (CPython 3.11: no leading zeros in
//! IPv4 octets, an optional `%scope` on IPv6), which `urlsplit` applies to a bracketed host.

/// `ipaddress.IPv4Address`: four decimal octets, no leading zeros, each at most 255.
pub(super) fn is_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut value = 0u32;
    for part in parts {
        if part.is_empty()
            || part.len() > 3
            || !part.bytes().all(|b| b.is_ascii_digit())
            || (part.len() > 1 && part.starts_with('0'))
        {
            return None;
        }
        let octet: u32 = part.parse().ok()?;
        if octet > 255 {
            return None;
        }
        value = value << 8 | octet;
    }
    Some(value)
}

/// `ipaddress.IPv6Address`, including a `%scope` suffix and an embedded dotted IPv4 tail.
pub(super) fn is_ipv6(s: &str) -> bool {
    let addr = match s.split_once('%') {
        Some((addr, scope)) if !scope.is_empty() && !scope.contains('%') => addr,
        Some(_) => return false,
        None => s,
    };
    if addr.is_empty() {
        return false;
    }
    let mut parts: Vec<String> = addr.split(':').map(str::to_string).collect();
    if parts.len() < 3 {
        return false;
    }
    if parts.last().is_some_and(|p| p.contains('.')) {
        let Some(v4) = parts.pop().as_deref().and_then(is_ipv4) else {
            return false;
        };
        parts.push(format!("{:x}", v4 >> 16));
        parts.push(format!("{:x}", v4 & 0xffff));
    }
    if parts.len() > 9 {
        return false;
    }
    let n = parts.len();
    let mut skip = None;
    for (i, part) in parts.iter().enumerate().take(n - 1).skip(1) {
        if part.is_empty() {
            if skip.is_some() {
                return false;
            }
            skip = Some(i);
        }
    }
    let hextet =
        |p: &String| (1..=4).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_hexdigit());
    match skip {
        Some(skip) => {
            let mut hi = skip;
            let mut lo = n - skip - 1;
            if parts[0].is_empty() {
                hi -= 1;
                if hi > 0 {
                    return false;
                }
            }
            if parts[n - 1].is_empty() {
                lo -= 1;
                if lo > 0 {
                    return false;
                }
            }
            hi + lo < 8 && parts[..hi].iter().all(hextet) && parts[n - lo..].iter().all(hextet)
        }
        None => n == 8 && parts.iter().all(hextet),
    }
}
