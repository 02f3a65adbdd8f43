//! Message: the reply shown to the user (components.md §3). Streams by default: the scheduler
//! consumes the content lazily and forwards an upstream LLM's tokens chunk by chunk.

use super::Component;
use crate::context::{NodeCx, Shared};
use crate::error::RunError;
use crate::interpolate::{
    elements_in, elements_of, expand_replacement, in_iteration, Renamed, Template,
};
use crate::jinja::{self, RenderError};
use crate::state::InputKeys;
use crate::state::RunState;
use crate::val::{LazyStream, Val};
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::Target;
use canvasc_value::{py, Json, Map};
use futures::StreamExt;
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Spec {
    /// The alternatives; one is picked at random per invocation.
    pub content: Vec<Alternative>,
    pub stream: bool,
    /// The references of all alternatives together (`get_input_elements()`).
    pub elements: Template,
}

/// One alternative of `content`, scanned for each way it can be rendered.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// Rendered at once (Jinja, or streaming off): RAGFlow's case-insensitive grammar.
    pub rendered: Template,
    /// Streamed: the case-sensitive grammar Message streaming uses.
    pub streamed: Arc<Template>,
    pub jinja: bool,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let content: Vec<String> = match p.get("content") {
            Some(Json::Array(items)) => items.iter().map(as_text).collect(),
            Some(Json::String(s)) => s.chars().map(|c| c.to_string()).collect(),
            _ => Vec::new(),
        };
        Spec {
            elements: Template::new(content.concat()),
            content: content
                .into_iter()
                .map(|text| Alternative {
                    jinja: jinja::is_jinja(&text),
                    rendered: Template::new(text.clone()),
                    streamed: Arc::new(Template::exact_case(text)),
                })
                .collect(),
            stream: p.get("stream").is_none_or(|v| v != &Json::Bool(false)),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx).await
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.elements.dependencies(cx)
    }

    /// Text-driven components' elements are expressions, never params: `{}`.
    fn get_input(&self, _cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        Ok(Map::new())
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        InputKeys::Keys(Cow::Borrowed(self.elements.keys(in_iteration(cx))))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.elements.bind(r);
        for alt in &mut self.content {
            alt.rendered.bind(r);
            Arc::make_mut(&mut alt.streamed).bind(r);
        }
    }
}

fn as_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => py::str_of(other),
    }
}

async fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    if spec.content.is_empty() {
        return Err(RunError::msg("Cannot choose from an empty sequence"));
    }
    let chosen = &spec.content[cx.shared.random_below(spec.content.len())];
    if spec.stream && !chosen.jinja {
        let stream = stream_of(Arc::clone(cx.shared), cx.node, Arc::clone(&chosen.streamed));
        cx.set_output("content", Val::Stream(stream));
        return Ok(());
    }
    let mut downloads = Vec::new();
    let (renamed, kwargs) = kwargs_of(cx, &chosen.rendered, None, &mut downloads).await?;
    let content = substitute(cx, renamed, &kwargs.pairs);
    kwargs.record(cx);
    let Some(content) = content? else {
        return Ok(());
    };
    cx.set_output("downloads", Json::Array(downloads));
    cx.set_output("content", Json::String(content));
    Ok(())
}

/// The content with every safe name substituted (`None` when the run was canceled meanwhile).
fn substitute(
    cx: &NodeCx<'_>,
    renamed: &Renamed,
    kwargs: &[(&str, String)],
) -> Result<Option<String>, RunError> {
    let script = renamed.script.as_str();
    // RAGFlow calls `from_string` outside its `try` (a template that does not compile fails
    // the component) and keeps the un-rendered text when `render` raises.
    let mut content = match jinja::render(script, kwargs) {
        Ok(text) => text,
        Err(RenderError::Render(_)) => script.to_string(),
        Err(RenderError::Compile(e)) => return Err(RunError::raised(e.class, e.message)),
    };
    if cx.check_canceled() {
        return Ok(None);
    }
    for (name, value) in kwargs {
        content = sub_name(&content, name, value)?;
    }
    Ok(Some(content))
}

/// `re.sub(name, value, content)`: the safe name is a literal pattern, the value a replacement
/// template (backslashes in values are interpreted).
fn sub_name(content: &str, name: &str, value: &str) -> Result<String, RunError> {
    if !content.contains(name) {
        return Ok(content.to_string());
    }
    let rep = expand_replacement(value, name)?;
    Ok(content.replace(name, &rep))
}

