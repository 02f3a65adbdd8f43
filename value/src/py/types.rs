//! Python's truthiness and type names.

use serde_json::Value;

/// Python truthiness: `None`, `False`, `0`, `0.0`, `""`, `[]`, `{}` are falsy; everything else
/// (including `"0"` and `"false"`) is truthy.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i != 0
            } else if let Some(u) = n.as_u64() {
                u != 0
            } else {
                n.as_f64().is_none_or(|f| f != 0.0)
            }
        }
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python `type(v).__name__`.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python `str(type(v))`, e.g. `<class 'str'>` — the `type` that `set_output` records.
pub fn class_repr(v: &Value) -> String {
    class_repr_static(v).to_string()
}

/// [`class_repr`] without allocating.
pub fn class_repr_static(v: &Value) -> &'static str {
    match v {
        Value::Null => "<class 'NoneType'>",
        Value::Bool(_) => "<class 'bool'>",
        Value::Number(n) if n.is_f64() => "<class 'float'>",
        Value::Number(_) => "<class 'int'>",
        Value::String(_) => "<class 'str'>",
        Value::Array(_) => "<class 'list'>",
        Value::Object(_) => "<class 'dict'>",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::v;

    #[test]
    fn truthiness_and_type_names() {
        for (x, truth, name) in [
            ("null", false, "NoneType"),
            ("false", false, "bool"),
            ("true", true, "bool"),
            ("0", false, "int"),
            ("-1", true, "int"),
            ("18446744073709551615", true, "int"),
            ("0.0", false, "float"),
            ("-0.0", false, "float"),
            ("0.5", true, "float"),
            ("\"\"", false, "str"),
            ("\"0\"", true, "str"),
            ("\"false\"", true, "str"),
            ("[]", false, "list"),
            ("[0]", true, "list"),
            ("{}", false, "dict"),
            ("{\"a\": null}", true, "dict"),
        ] {
            assert_eq!(truthy(&v(x)), truth, "bool({x})");
            assert_eq!(type_name(&v(x)), name, "type({x})");
            assert_eq!(class_repr(&v(x)), format!("<class '{name}'>"));
        }
    }
}
