//! The webhook's schema (`params.schema.{query,headers,body}`) applied to a request's parts:
//! only declared fields are kept, required ones must be present, strings are cast to the
//! declared type and every value is type-checked. The texts are RAGFlow's
//! (`_webhook_impl`'s `extract_by_schema`, `auto_cast_value`, `validate_type`), including the
//! Python errors its code raises on odd schemas, because its editor shows them to the user.

use canvasc_value::py;
use serde_json::{Map, Value};

/// The fields `schema` declares, taken from `data` (one part of the request, named `name`:
/// `query`, `headers` or `body`). The error is the rejection's message.
pub fn extract(data: &Value, schema: &Value, name: &str) -> Result<Map<String, Value>, String> {
    let props = match get(schema, "properties")? {
        None => return Ok(Map::new()),
        Some(Value::Object(props)) => props,
        Some(other) => return Err(no_attribute(other, "items")),
    };
    let required = get(schema, "required")?
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let mut extracted = Map::new();
    for (field, field_schema) in props {
        let field_type = match get(field_schema, "type")? {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.as_str()),
            // A type that is not text fails the first string test RAGFlow applies to it.
            Some(other) => return Err(no_attribute(other, "startswith")),
        };
        let present = contains(data, field)?;
        if !present && contains(&required, field)? {
            return Err(format!("{name} missing required field: {field}"));
        }
        if !present {
            extracted.insert(field.clone(), default_for(field_type));
            continue;
        }
        let raw = item(data, field)?;
        let value =
            cast(raw, field_type).map_err(|e| format!("{name}.{field} auto-cast failed: {e}"))?;
        if !valid(&value, field_type)? {
            return Err(format!(
                "{name}.{field} type mismatch: expected {}, got {}",
                field_type.unwrap_or("None"),
                py::type_name(&value)
            ));
        }
        extracted.insert(field.clone(), value);
    }
    Ok(extracted)
}

/// `obj.get(key)` on a JSON value, with Python's error for a value that has no `get`.
fn get<'a>(obj: &'a Value, key: &str) -> Result<Option<&'a Value>, String> {
    match obj {
        Value::Object(map) => Ok(map.get(key)),
        other => Err(no_attribute(other, "get")),
    }
}

fn no_attribute(v: &Value, attribute: &str) -> String {
    format!(
        "'{}' object has no attribute '{attribute}'",
        py::type_name(v)
    )
}

/// Python's `field in data`: a key of a dict, an item of a list, a substring of a string.
fn contains(data: &Value, field: &str) -> Result<bool, String> {
    match data {
        Value::Object(map) => Ok(map.contains_key(field)),
        Value::Array(items) => Ok(items.iter().any(|i| i.as_str() == Some(field))),
        Value::String(s) => Ok(s.contains(field)),
        other => Err(format!(
            "argument of type '{}' is not iterable",
            py::type_name(other)
        )),
    }
}

/// Python's `data[field]` for a `field` that `contains` found.
fn item(data: &Value, field: &str) -> Result<Value, String> {
    match data {
        Value::Object(map) => Ok(map.get(field).cloned().unwrap_or(Value::Null)),
        Value::Array(_) => Err("list indices must be integers or slices, not str".into()),
        Value::String(_) => Err("string indices must be integers, not 'str'".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            py::type_name(other)
        )),
    }
}

/// The value an optional field that is absent gets.
fn default_for(field_type: Option<&str>) -> Value {
    match field_type {
        Some("file") => Value::Array(Vec::new()),
        Some("object") => Value::Object(Map::new()),
        Some("boolean") => Value::Bool(false),
        Some("number") => Value::from(0),
        Some("string") => Value::String(String::new()),
        Some(t) if t.starts_with("array") => Value::Array(Vec::new()),
        _ => Value::Null,
    }
}