/// `Message.get_kwargs`: every element rendered to a string and recorded as an input value;
/// the script with each `{exp}` replaced by its safe name (`@`, `:`, `.` → `_`), and the safe
/// names with their values.
pub async fn kwargs_of<'t>(
    cx: &NodeCx<'_>,
    template: &'t Template,
    delimiter: Option<&str>,
    downloads: &mut Vec<Json>,
) -> Result<(&'t Renamed, Kwargs<'t>), RunError> {
    let elements = elements_of(cx, template)?;
    let (renamed, mut kwargs) = Kwargs::new(template, elements.len());
    for (e, name) in elements.into_iter().zip(&renamed.names) {
        let ans = match e.value {
            Val::Stream(s) => match s.collect().await {
                Ok(text) => text,
                Err(err) => {
                    kwargs.record(cx);
                    return Err(err);
                }
            },
            Val::Json(v) => text_of(v, delimiter, downloads),
        };
        kwargs.pairs.push((name.as_str(), ans));
    }
    Ok((renamed, kwargs))
}

/// [`kwargs_of`] in a state the caller has locked, when no element is a stream (`None`
/// otherwise: collecting one means waiting).
pub fn kwargs_now<'t>(
    cx: &NodeCx<'_>,
    s: &RunState,
    template: &'t Template,
    delimiter: Option<&str>,
    downloads: &mut Vec<Json>,
) -> Option<Result<(&'t Renamed, Kwargs<'t>), RunError>> {
    let elements = match elements_in(s, &cx.shared.meta, cx.node, template) {
        Ok(elements) => elements,
        Err(e) => return Some(Err(e)),
    };
    if elements.iter().any(|e| e.value.is_stream()) {
        return None;
    }
    let (renamed, mut kwargs) = Kwargs::new(template, elements.len());
    for (e, name) in elements.into_iter().zip(&renamed.names) {
        if let Val::Json(v) = e.value {
            kwargs
                .pairs
                .push((name.as_str(), text_of(v, delimiter, downloads)));
        }
    }
    Some(Ok((renamed, kwargs)))
}

/// An element's text as `get_kwargs` makes it.
fn text_of(v: Json, delimiter: Option<&str>, downloads: &mut Vec<Json>) -> String {
    match v {
        Json::Null => String::new(),
        // What `stringify` returns for such a text, without copying it.
        Json::String(s) if !opens_container(&s) => s,
        v => stringify(&v, delimiter, Some(downloads)),
    }
}

/// [`text_of`] borrowing the value's text where it can; any download info is dropped (the
/// merge does not report downloads).
pub fn text_cow<'v>(v: &'v Json, delimiter: Option<&str>) -> Cow<'v, str> {
    match v {
        Json::Null => Cow::Borrowed(""),
        Json::String(s) if !opens_container(s) => Cow::Borrowed(s),
        v => Cow::Owned(stringify(v, delimiter, None)),
    }
}

/// The keyword arguments `get_kwargs` builds: per element its safe name and its text.
pub struct Kwargs<'t> {
    pub pairs: Vec<(&'t str, String)>,
    /// Per element, the expression it records its text under.
    exps: &'t [Arc<str>],
}

impl<'t> Kwargs<'t> {
    /// No arguments yet, for `count` elements of `template`, and the script renamed for them.
    fn new(template: &'t Template, count: usize) -> (&'t Renamed, Self) {
        let in_iteration = count > template.exprs().len();
        let kwargs = Kwargs {
            pairs: Vec::with_capacity(count),
            exps: template.keys(in_iteration),
        };
        (template.renamed(in_iteration), kwargs)
    }

    /// `set_input_value(exp, text)` for every element, as `get_kwargs` does while it builds
    /// them: callers record once they are done with the texts, so nothing is copied.
    pub fn record(self, cx: &NodeCx<'_>) {
        self.record_in(&mut cx.state(), cx.node);
    }

    /// [`Kwargs::record`] in a state the caller has locked.
    pub fn record_in(self, s: &mut RunState, node: NodeId) {
        let node = s.node_mut(node);
        for (exp, (_, text)) in self.exps.iter().zip(self.pairs) {
            node.set_input_value_shared(exp, Json::String(text));
        }
    }
}

/// Whether a JSON text would parse to an object or an array (JSON whitespace first).
fn opens_container(s: &str) -> bool {
    matches!(
        s.trim_start_matches([' ', '\t', '\n', '\r'])
            .as_bytes()
            .first(),
        Some(b'{' | b'[')
    )
}

fn is_download_info(v: &Json) -> bool {
    v.as_object().is_some_and(|m| {
        ["doc_id", "filename", "mime_type"]
            .iter()
            .all(|k| m.contains_key(*k))
    })
}

fn normalize_download(v: &Json) -> Json {
    match v {
        Json::Array(a) => Json::Array(a.iter().map(normalize_download).collect()),
        Json::Object(m) => {
            let mut m = m.clone();
            m.shift_remove("include_download_info_in_content");
            Json::Object(m)
        }
        other => other.clone(),
    }
}

