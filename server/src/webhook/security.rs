//! A webhook's `security` config applied to a request, in RAGFlow's order (body size, IP
//! allow-list, rate limit, authentication) and with its rejection texts.

use std::net::IpAddr;

use axum::http::HeaderMap;
use base64::Engine as _;
use canvasc_value::py;
use serde_json::{Map, Value};

use super::jwt;
use crate::coord::Coordinator;

/// RAGFlow's cap on `max_body_size`.
pub const MAX_BODY_LIMIT: i64 = 10 * 1024 * 1024;

/// Claims RAGFlow refuses to list in `required_claims`.
const RESERVED_CLAIMS: [&str; 6] = ["exp", "sub", "aud", "iss", "nbf", "iat"];

/// The request as the checks see it.
pub struct Seen<'a> {
    pub canvas_id: &'a str,
    pub headers: &'a HeaderMap,
    /// The `Content-Length` the client declared (`None` for a chunked body).
    pub content_length: Option<u64>,
    pub client: IpAddr,
    pub now_s: f64,
}

/// The body limit `security.max_body_size` sets, or its error.
pub fn body_limit(security: &Map<String, Value>) -> Result<i64, String> {
    let size = match security.get("max_body_size") {
        Some(v) if py::truthy(v) => v,
        _ => return Ok(MAX_BODY_LIMIT),
    };
    let Value::String(size) = size else {
        return Err(format!(
            "'{}' object has no attribute 'lower'",
            py::type_name(size)
        ));
    };
    let size = size.to_lowercase();
    let (suffix, factor) = match () {
        () if size.ends_with("kb") => ("kb", 1024),
        () if size.ends_with("mb") => ("mb", 1024 * 1024),
        () => return Err("Invalid max_body_size format".into()),
    };
    let limit = py::parse_int(&size.replace(suffix, ""))?.saturating_mul(factor);
    if limit > MAX_BODY_LIMIT {
        return Err("max_body_size exceeds maximum allowed size (10MB)".into());
    }
    Ok(limit)
}

/// Every check of `security` (a missing config is refused: RAGFlow asks for an explicit
/// `allow_anonymous`). The error is the rejection's message.
pub async fn check(
    security: Option<&Value>,
    seen: &Seen<'_>,
    coord: &Coordinator,
) -> Result<(), String> {
    let security = match security {
        Some(Value::Object(s)) if !s.is_empty() => s,
        _ => {
            return Err("Webhook security is required. Set allow_anonymous to true to permit unauthenticated webhooks.".into())
        }
    };
    let limit = body_limit(security)?;
    let length = seen.content_length.unwrap_or(0);
    if i64::try_from(length).unwrap_or(i64::MAX) > limit {
        return Err(format!("Request body too large: {length} > {limit}"));
    }
    ip_allowed(security, seen.client)?;
    rate_limit(security, seen, coord).await?;
    let auth_type = match security.get("auth_type") {
        None => "none".to_string(),
        Some(Value::String(t)) => t.clone(),
        Some(other) => py::str_of(other),
    };
    match auth_type.as_str() {
        "none" => {
            if !allow_anonymous(security.get("allow_anonymous")) {
                return Err("Anonymous webhook access requires allow_anonymous to be true".into());
            }
            Ok(())
        }
        "token" => token(security, seen.headers),
        "basic" => basic(security, seen.headers),
        "jwt" => jwt_auth(security, seen),
        other => Err(format!("Unsupported auth_type: {other}")),
    }
}

/// RAGFlow's `_is_truthy`: `true`, a non-zero int, or `1`/`true`/`yes`/`on` in any case.
fn allow_anonymous(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64().is_some_and(|i| i != 0),
        Some(Value::String(s)) => {
            matches!(
                s.trim().to_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        }
        _ => false,
    }
}

fn ip_allowed(security: &Map<String, Value>, client: IpAddr) -> Result<(), String> {
    let rules: Vec<&Value> = match security.get("ip_whitelist") {
        Some(Value::Array(rules)) if !rules.is_empty() => rules.iter().collect(),
        _ => return Ok(()),
    };
    let client_text = client.to_string();
    for rule in rules {
        let rule = match rule {
            Value::String(r) => r.as_str(),
            _ => continue,
        };
        if rule.contains('/') {
            let network: ipnet::IpNet = rule
                .parse()
                .map_err(|_| format!("'{rule}' does not appear to be an IPv4 or IPv6 network"))?;
            if network.contains(&client) {
                return Ok(());
            }
        } else if client_text == rule {
            return Ok(());
        }
    }
    Err(format!("IP {client_text} is not allowed by whitelist"))
}

