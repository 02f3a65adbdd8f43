//! Categorize (components.md §5): asks the model which category the query falls into and
//! routes to that category's components.

use super::llm::Llm;
use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::{in_iteration, Template};
use crate::llm::ChatMessage;
use crate::state::InputKeys;
use crate::val::Val;
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::meta::Target;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Category {
    pub name: String,
    pub description: String,
    pub examples: Vec<String>,
    pub to: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub llm: Llm,
    /// In insertion order: the last one is the fallback.
    pub categories: Vec<Category>,
    /// The reference to classify (`query`, `sys.query` when empty).
    pub query: String,
    pub history_window: i64,
    /// `{<query>}`: the input element.
    pub element: Template,
    /// The generated system prompt (`update_prompt()`).
    pub sys_prompt: String,
}

/// A list parameter as Python iterates it (a string by character).
fn strings(v: Option<&Json>) -> Vec<String> {
    match v {
        Some(Json::Array(items)) => items
            .iter()
            .map(|x| match x {
                Json::String(s) => s.clone(),
                other => py::str_of(other),
            })
            .collect(),
        Some(Json::String(s)) => s.chars().map(String::from).collect(),
        _ => Vec::new(),
    }
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let categories: Vec<Category> = p
            .get("category_description")
            .and_then(Json::as_object)
            .map(|m| {
                m.iter()
                    .map(|(name, d)| Category {
                        name: name.clone(),
                        description: match d.get("description") {
                            Some(Json::String(s)) => s.clone(),
                            Some(v) if py::truthy(v) => py::str_of(v),
                            _ => String::new(),
                        },
                        examples: strings(d.get("examples")),
                        to: strings(d.get("to")),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let query = match p.get("query").and_then(Json::as_str) {
            Some(q) if !q.is_empty() => q.to_string(),
            _ => "sys.query".to_string(),
        };
        let mut llm = Llm::from_params(p);
        llm.history_window = p
            .get("message_history_window_size")
            .and_then(Json::as_i64)
            .unwrap_or(1);
        Spec {
            sys_prompt: system_prompt(&categories),
            element: Template::new(format!("{{{query}}}")),
            history_window: llm.history_window,
            llm,
            categories,
            query,
        }
    }
}

/// `CategorizeParam.update_prompt()`.
fn system_prompt(categories: &[Category]) -> String {
    let names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
    let descriptions: Vec<String> = categories
        .iter()
        .filter(|c| !c.description.is_empty())
        .map(|c| {
            format!(
                "\n------\nCategory: {}\nDescription: {}",
                c.name, c.description
            )
        })
        .collect();
    let mut prompt = format!(
        "\nYou are an advanced classification system that categorizes user questions into specific types. Analyze the input question and classify it into ONE of the following categories:\n{}\n\nHere's description of each category:\n - {}\n\n---- Instructions ----\n - Consider both explicit mentions and implied context\n - Prioritize the most specific applicable category\n - Return only the category name without explanations\n - Use \"Other\" only when no other category fits\n\n ",
        names.join("\n - "),
        descriptions.join("\n")
    );
    let examples: Vec<String> = categories
        .iter()
        .flat_map(|c| {
            c.examples
                .iter()
                .filter(|e| !e.is_empty())
                .map(move |e| format!("USER: \"{}\" → {}", e.replace('\n', "    "), c.name))
        })
        .collect();
    if !examples.is_empty() {
        prompt.push_str(&format!("\n---- Examples ----\n{}\n", examples.join("\n")));
    }
    prompt
}

/// Python `s.count(sub)`: non-overlapping occurrences (an empty `sub` counts every position).
fn count(s: &str, sub: &str) -> usize {
    if sub.is_empty() {
        return s.chars().count() + 1;
    }
    s.matches(sub).count()
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        if cx.check_canceled() {
            return Ok(());
        }
        let mut msg = cx.state().get_history(self.history_window);
        if msg.is_empty() {
            msg.push(("user".into(), String::new()));
        }
        let value = match cx.value(&self.query)? {
            Val::Json(Json::Null) => Json::String(String::new()),
            Val::Json(j) => j,
            // Python would classify the generator object and fail on it.
            Val::Stream(_) => {
                return Err(RunError::type_error(
                    "expected string or bytes-like object, got 'functools.partial'",
                ))
            }
        };
        cx.set_input_value(&self.query, value.clone());
        let query = match value {
            Json::String(s) => s,
            other => {
                return Err(RunError::type_error(format!(
                    "expected string or bytes-like object, got '{}'",
                    py::type_name(&other)
                )))
            }
        };
        if let Some(last) = msg.last_mut() {
            last.1 = query;
        }
        let parts: Vec<String> = msg
            .iter()
            .map(|(role, content)| {
                format!("{}: \"{}\"", role.to_uppercase(), content.replace('\n', ""))
            })
            .collect();
        let user_prompt = format!("\n---- Real Data ----\n{} →\n", parts.join(" | "));
        if cx.check_canceled() {
            return Ok(());
        }
        // Categorize's handle keeps the model layer's default retries.
        let bundle = super::llm::model(cx, &self.llm.llm_id)?;
        let ans = bundle
            .chat(
                &self.sys_prompt,
                vec![ChatMessage::new("user", user_prompt)],
                &self.llm.gen_conf,
            )
            .await;
        if ans.contains("**ERROR**") {
            return Err(RunError::msg(ans));
        }
        if cx.check_canceled() {
            return Ok(());
        }
        let answer = ans.to_lowercase();
        let mut chosen = self.categories.last();
        let mut best = 0;
        for c in &self.categories {
            let n = count(&answer, &c.name.to_lowercase());
            if n > best {
                best = n;
                chosen = Some(c);
            }
        }
        let Some(chosen) = chosen else {
            return Err(RunError::raised("IndexError", "list index out of range"));
        };
        cx.set_output("category_name", Json::String(chosen.name.clone()));
        cx.set_output(
            "_next",
            Json::Array(chosen.to.iter().cloned().map(Json::String).collect()),
        );
        Ok(())
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        let names: Vec<String> = self
            .categories
            .iter()
            .map(|c| format!("`{}`", c.name))
            .collect();
        Ok(Cow::Owned(format!(
            "Which should it falls into {}? ...",
            names.join(",")
        )))
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.element.dependencies(cx)
    }

    fn get_input(&self, _cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        Ok(Map::new())
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        InputKeys::Keys(Cow::Borrowed(self.element.keys(in_iteration(cx))))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.element.bind(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The example of components.md §5 (RAGFlow's `update_prompt`).
    #[test]
    fn system_prompt_is_ragflows_text() {
        let p = json!({"category_description": {
            "Retrieval": {"description": "KB related", "examples": ["look up kb", "a\nb"], "to": ["x"]},
            "Other": {"description": "", "examples": [], "to": ["y"]}}});
        let s = Spec::from_params(p.as_object().expect("object"));
        assert!(s
            .sys_prompt
            .starts_with("\nYou are an advanced classification system"));
        assert!(s.sys_prompt.contains(
            "categories:\nRetrieval\n - Other\n\nHere's description of each category:\n - \n------\nCategory: Retrieval\nDescription: KB related\n\n---- Instructions ----"
        ));
        assert!(s.sys_prompt.ends_with(
            "fits\n\n \n---- Examples ----\nUSER: \"look up kb\" → Retrieval\nUSER: \"a    b\" → Retrieval\n"
        ));
        assert_eq!(s.query, "sys.query");
    }

    #[test]
    fn counts_like_python() {
        assert_eq!(count("aaaa", "aa"), 2);
        assert_eq!(count("abc", ""), 4);
    }
}