/// The message stringifier (components.md §3 step 5).
pub fn stringify(
    value: &Json,
    delimiter: Option<&str>,
    downloads: Option<&mut Vec<Json>>,
) -> String {
    let parsed;
    let candidate = match value {
        // Only a dict or a list can carry download info: other JSON texts need no parse.
        Json::String(s) if !opens_container(s) => None,
        Json::String(s) => match serde_json::from_str::<Json>(s) {
            Ok(p) => {
                parsed = p;
                Some(&parsed)
            }
            Err(_) => None,
        },
        other => Some(other),
    };
    let extracted: Vec<Json> = match candidate {
        Some(v) if is_download_info(v) => vec![v.clone()],
        Some(Json::Array(items)) if !items.is_empty() && items.iter().all(is_download_info) => {
            items.clone()
        }
        _ => Vec::new(),
    };
    if !extracted.is_empty() {
        if let Some(d) = downloads {
            d.extend(extracted.iter().map(normalize_download));
        }
        let include = extracted.iter().any(|x| {
            x.get("include_download_info_in_content")
                .is_some_and(py::truthy)
        });
        if include {
            return match candidate {
                Some(v) => py::json_dumps(&normalize_download(v)),
                None => match value {
                    Json::String(s) => s.clone(),
                    _ => String::new(),
                },
            };
        }
        return String::new();
    }
    match value {
        Json::Null => String::new(),
        Json::Array(items) if delimiter.is_some_and(|d| !d.is_empty()) => items
            .iter()
            .map(py::str_of)
            .collect::<Vec<_>>()
            .join(delimiter.unwrap_or_default()),
        Json::String(s) => s.clone(),
        other => py::json_dumps(other),
    }
}

/// The lazy content of a streaming Message (`Message._stream`).
fn stream_of(shared: Arc<Shared>, node: NodeId, template: Arc<Template>) -> LazyStream {
    LazyStream::new(move || {
        let shared = Arc::clone(&shared);
        let template = Arc::clone(&template);
        Box::pin(async_stream::stream! {
            let cx = NodeCx::new(node, &shared);
            let text = template.text();
            let mut all = String::new();
            // Each expression's text once it was read (a repeated reference is not re-read).
            let mut cache: Vec<Option<String>> = vec![None; template.exprs().len()];
            let mut downloads = Vec::new();
            let mut last = 0;
            let mut stopped = false;
            for (span, i) in template.matches() {
                if cx.check_canceled() {
                    stopped = true;
                    break;
                }
                let literal = text[last..span.start].to_string();
                all.push_str(&literal);
                yield Ok(literal);
                last = span.end;
                if let Some(cached) = &cache[*i] {
                    all.push_str(cached);
                    yield Ok(cached.clone());
                    continue;
                }
                let value = match template.read(&cx, *i) {
                    Ok(v) => v,
                    Err(e) => {
                        yield Err(e);
                        stopped = true;
                        break;
                    }
                };
                match value {
                    Val::Stream(s) => {
                        let mut inner = s.open();
                        let mut streamed = String::new();
                        while let Some(t) = inner.next().await {
                            let t = match t {
                                Ok(t) => t,
                                Err(e) => {
                                    yield Err(e);
                                    stopped = true;
                                    break;
                                }
                            };
                            if cx.check_canceled() {
                                stopped = true;
                                break;
                            }
                            all.push_str(&t);
                            streamed.push_str(&t);
                            yield Ok(t);
                        }
                        if stopped {
                            break;
                        }
                        cx.set_input_value_shared(&template.keys(false)[*i], Json::String(streamed));
                    }
                    Val::Json(v) => {
                        let value_text = if v.is_null() { String::new() } else { stringify(&v, None, Some(&mut downloads)) };
                        yield Ok(value_text.clone());
                        cx.set_input_value_shared(&template.keys(false)[*i], Json::String(value_text.clone()));
                        all.push_str(&value_text);
                        cache[*i] = Some(value_text);
                    }
                }
            }
            if !stopped && last < text.len() {
                if cx.check_canceled() {
                    stopped = true;
                } else {
                    let tail = text[last..].to_string();
                    all.push_str(&tail);
                    yield Ok(tail);
                }
            }
            if !stopped {
                cx.set_output("downloads", Json::Array(downloads));
                cx.set_output("content", Json::String(all));
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_container_texts_are_parsed_for_downloads() {
        assert!(opens_container(" \n\t{\"a\": 1}"));
        assert!(opens_container("[1]"));
        assert!(!opens_container("42"));
        assert!(!opens_container("\u{a0}[1]"), "not JSON whitespace");
        let info = json!({"doc_id": "d", "filename": "f.txt", "mime_type": "text/plain"});
        let mut downloads = Vec::new();
        let text = format!("\r\n {info}");
        assert_eq!(stringify(&json!(text), None, Some(&mut downloads)), "");
        assert_eq!(downloads, [info]);
        let mut none = Vec::new();
        assert_eq!(stringify(&json!("42"), None, Some(&mut none)), "42");
        assert!(none.is_empty());
    }
}
