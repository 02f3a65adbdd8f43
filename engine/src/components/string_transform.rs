//! StringTransform: split a string on literal delimiters, or merge references into a template
//! (components.md §17, `agent/component/string_transform.py`, which reuses Message's helpers).

use super::message::{kwargs_now, kwargs_of, text_cow};
use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::{in_iteration, Renamed, Template};
use crate::jinja::{self, RenderError};
use crate::read_bound::ReadBound;
use crate::state::InputKeys;
use crate::state::RunState;
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_frontend::catalog::SHARED_OUTPUTS;
use canvasc_frontend::meta::Target;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

/// The slot of `result`, StringTransform's one fixed output, which follows the shared ones.
const RESULT: u16 = SHARED_OUTPUTS.len() as u16;

#[derive(Clone, Debug)]
pub struct Spec {
    pub method: Json,
    pub script: Template,
    pub split_ref: Json,
    pub split_bound: Option<Bound>,
    pub delimiters: Vec<String>,
    /// `It's <method>ing.`
    thoughts: String,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let text = |v: &Json| match v {
            Json::String(s) => s.clone(),
            other => py::str_of(other),
        };
        let method = p.get("method").cloned().unwrap_or(Json::from("split"));
        Spec {
            thoughts: format!("It's {}ing.", text(&method)),
            method,
            script: Template::new(p.get("script").map(text).unwrap_or_default()),
            split_ref: p.get("split_ref").cloned().unwrap_or(Json::from("")),
            split_bound: None,
            delimiters: match p.get("delimiters") {
                Some(Json::Array(items)) => items.iter().map(text).collect(),
                Some(Json::String(s)) => s.chars().map(|c| c.to_string()).collect(),
                _ => vec![",".to_string()],
            },
        }
    }

    fn is_split(&self) -> bool {
        self.method == "split"
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        let now = self.body_now(cx, &mut cx.state());
        match now {
            Some(result) => result,
            None => merge(self, cx).await,
        }
    }

    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
        if cx.check_canceled_in(s) {
            return Some(Ok(()));
        }
        if self.is_split() {
            Some(split(self, cx, s))
        } else {
            merge_now(self, cx, s)
        }
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed(&self.thoughts))
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.script.dependencies(cx)
    }

    /// Text-driven components' elements are expressions, never params: `{}`.
    fn get_input(&self, _cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        Ok(Map::new())
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        InputKeys::Keys(Cow::Borrowed(self.script.keys(in_iteration(cx))))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.script.bind(r);
        match &self.split_ref {
            Json::String(exp) if self.is_split() && !exp.is_empty() => {
                self.split_bound = r.resolve(exp);
            }
            _ => {}
        }
    }
}

fn split(spec: &Spec, cx: &NodeCx<'_>, s: &mut RunState) -> Result<(), RunError> {
    let key = super::exp_str(&spec.split_ref)?;
    let var = match cx.read_in(s, spec.split_bound.as_ref(), key)? {
        Val::Json(v) if !py::truthy(&v) => String::new(),
        Val::Json(Json::String(s)) => s,
        Val::Json(other) => {
            return Err(RunError::raised(
                "AssertionError",
                format!(
                    "The input variable is not a string: {}",
                    py::class_repr(&other)
                ),
            ))
        }
        Val::Stream(_) => {
            return Err(RunError::raised(
                "AssertionError",
                "The input variable is not a string: <class 'functools.partial'>",
            ))
        }
    };
    let pieces = split_on(&var, &spec.delimiters);
    let node = s.node_mut(cx.node);
    node.set_input_value(key, Json::String(var));
    node.set_output_slot(
        RESULT,
        Val::Json(Json::Array(pieces.into_iter().map(Json::String).collect())),
    );
    Ok(())
}

/// `re.split("(d1|d2|…)", text)` keeping the pieces between matches. At each position the first
/// listed delimiter that matches wins; after an empty match the next match must advance (CPython
/// 3.7+ `re.split` semantics), so an empty delimiter splits between every character.
pub fn split_on(text: &str, delimiters: &[String]) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut last = 0;
    let mut pos = 0;
    let mut must_advance = false;
    loop {
        let mut found = None;
        let starts = text[pos..]
            .char_indices()
            .map(|(i, _)| pos + i)
            .chain(std::iter::once(text.len()));
        'search: for p in starts {
            for d in delimiters {
                if d.is_empty() && must_advance && p == pos {
                    continue;
                }
                if text[p..].starts_with(d.as_str()) {
                    found = Some((p, p + d.len()));
                    break 'search;
                }
            }
        }
        let Some((start, end)) = found else { break };
        pieces.push(text[last..start].to_string());
        must_advance = start == end;
        last = end;
        pos = end;
    }
    pieces.push(text[last..].to_string());
    pieces
}

/// The merge when an element is a stream, which is collected first.
async fn merge(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    let delimiter = spec.delimiters.first().map(String::as_str);
    let mut downloads = Vec::new();
    let (renamed, kwargs) = kwargs_of(cx, &spec.script, delimiter, &mut downloads).await?;
    let merged = substitute(renamed, &kwargs.pairs);
    kwargs.record(cx);
    cx.set_output("result", Json::String(merged?));
    Ok(())
}

