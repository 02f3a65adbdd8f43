//! CodeExec's output contract (tools.md §4, `build_code_exec_contract` in
//! `agent/tools/code_exec.py`): the one business output, its declared type, and the checks of
//! the value a script returned against it.

use canvasc_value::{py, Json, Map};

/// Outputs RAGFlow sets itself; every other output name is a business output.
pub const SYSTEM_OUTPUTS: &[&str] = &[
    "content",
    "actual_type",
    "attachments",
    "_ERROR",
    "_ARTIFACTS",
    "_ATTACHMENT_CONTENT",
    "raw_result",
    "_created_time",
    "_elapsed_time",
];

fn is_system(name: &str) -> bool {
    SYSTEM_OUTPUTS.contains(&name)
}

/// A contract that holds: the business output's name, the value and its type, the text.
pub struct Contract {
    pub business_output: String,
    pub actual_type: String,
    pub content: String,
}

fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("CodeExec business output name must not be empty".into());
    }
    if is_system(name) {
        return Err(format!(
            "CodeExec reserved output name is not allowed: {name}"
        ));
    }
    if name.contains('.') {
        return Err(format!(
            "CodeExec business output name must not contain '.': {name}"
        ));
    }
    Ok(())
}

/// `select_business_output(outputs)`.
pub fn business_output(outputs: &Map<String, Json>) -> Result<(String, Json), String> {
    if outputs.len() == 1 {
        if let Some((name, meta)) = outputs.iter().next() {
            check_name(name)?;
            return Ok((name.clone(), meta.clone()));
        }
    }
    let business: Vec<(&String, &Json)> = outputs.iter().filter(|(n, _)| !is_system(n)).collect();
    if business.len() != 1 {
        return Err(format!(
            "CodeExec contract must contain exactly one business output, got {}",
            business.len()
        ));
    }
    let (name, meta) = business[0];
    check_name(name)?;
    Ok((name.clone(), meta.clone()))
}

/// `infer_actual_type(value)`.
pub fn actual_type(v: &Json) -> String {
    match v {
        Json::Null => "Null".into(),
        Json::Bool(_) => "Boolean".into(),
        Json::Number(_) => "Number".into(),
        Json::String(_) => "String".into(),
        Json::Object(_) => "Object".into(),
        Json::Array(items) => {
            let mut kinds: Vec<String> = items.iter().map(actual_type).collect();
            kinds.sort();
            kinds.dedup();
            match kinds.as_slice() {
                [one] => format!("Array<{one}>"),
                _ => "Array<Any>".into(),
            }
        }
    }
}

/// `render_canonical_content(value)`.
pub fn content(v: &Json) -> String {
    match v {
        Json::Null => String::new(),
        Json::String(s) => s.clone(),
        Json::Object(_) | Json::Array(_) => py::json_dumps_indent(v, 2, true),
        other => py::str_of(other),
    }
}

/// `_normalize_expected_type`.
fn normalize(expected: &str) -> Result<String, String> {
    let t = expected.trim();
    let low = t.to_lowercase();
    let simple = match low.as_str() {
        "string" => Some("String"),
        "number" => Some("Number"),
        "boolean" => Some("Boolean"),
        "object" => Some("Object"),
        "null" => Some("Null"),
        "any" => Some("Any"),
        _ => None,
    };
    if let Some(s) = simple {
        return Ok(s.into());
    }
    if low.starts_with("array<") && low.ends_with('>') {
        let open = t.find('<').map_or(0, |i| i + 1);
        let inner = t.get(open..t.len() - 1).unwrap_or("").trim();
        if inner.is_empty() {
            return Err(format!("Unsupported expected type: {expected}"));
        }
        return Ok(format!("Array<{}>", normalize(inner)?));
    }
    Ok(t.to_string())
}

/// `_validate_expected_type(expected, value, path)`.
fn validate(expected: &str, v: &Json, path: &str) -> Result<(), String> {
    let etype = normalize(expected)?;
    if etype.is_empty() || etype.eq_ignore_ascii_case("any") {
        return Ok(());
    }
    let shown = if path.is_empty() { "value" } else { path };
    if let Some(inner) = etype
        .strip_prefix("Array<")
        .and_then(|r| r.strip_suffix('>'))
    {
        let Json::Array(items) = v else {
            return Err(format!(
                "CodeExec contract mismatch at {shown}: expected type {etype}, got {}",
                actual_type(v)
            ));
        };
        for (i, item) in items.iter().enumerate() {
            validate(inner.trim(), item, &format!("{path}[{i}]"))?;
        }
        return Ok(());
    }
    let valid = match etype.as_str() {
        "String" => v.is_string(),
        "Number" => v.is_number(),
        "Boolean" => v.is_boolean(),
        "Object" => v.is_object(),
        "Null" => v.is_null(),
        _ => return Err(format!("Unsupported expected type: {expected}")),
    };
    if valid {
        Ok(())
    } else {
        Err(format!(
            "CodeExec contract mismatch at {shown}: expected type {etype}, got {}",
            actual_type(v)
        ))
    }
}

/// `build_code_exec_contract(outputs, value)`.
pub fn build(outputs: &Map<String, Json>, value: &Json) -> Result<Contract, String> {
    let (name, meta) = business_output(outputs)?;
    let expected = match meta.get("type") {
        Some(t) if py::truthy(t) => py::str_of(t),
        _ => String::new(),
    };
    validate(&expected, value, "")?;
    Ok(Contract {
        business_output: name,
        actual_type: actual_type(value),
        content: content(value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outputs(v: Json) -> Map<String, Json> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn contract_checks_like_ragflow() {
        let o = outputs(json!({"result": {"type": "Array<Number>"}, "content": {}}));
        let c = build(&o, &json!([1, 2.5]));
        assert!(c.is_ok());
        assert_eq!(
            build(&o, &json!([1, "x"])).err(),
            Some("CodeExec contract mismatch at [1]: expected type Number, got String".into())
        );
        assert_eq!(
            build(&o, &json!("x")).err(),
            Some(
                "CodeExec contract mismatch at value: expected type Array<Number>, got String"
                    .into()
            )
        );
        let two = outputs(json!({"a": {}, "b": {}}));
        assert_eq!(
            build(&two, &json!(1)).err(),
            Some("CodeExec contract must contain exactly one business output, got 2".into())
        );
        let odd = outputs(json!({"r": {"type": "Decimal"}}));
        assert_eq!(
            build(&odd, &json!(1)).err(),
            Some("Unsupported expected type: Decimal".into())
        );
        assert_eq!(actual_type(&json!([{"a": 1}, {}])), "Array<Object>");
        assert_eq!(
            content(&json!({"b": 1, "a": [1]})),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": 1\n}"
        );
    }
}