/// The canvas's token bucket (`rate_limit`, default 60 a minute), shared by every replica.
async fn rate_limit(
    security: &Map<String, Value>,
    seen: &Seen<'_>,
    coord: &Coordinator,
) -> Result<(), String> {
    let default = serde_json::json!({"limit": 60, "per": "minute"});
    let rl = match security.get("rate_limit") {
        Some(v) if py::truthy(v) => v,
        _ => &default,
    };
    let Value::Object(rl) = rl else {
        return Err(format!(
            "'{}' object has no attribute 'get'",
            py::type_name(rl)
        ));
    };
    let limit = match rl.get("limit") {
        None => 60,
        Some(v) => py::to_int(v)?,
    };
    if limit <= 0 {
        return Err("rate_limit.limit must be > 0".into());
    }
    let per = rl.get("per").cloned().unwrap_or_else(|| "minute".into());
    let window = match per.as_str() {
        Some("second") => 1.0,
        Some("minute") => 60.0,
        Some("hour") => 3600.0,
        Some("day") => 86400.0,
        _ => return Err(format!("Invalid rate_limit.per: {}", py::str_of(&per))),
    };
    let capacity = limit as f64;
    let taken = coord
        .take_webhook_token(seen.canvas_id, capacity, capacity / window, seen.now_s)
        .await
        .map_err(|e| format!("Rate limit error: {e}"))?;
    if !taken {
        return Err("Rate limit error: Too many requests (rate limit exceeded)".into());
    }
    Ok(())
}

fn section(security: &Map<String, Value>, name: &str) -> Map<String, Value> {
    match security.get(name) {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    }
}

fn text<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// `request.headers.get(token_header) != token_value`, compared in constant time. A header
/// name that is not text makes Werkzeug's lookup raise (RAGFlow answers its text); a
/// `token_value` that is not text equals no header value, and a missing one equals a
/// missing header (RAGFlow's `None == None`).
fn token(security: &Map<String, Value>, headers: &HeaderMap) -> Result<(), String> {
    let cfg = section(security, "token");
    let header = match cfg.get("token_header") {
        Some(Value::String(h)) => h,
        other => {
            let name = other.map_or("NoneType", py::type_name);
            return Err(format!("'{name}' object has no attribute 'lower'"));
        }
    };
    let provided = headers.get(header.as_str()).map(|v| v.as_bytes());
    let same = match (provided, cfg.get("token_value")) {
        (Some(p), Some(Value::String(e))) => constant_time_eq(p, e.as_bytes()),
        (None, None | Some(Value::Null)) => true,
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err("Invalid token authentication".into())
    }
}

/// Werkzeug's `request.authorization` for Basic credentials, against the configured pair.
fn basic(security: &Map<String, Value>, headers: &HeaderMap) -> Result<(), String> {
    let cfg = section(security, "basic_auth");
    let invalid = || "Invalid Basic Auth credentials".to_string();
    let value = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(invalid)?;
    let (scheme, encoded) = value.trim().split_once(' ').ok_or_else(invalid)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(invalid());
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| invalid())?;
    let decoded = String::from_utf8(decoded).map_err(|_| invalid())?;
    let (user, password) = decoded.split_once(':').ok_or_else(invalid)?;
    // A configured name or password that is not text equals no credential (Python's
    // `str != None`).
    let matches = |given: &str, key: &str| {
        text(&cfg, key).is_some_and(|want| constant_time_eq(given.as_bytes(), want.as_bytes()))
    };
    if matches(user, "username") && matches(password, "password") {
        Ok(())
    } else {
        Err(invalid())
    }
}

