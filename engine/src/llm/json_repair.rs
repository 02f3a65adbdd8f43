//! `json_repair.loads`, the lenient parser RAGFlow reads model answers with: valid JSON as is;
//! otherwise the first object or array in the text, repaired (unclosed brackets, single
//! quotes, bare keys, trailing text); text with no JSON in it reads as `""`. The repairing is
//! `jsonrepair-rs`; this module only adds where Python's `json_repair` starts and what it gives
//! up with.

use canvasc_value::Json;

pub fn loads(text: &str) -> Json {
    if let Ok(v) = serde_json::from_str::<Json>(text) {
        return v;
    }
    let Some(start) = text.find(['{', '[']) else {
        return Json::String(String::new());
    };
    let tail = &text[start..];
    // The first complete value, ignoring what follows it.
    let mut first = serde_json::Deserializer::from_str(tail).into_iter::<Json>();
    if let Some(Ok(v)) = first.next() {
        return v;
    }
    jsonrepair_rs::jsonrepair(tail)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| Json::String(String::new()))
}

#[cfg(test)]
mod tests {
    use super::loads;
    use serde_json::json;

    /// Expected values are Python `json_repair.loads` (the reference oracle's venv).
    #[test]
    fn reads_answers_as_python_json_repair_does() {
        assert_eq!(loads("hello"), json!(""));
        assert_eq!(loads(""), json!(""));
        assert_eq!(loads(r#"{"a":1"#), json!({"a": 1}));
        assert_eq!(loads(r#"The answer: {"a": 2} ok"#), json!({"a": 2}));
        assert_eq!(loads("[1,2"), json!([1, 2]));
        assert_eq!(loads("true"), json!(true));
        assert_eq!(loads("123"), json!(123));
        assert_eq!(loads("x y {a:1}"), json!({"a": 1}));
        assert_eq!(loads("```json\n{\"a\":1}\n```"), json!({"a": 1}));
    }
}
