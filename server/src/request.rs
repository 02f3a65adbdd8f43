//! Reading requests as RAGFlow's clients send them: `Content-Type: application/json` on every
//! request, with or without a body; form-encoded bodies; booleans as `true`, `True` or `1`.
//! axum's own `Json` extractor rejects an empty body and answers in plain text, so bodies and
//! query strings are read here and every failure becomes an envelope.

use std::collections::HashMap;

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{header, request::Parts};
use serde_json::{Map, Value};

use crate::envelope::ApiError;
use crate::shared::AppRef;

/// A request body as a JSON object; keys whose value is `null` are dropped (RAGFlow treats them
/// as absent).
pub(crate) struct Body(pub Map<String, Value>);

impl FromRequest<AppRef> for Body {
    type Rejection = ApiError;

    async fn from_request(req: Request, app: &AppRef) -> Result<Body, ApiError> {
        let limit = app.max_body_bytes;
        let too_large = || {
            ApiError::exception(format!(
                "<RequestEntityTooLarge '413: Request Entity Too Large'>: the body is over {limit} bytes"
            ))
        };
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > limit) {
            return Err(too_large());
        }
        let form = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|_| too_large())?;
        parse_body(&bytes, form).map(Body)
    }
}

fn parse_body(bytes: &[u8], form: bool) -> Result<Map<String, Value>, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    let map = if form {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(bytes).map_err(|e| {
            ApiError::argument(format!("The form-encoded request body is malformed: {e}"))
        })?;
        pairs
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect()
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(ApiError::argument(
                    "The request body must be a JSON object.",
                ))
            }
            Err(e) => {
                return Err(ApiError::argument(format!(
                    "The request body is not valid JSON: {e}"
                )))
            }
        }
    };
    Ok(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
}

/// The query string as a map (the last of repeated keys wins).
pub(crate) struct Params(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Params, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
            .map_err(|e| ApiError::argument(format!("The query string is malformed: {e}")))?;
        Ok(Params(pairs.into_iter().collect()))
    }
}

impl Params {
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }
}

/// Field `key` of `body` as a string; present with another type is an argument error naming it.
pub(crate) fn string(body: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    match body.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ApiError::argument(format!(
            "`{key}` must be a string, not {}.",
            type_name(other)
        ))),
    }
}

/// A flag as RAGFlow's clients send it: JSON booleans, numbers, or the strings `true`/`True`/`1`.
/// Not Python's truthiness (`canvasc_value::py::truthy`) on purpose: a string counts only when
/// it spells yes ([`flag`], as the query-string flags do), so a client's `"false"` is off here
/// where Python's `bool("false")` is on.
pub(crate) fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(s)) => flag(s),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// A flag given as text.
pub(crate) fn flag(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "true" | "1" | "yes"
    )
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The page and page size of a list (RAGFlow's rules: anything unusable falls back to the
/// default, but a page size over 100 is an error).
pub(crate) fn paging(params: &Params) -> Result<(i64, i64), ApiError> {
    let number = |key: &str, default: i64| {
        params
            .get(key)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|n| *n >= 1)
            .unwrap_or(default)
    };
    let page_size = number("page_size", 30);
    if page_size > 100 {
        return Err(ApiError::exception(
            "page_size must be less than or equal to 100",
        ));
    }
    Ok((number("page", 1), page_size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_read_as_ragflow_reads_them() {
        assert_eq!(parse_body(b"", false).ok(), Some(Map::new()));
        assert_eq!(parse_body(b"  \n", false).ok(), Some(Map::new()));
        let body = parse_body(br#"{"a": 1, "b": null}"#, false).ok();
        assert_eq!(
            body.map(|m| m.keys().cloned().collect::<Vec<_>>()),
            Some(vec!["a".into()])
        );
        let form = parse_body(b"title=x&dsl=%7B%7D", true).ok();
        assert_eq!(
            form.and_then(|m| m.get("dsl").cloned()),
            Some(Value::String("{}".into()))
        );
        assert!(parse_body(b"[1]", false).is_err());
        assert!(parse_body(b"{", false).is_err());
    }

    #[test]
    fn flags_accept_python_spellings() {
        assert!(truthy(Some(&Value::String("True".into()))));
        assert!(!truthy(Some(&Value::String("false".into()))));
        assert!(truthy(Some(&Value::Bool(true))));
        assert!(!truthy(None));
    }
}
