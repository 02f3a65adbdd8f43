//! Python's dict and list access on a JSON value (`v[key]`, `v.get(key)`, `for x in v`), with the
//! exceptions CPython raises for the wrong type. The front-end's parameter checks and the
//! engine's components both report these texts, so they come from here.

use super::{repr_str, type_name};
use serde_json::Value;
use std::fmt;

/// A Python exception an access raises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// `KeyError(key)`: the missing key.
    Key(String),
    /// `TypeError(message)`.
    Type(String),
    /// `AttributeError(message)`.
    Attribute(String),
}

impl AccessError {
    /// The exception's class name.
    pub fn class(&self) -> &'static str {
        match self {
            AccessError::Key(_) => "KeyError",
            AccessError::Type(_) => "TypeError",
            AccessError::Attribute(_) => "AttributeError",
        }
    }
}

/// The exception's `str()` (a `KeyError` shows its key's repr).
impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Key(key) => f.write_str(&repr_str(key)),
            AccessError::Type(m) | AccessError::Attribute(m) => f.write_str(m),
        }
    }
}

/// The text of Python's `AttributeError` for a method missing on a type (by its name).
pub fn attribute_error(type_name: &str, attr: &str) -> String {
    format!("'{type_name}' object has no attribute '{attr}'")
}

/// Python's `v[key]` with a string key.
pub fn getitem<'a>(v: &'a Value, key: &str) -> Result<&'a Value, AccessError> {
    match v {
        Value::Object(m) => m.get(key).ok_or_else(|| AccessError::Key(key.to_string())),
        Value::String(_) => Err(AccessError::Type(
            "string indices must be integers, not 'str'".into(),
        )),
        Value::Array(_) => Err(AccessError::Type(
            "list indices must be integers or slices, not str".into(),
        )),
        other => Err(AccessError::Type(format!(
            "'{}' object is not subscriptable",
            type_name(other)
        ))),
    }
}

/// Python's `v.get(key)` on what should be a dict (`None` for a missing key).
pub fn get<'a>(v: &'a Value, key: &str) -> Result<Option<&'a Value>, AccessError> {
    match v {
        Value::Object(m) => Ok(m.get(key)),
        other => Err(AccessError::Attribute(attribute_error(
            type_name(other),
            "get",
        ))),
    }
}

/// Python's `for x in v`: a list by item, a str by character, a dict by key.
pub fn iter(v: &Value) -> Result<Vec<Value>, AccessError> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.to_string())).collect()),
        Value::Object(m) => Ok(m.keys().map(|k| Value::String(k.clone())).collect()),
        other => Err(AccessError::Type(format!(
            "'{}' object is not iterable",
            type_name(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::v;

    /// Texts as CPython 3.11 raises them.
    #[test]
    fn errors_as_python() {
        fn text(r: Result<&Value, AccessError>) -> Result<&Value, (&'static str, String)> {
            r.map_err(|e| (e.class(), e.to_string()))
        }
        assert_eq!(
            text(getitem(&v(r#"{"a": 1}"#), "b")),
            Err(("KeyError", "'b'".into()))
        );
        assert_eq!(
            text(getitem(&v(r#""s""#), "b")),
            Err((
                "TypeError",
                "string indices must be integers, not 'str'".into()
            ))
        );
        assert_eq!(
            text(getitem(&v("[1]"), "b")),
            Err((
                "TypeError",
                "list indices must be integers or slices, not str".into()
            ))
        );
        assert_eq!(
            text(getitem(&v("1"), "b")),
            Err(("TypeError", "'int' object is not subscriptable".into()))
        );
        assert_eq!(
            get(&v("[1]"), "b").map_err(|e| e.to_string()),
            Err("'list' object has no attribute 'get'".into())
        );
        assert_eq!(
            iter(&v("null")).map_err(|e| e.to_string()),
            Err("'NoneType' object is not iterable".into())
        );
        assert_eq!(iter(&v(r#"{"k": 1}"#)), Ok(vec![v(r#""k""#)]));
    }
}