fn jwt_auth(security: &Map<String, Value>, seen: &Seen<'_>) -> Result<(), String> {
    let cfg = section(security, "jwt");
    let secret = match cfg.get("secret") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        _ => return Err("JWT secret not configured".into()),
    };
    let header = seen
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .map(|v| {
            v.as_bytes()
                .iter()
                .map(|&b| char::from(b))
                .collect::<String>()
        })
        .unwrap_or_default();
    let Some(token) = header.strip_prefix("Bearer ") else {
        return Err("Missing Bearer token".into());
    };
    let token = py::strip(token);
    if token.is_empty() {
        return Err("Empty Bearer token".into());
    }
    let algorithm = match cfg.get("algorithm") {
        Some(Value::String(a)) if !a.is_empty() => a.to_uppercase(),
        _ => "HS256".to_string(),
    };
    let expected = jwt::Expected {
        secret,
        algorithm,
        audience: one_or_many(&cfg, "audience")?,
        issuer: one_or_many(&cfg, "issuer")?,
    };
    let claims =
        jwt::decode(token, &expected, seen.now_s).map_err(|e| format!("Invalid JWT: {e}"))?;
    let required: Vec<String> = match cfg.get("required_claims") {
        Some(Value::String(c)) => vec![c.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let required: Vec<String> = required
        .into_iter()
        .filter(|c| !c.trim().is_empty())
        .collect();
    if let Some(reserved) = required
        .iter()
        .find(|c| RESERVED_CLAIMS.contains(&c.as_str()))
    {
        return Err(format!("Reserved JWT claim cannot be required: {reserved}"));
    }
    if let Some(missing) = required.iter().find(|c| !claims.contains_key(c.as_str())) {
        return Err(format!("Missing JWT claim: {missing}"));
    }
    Ok(())
}

/// A JWT check's `audience` or `issuer`: PyJWT takes one name or a list of them and checks
/// only when it is set (truthy); other values are refused rather than skipped.
fn one_or_many(cfg: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match cfg.get(key) {
        None => Ok(None),
        Some(v) if !py::truthy(v) => Ok(None),
        Some(Value::String(one)) => Ok(Some(vec![one.clone()])),
        Some(Value::Array(many)) if many.iter().all(Value::is_string) => Ok(Some(
            many.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        )),
        Some(_) => Err(format!(
            "Invalid JWT: {key} must be a string or a list of strings"
        )),
    }
}

/// Secrets are compared without an early exit, so timing does not reveal a prefix.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn body_limits_parse_as_ragflow_parses_them() {
        assert_eq!(body_limit(&map(json!({}))), Ok(MAX_BODY_LIMIT));
        assert_eq!(body_limit(&map(json!({"max_body_size": "1kb"}))), Ok(1024));
        assert_eq!(
            body_limit(&map(json!({"max_body_size": "5MB"}))),
            Ok(5 << 20)
        );
        assert_eq!(
            body_limit(&map(json!({"max_body_size": "11mb"}))),
            Err("max_body_size exceeds maximum allowed size (10MB)".into())
        );
        assert_eq!(
            body_limit(&map(json!({"max_body_size": "10gb"}))),
            Err("Invalid max_body_size format".into())
        );
    }

    #[test]
    fn token_and_basic_auth_never_admit_on_an_incomplete_configuration() {
        let none = HeaderMap::new();
        let cfg = |v: Value| map(json!({"token": v}));
        assert_eq!(
            token(&map(json!({})), &none),
            Err("'NoneType' object has no attribute 'lower'".into())
        );
        let numeric = cfg(json!({"token_header": "X-Token", "token_value": 5}));
        assert_eq!(
            token(&numeric, &none),
            Err("Invalid token authentication".into())
        );
        // RAGFlow's `None == None`: no value configured and no header sent.
        assert!(token(&cfg(json!({"token_header": "X-Token"})), &none).is_ok());
        let mut sent = HeaderMap::new();
        sent.insert("x-token", "s3cret".parse().expect("a value"));
        assert!(token(
            &cfg(json!({"token_header": "X-Token", "token_value": "s3cret"})),
            &sent
        )
        .is_ok());

        let mut basic_header = HeaderMap::new();
        // `hook:` (an empty password)
        basic_header.insert("authorization", "Basic aG9vazo=".parse().expect("a value"));
        let without_password = map(json!({"basic_auth": {"username": "hook", "password": null}}));
        assert!(basic(&without_password, &basic_header).is_err());
        let with_password = map(json!({"basic_auth": {"username": "hook", "password": ""}}));
        assert!(basic(&with_password, &basic_header).is_ok());
    }

    #[test]
    fn the_allow_list_takes_addresses_and_networks() {
        let localhost: IpAddr = "127.0.0.1".parse().expect("ip");
        let rules = |r: Value| map(json!({"ip_whitelist": r}));
        assert!(ip_allowed(&rules(json!(["127.0.0.0/8"])), localhost).is_ok());
        assert!(ip_allowed(&rules(json!(["127.0.0.1"])), localhost).is_ok());
        assert_eq!(
            ip_allowed(&rules(json!(["10.0.0.0/8", "::1"])), localhost),
            Err("IP 127.0.0.1 is not allowed by whitelist".into())
        );
        assert_eq!(
            ip_allowed(&rules(json!(["bad/8"])), localhost),
            Err("'bad/8' does not appear to be an IPv4 or IPv6 network".into())
        );
    }
}