/// A string converted to the declared type (other values are kept as they are).
fn cast(value: Value, expected: Option<&str>) -> Result<Value, String> {
    let Value::String(text) = &value else {
        return Ok(value);
    };
    let v = py::strip(text);
    let cannot = |what: &str| format!("Cannot convert '{text}' to {what}");
    match expected {
        Some("boolean") => match v.to_lowercase().as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(cannot("boolean")),
        },
        Some("number") => {
            let digits = v.strip_prefix('-').unwrap_or(v);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(i) = v.parse::<i64>() {
                    return Ok(Value::from(i));
                }
            }
            match py::parse_float(v) {
                Some(f) => serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    // JSON has no infinities or NaN, which Python's float() accepts; such a
                    // value is refused rather than passed on as something else.
                    .ok_or_else(|| format!("'{text}' is not a finite number")),
                None => Err(cannot("number")),
            }
        }
        Some("object") => match serde_json::from_str::<Value>(v) {
            Ok(parsed @ Value::Object(_)) => Ok(parsed),
            _ => Err(cannot("object")),
        },
        None => Err("'NoneType' object has no attribute 'startswith'".into()),
        Some(t) if t.starts_with("array") => match serde_json::from_str::<Value>(v) {
            Ok(parsed @ Value::Array(_)) => Ok(parsed),
            _ => Err(cannot("array")),
        },
        Some(_) => Ok(value),
    }
}

/// Whether `value` has the declared type (`array<T>` checks each item against `T`; a type
/// RAGFlow does not know accepts anything). A `bool` is a number, as in Python.
fn valid(value: &Value, expected: Option<&str>) -> Result<bool, String> {
    let Some(t) = expected else {
        return Err("'NoneType' object has no attribute 'startswith'".into());
    };
    Ok(match t {
        "file" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number() || value.is_boolean(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        t if t.starts_with("array") => {
            let Value::Array(items) = value else {
                return Ok(false);
            };
            if let (Some(open), Some(close)) = (t.find('<'), t.find('>')) {
                let inner = t.get(open + 1..close).unwrap_or("");
                for item in items {
                    if !valid(item, Some(inner))? {
                        return Ok(false);
                    }
                }
            }
            true
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(props: Value, required: &[&str]) -> Value {
        json!({"properties": props, "required": required})
    }

    #[test]
    fn declared_fields_are_cast_checked_and_defaulted() {
        let s = schema(
            json!({"n": {"type": "number"}, "b": {"type": "boolean"}, "tags": {"type": "array<string>"},
                   "o": {"type": "object"}, "missing": {"type": "string"}}),
            &["n"],
        );
        let data =
            json!({"n": " 42 ", "b": "0", "tags": "[\"a\",\"b\"]", "o": "{\"k\":1}", "extra": 1});
        let got = extract(&data, &s, "query").expect("valid");
        assert_eq!(
            Value::Object(got),
            json!({"n": 42, "b": false, "tags": ["a", "b"], "o": {"k": 1}, "missing": ""})
        );
        let float = extract(&json!({"n": "2.5"}), &s, "query").expect("valid");
        assert_eq!(float["n"], json!(2.5));
    }

    #[test]
    fn each_kind_of_rejection_has_ragflows_text() {
        let s = schema(
            json!({"n": {"type": "number"}, "tags": {"type": "array<number>"}}),
            &["n"],
        );
        let err = |data: Value| extract(&data, &s, "body").expect_err("rejected");
        assert_eq!(err(json!({})), "body missing required field: n");
        assert_eq!(
            err(json!({"n": "x1"})),
            "body.n auto-cast failed: Cannot convert 'x1' to number"
        );
        assert_eq!(
            err(json!({"n": [1]})),
            "body.n type mismatch: expected number, got list"
        );
        assert_eq!(
            err(json!({"n": 1, "tags": [1, "2"]})),
            "body.tags type mismatch: expected array<number>, got list"
        );
        assert_eq!(err(json!(5)), "argument of type 'int' is not iterable");
        assert_eq!(
            err(json!(["n"])),
            "list indices must be integers or slices, not str"
        );
        let untyped = schema(json!({"x": {}}), &[]);
        assert_eq!(
            extract(&json!({"x": "v"}), &untyped, "body").expect_err("untyped"),
            "body.x auto-cast failed: 'NoneType' object has no attribute 'startswith'"
        );
        assert_eq!(
            extract(&json!({"x": 1}), &untyped, "body").expect_err("untyped"),
            "'NoneType' object has no attribute 'startswith'"
        );
    }

    #[test]
    fn a_bool_passes_as_a_number_as_in_python() {
        let s = schema(json!({"n": {"type": "number"}}), &[]);
        assert_eq!(
            extract(&json!({"n": true}), &s, "body").expect("valid")["n"],
            json!(true)
        );
    }
}
