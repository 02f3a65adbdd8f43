//! UserFillUp: ask the user for form values; the scheduler pauses the run until they arrive
//! (components.md §2, BS §16.11).

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::{elements_of, expand_replacement, Template};
use crate::val::Val;
use canvasc_frontend::binding::Resolve;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Spec {
    pub enable_tips: bool,
    pub tips: Template,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            enable_tips: p.get("enable_tips").is_some_and(py::truthy),
            tips: Template::new(
                p.get("tips")
                    .map(|t| match t {
                        Json::String(s) => s.clone(),
                        other => py::str_of(other),
                    })
                    .unwrap_or_default(),
            ),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx).await
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("Waiting for your input..."))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.tips.bind(r);
    }
}

async fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    if spec.enable_tips {
        let mut content = spec.tips.text().to_string();
        for e in elements_of(cx, &spec.tips)? {
            let ans = match e.value {
                Val::Stream(s) => s.collect().await?,
                Val::Json(Json::Array(items)) => {
                    items.iter().map(py::str_of).collect::<Vec<_>>().join(",")
                }
                Val::Json(Json::String(s)) => s,
                Val::Json(other) => py::json_dumps(&other),
            };
            // `re.sub(r"\{%s\}" % k, ans, content)`: the expression is an unescaped pattern (its
            // `.` matches any character) and the answer a replacement template.
            content = sub_expression(&content, e.exp, &ans)?;
        }
        cx.set_output("tips", Json::String(content));
    }
    let inputs = cx.kwargs.get("inputs").cloned().unwrap_or(Json::Null);
    apply_inputs(cx, &inputs, true).await
}

/// `re.sub(r"\{exp\}", ans, content)` where `exp` is used as a regular expression.
fn sub_expression(content: &str, exp: &str, ans: &str) -> Result<String, RunError> {
    let pattern = format!(r"\{{{exp}\}}");
    let Ok(re) = regex::Regex::new(&pattern) else {
        return Ok(content.to_string());
    };
    if !re.is_match(content) {
        return Ok(content.to_string());
    }
    let mut out = String::new();
    let mut last = 0;
    for m in re.find_iter(content) {
        out.push_str(&content[last..m.start()]);
        out.push_str(&expand_replacement(ans, m.as_str())?);
        last = m.end();
    }
    out.push_str(&content[last..]);
    Ok(out)
}

/// Apply run inputs to the form (shared with Begin): an empty map clears the form so the pause
/// check sees it unsatisfied; each provided value is resolved and becomes an output.
pub async fn apply_inputs(
    cx: &NodeCx<'_>,
    inputs: &Json,
    clear_when_empty: bool,
) -> Result<(), RunError> {
    let provided: Vec<(String, Json)> = match inputs {
        Json::Object(m) if !m.is_empty() => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    };
    if provided.is_empty() && clear_when_empty {
        let mut s = cx.state();
        for field in s.node_mut(cx.node).inputs.values_mut() {
            let Some(f) = field.dict_mut() else { continue };
            let ty = f
                .get("type")
                .map(py::str_of)
                .unwrap_or_default()
                .to_lowercase();
            if ty.contains("file") && f.get("optional").is_some_and(py::truthy) {
                continue;
            }
            f.insert("value".into(), Json::Null);
        }
    }
    for (k, v) in provided {
        if cx.check_canceled() {
            return Ok(());
        }
        let resolved = resolve_input_value(&v).await?;
        cx.set_output(&k, resolved.clone());
        cx.set_input_value(&k, resolved);
    }
    Ok(())
}

/// `_resolve_input_value`: a field object gives its `value` (JSON-parsed for `object` fields);
/// file fields become lists of strings; anything else is used as is.
pub async fn resolve_input_value(v: &Json) -> Result<Json, RunError> {
    let Json::Object(m) = v else {
        return Ok(v.clone());
    };
    let ty = m.get("type").and_then(Json::as_str).unwrap_or("");
    if ty.to_lowercase().contains("file") {
        let value = m.get("value").cloned().unwrap_or(Json::Null);
        if m.get("optional").is_some_and(py::truthy) && value.is_null() {
            return Ok(Json::Null);
        }
        let files = match value {
            Json::Array(a) => a,
            other => vec![other],
        };
        return Ok(Json::Array(files.iter().map(file_text).collect()));
    }
    let raw = m.get("value").cloned().unwrap_or(Json::Null);
    if ty == "object" {
        if let Json::String(s) = &raw {
            if !py::strip(s).is_empty() {
                return Ok(serde_json::from_str(s).unwrap_or(raw.clone()));
            }
        }
    }
    Ok(raw)
}

/// A file value as text: an image becomes a data URL, a document its text. Descriptors that
/// already carry their content (`content`/`text`, or a data URL) are used directly.
fn file_text(f: &Json) -> Json {
    match f {
        Json::String(s) => Json::String(s.clone()),
        Json::Object(m) => m
            .get("content")
            .or_else(|| m.get("text"))
            .or_else(|| m.get("url"))
            .cloned()
            .unwrap_or_else(|| Json::String(String::new())),
        other => Json::String(py::str_of(other)),
    }
}
