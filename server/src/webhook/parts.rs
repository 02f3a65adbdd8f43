//! A webhook request as RAGFlow's `parse_webhook_request` reads it: the query string (first
//! value of each name), the headers (names as Quart spells them: `str.title()`), and the body
//! by its content type. Nothing here depends on the server, so `canvasc run
//! --webhook-payload` builds the same payload the server does.

use serde_json::{Map, Value};

/// The parts of one request, before the schema picks from them (RAGFlow's `parsed`, which the
/// run also gets whole as Begin's input `request`).
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    pub query: Map<String, Value>,
    pub headers: Map<String, Value>,
    pub body: Value,
    pub content_type: String,
}

impl Parts {
    /// `{"query", "headers", "body", "content_type"}`.
    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        out.insert("query".into(), Value::Object(self.query.clone()));
        out.insert("headers".into(), Value::Object(self.headers.clone()));
        out.insert("body".into(), self.body.clone());
        out.insert(
            "content_type".into(),
            Value::String(self.content_type.clone()),
        );
        Value::Object(out)
    }
}

/// A multipart file part: RAGFlow uploads it and gives the run its parsed content.
#[derive(Clone, Debug)]
pub struct FilePart {
    pub field: String,
    pub filename: String,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// RAGFlow's limit on a webhook's uploaded files; more leave the body empty.
pub const MAX_FILES: usize = 10;

/// The request's query string, as Werkzeug's `args.items()`: percent-decoded, the first value
/// of a repeated name.
pub fn query(raw: Option<&str>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if !out.contains_key(k.as_ref()) {
            out.insert(k.into_owned(), Value::String(v.into_owned()));
        }
    }
    out
}

/// The headers as `{k: v for k, v in request.headers.items()}` over Quart's headers: its own
/// `Remote-Addr` (the client's address) first, then the request's, each name titled; the last
/// of a repeated name wins (at its first place); values are Latin-1.
pub fn headers<'a>(
    remote_addr: &'a [u8],
    pairs: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let all = std::iter::once(("remote-addr", remote_addr)).chain(pairs);
    for (name, value) in all {
        let value: String = value.iter().map(|&b| char::from(b)).collect();
        out.insert(title(name), Value::String(value));
    }
    out
}

/// Python's `str.title()`: a letter after a non-letter is upper-cased, any other lower-cased.
pub fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut after_letter = false;
    for c in s.chars() {
        if c.is_alphabetic() {
            if after_letter {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            after_letter = true;
        } else {
            out.push(c);
            after_letter = false;
        }
    }
    out
}

/// The `Content-Type` without its parameters, as RAGFlow compares it.
pub fn content_type(header: Option<&str>) -> String {
    header
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Python's `ValueError` when the request's content type is not the webhook's. RAGFlow raises
/// it outside its error handling, so the client gets the generic exception answer.
pub fn content_type_mismatch(expected: Option<&str>, got: &str) -> Option<String> {
    let expected_text = expected.unwrap_or("None");
    (!got.is_empty() && Some(got) != expected)
        .then(|| format!("Invalid Content-Type: expect '{expected_text}', got '{got}'"))
}

/// The body of a request whose content type is `ctype` (already checked): JSON, a form, or
/// raw text read as JSON when it is JSON. A body that cannot be read is `{}`, as RAGFlow
/// swallows every error here. Multipart bodies are read by [`multipart`].
pub fn body(ctype: &str, raw: &[u8]) -> Value {
    let empty = || Value::Object(Map::new());
    match ctype {
        "application/json" => match serde_json::from_slice::<Value>(raw) {
            // `await request.get_json() or {}`
            Ok(v) if canvasc_value::py::truthy(&v) => v,
            _ => empty(),
        },
        "application/x-www-form-urlencoded" => {
            let mut form = Map::new();
            for (k, v) in form_urlencoded::parse(raw) {
                if !form.contains_key(k.as_ref()) {
                    form.insert(k.into_owned(), Value::String(v.into_owned()));
                }
            }
            Value::Object(form)
        }
        _ if raw.is_empty() => empty(),
        _ => std::str::from_utf8(raw)
            .ok()
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_else(empty),
    }
}

/// A `multipart/form-data` body: its text fields (the first of a repeated name) and its
/// files; `None` when it cannot be read (RAGFlow's body is then `{}`).
pub async fn multipart(
    content_type_header: &str,
    raw: bytes::Bytes,
) -> Option<(Map<String, Value>, Vec<FilePart>)> {
    let boundary = multer::parse_boundary(content_type_header).ok()?;
    let stream = futures::stream::once(async move { Ok::<_, std::io::Error>(raw) });
    let mut reader = multer::Multipart::new(stream, boundary);
    let mut fields = Map::new();
    let mut files = Vec::new();
    while let Some(field) = reader.next_field().await.ok()? {
        let name = field.name().unwrap_or("").to_string();
        match field.file_name().map(str::to_string) {
            Some(filename) => {
                let content_type = field.content_type().map(|m| m.to_string());
                let bytes = field.bytes().await.ok()?.to_vec();
                files.push(FilePart {
                    field: name,
                    filename,
                    content_type,
                    bytes,
                });
            }
            None => {
                let text = field.text().await.ok()?;
                if !fields.contains_key(&name) {
                    fields.insert(name, Value::String(text));
                }
            }
        }
    }
    Some((fields, files))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_names_are_titled_as_python_titles_them() {
        assert_eq!(title("x-api-key"), "X-Api-Key");
        assert_eq!(title("content-TYPE"), "Content-Type");
        assert_eq!(title("x_custom1a"), "X_Custom1A");
    }

    #[test]
    fn the_first_value_of_a_repeated_query_name_is_kept() {
        assert_eq!(
            Value::Object(query(Some("a=1&b=x%20y&a=2"))),
            json!({"a": "1", "b": "x y"})
        );
    }

    #[test]
    fn bodies_are_read_by_content_type_and_unreadable_ones_are_empty() {
        assert_eq!(body("application/json", b"{\"a\":1}"), json!({"a": 1}));
        assert_eq!(body("application/json", b"[]"), json!({}));
        assert_eq!(body("application/json", b"{oops"), json!({}));
        assert_eq!(body("text/plain", b"[1,2]"), json!([1, 2]));
        assert_eq!(body("text/plain", b"0"), json!(0));
        assert_eq!(body("text/plain", b"hello"), json!({}));
        assert_eq!(
            body("application/x-www-form-urlencoded", b"k=v&k=w&n=1"),
            json!({"k": "v", "n": "1"})
        );
    }

    #[test]
    fn only_a_different_declared_content_type_is_refused() {
        assert_eq!(content_type_mismatch(Some("application/json"), ""), None);
        assert_eq!(
            content_type_mismatch(Some("application/json"), "text/plain").as_deref(),
            Some("Invalid Content-Type: expect 'application/json', got 'text/plain'")
        );
    }
}