/// The merge when no element is a stream (`None` otherwise).
fn merge_now(spec: &Spec, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
    if let Some(done) = merge_bound(spec, cx, s) {
        return Some(done);
    }
    let delimiter = spec.delimiters.first().map(String::as_str);
    let mut downloads = Vec::new();
    let (renamed, kwargs) = match kwargs_now(cx, s, &spec.script, delimiter, &mut downloads)? {
        Ok(built) => built,
        Err(e) => return Some(Err(e)),
    };
    let merged = substitute(renamed, &kwargs.pairs);
    kwargs.record_in(s, cx.node);
    Some(merged.map(|merged| {
        s.node_mut(cx.node)
            .set_output_slot(RESULT, Val::Json(Json::String(merged)));
    }))
}

/// [`merge_now`] when every reference is bound (a compiled program) and the script is no
/// Jinja: each value is read where it is stored and copied once, into the inputs table. `None`
/// when a reference is unbound, a value is a stream or the script is Jinja.
fn merge_bound(spec: &Spec, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
    let script = &spec.script;
    let count = match script.bound_ready(s)? {
        Ok(count) => count,
        Err(e) => return Some(Err(e)),
    };
    let in_iteration = count > script.exprs().len();
    let renamed = script.renamed(in_iteration);
    if renamed.jinja {
        return None;
    }
    let delimiter = spec.delimiters.first().map(String::as_str);
    let mut merged: Option<String> = None;
    for (i, exp) in script.keys(in_iteration).iter().enumerate() {
        // Checked readable by `bound_ready`. Reads see only outputs and globals, and this
        // loop writes only the node's inputs, so the check still holds.
        let value = script.binding(i)?.peek(s).ok().flatten()?;
        let text = text_cow(&value, delimiter);
        merged = Some(match merged {
            None => renamed.replace_first_in_script(&text),
            Some(m) => renamed.replace(i, &m, &text).unwrap_or(m),
        });
        let text = text.into_owned();
        drop(value);
        s.node_mut(cx.node)
            .set_input_value_shared(exp, Json::String(text));
    }
    let merged = merged.unwrap_or_else(|| renamed.script.clone());
    s.node_mut(cx.node)
        .set_output_slot(RESULT, Val::Json(Json::String(merged)));
    Some(Ok(()))
}

/// The script rendered (when Jinja) with each safe name, a literal pattern
/// (`[A-Za-z0-9_-]`), replaced by its value verbatim.
fn substitute(renamed: &Renamed, kwargs: &[(&str, String)]) -> Result<String, RunError> {
    let (mut script, done) = match kwargs.first() {
        _ if renamed.jinja => (render(&renamed.script, kwargs)?, 0),
        Some((_, value)) => (renamed.replace_first_in_script(value), 1),
        None => (renamed.script.clone(), 0),
    };
    for (i, (_, value)) in kwargs.iter().enumerate().skip(done) {
        if let Some(replaced) = renamed.replace(i, &script, value) {
            script = replaced;
        }
    }
    Ok(script)
}

/// Jinja2 as RAGFlow's merge runs it: `from_string` outside the `try` (a template that does
/// not compile fails the node), `render` inside it (a render error keeps the script).
fn render(script: &str, kwargs: &[(&str, String)]) -> Result<String, RunError> {
    match jinja::render(script, kwargs) {
        Ok(text) => Ok(text),
        Err(RenderError::Render(_)) => Ok(script.to_string()),
        Err(RenderError::Compile(e)) => Err(RunError::raised(e.class, e.message)),
    }
}

#[cfg(test)]
mod syntax_tests {
    use serde_json::json;

    /// `result` is found by its slot, so it must sit there whatever outputs the DSL declares.
    #[test]
    fn result_is_the_first_slot_after_the_shared_outputs() {
        let dsl = json!({"components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}}, "downstream": ["StringTransform:A"]},
            "StringTransform:A": {"obj": {"component_name": "StringTransform", "params": {
                "method": "merge", "script": "{sys.query}",
                "outputs": {"extra": {"type": "string"}, "result": {"type": "string"}}}}}}});
        let names = super::super::testkit::declared_outputs(&dsl, "StringTransform:A");
        assert_eq!(names[usize::from(super::RESULT)], "result", "{names:?}");
    }

    #[test]
    fn split_matches_python_re_split() {
        let d = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // `re.split("(,|;)", "a,;b")` keeps the empty piece between adjacent delimiters.
        assert_eq!(super::split_on("a,;b", &d(&[",", ";"])), d(&["a", "", "b"]));
        assert_eq!(super::split_on("", &d(&[","])), d(&[""]));
        // `re.split("(|b)", "ab")`: an empty match may not repeat where the last one ended.
        assert_eq!(
            super::split_on("ab", &d(&["", "b"])),
            d(&["", "a", "", "", ""])
        );
    }
}
