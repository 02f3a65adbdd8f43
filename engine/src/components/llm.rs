//! LLM (components.md §4): prompt preparation from the canvas, then one model call — blocking,
//! structured (JSON parsed leniently), or a lazy stream into a downstream Message. Agent and
//! Categorize build on the same [`Llm`] parameters and preparation.

use super::Component;
use crate::context::{NodeCx, Shared};
use crate::error::RunError;
use crate::interpolate::{elements_of, in_iteration, string_format, Template};
use crate::llm::bundle::Bundle;
use crate::llm::fit::message_fit_in;
use crate::llm::think_split::think_pieces;
use crate::llm::{json_repair, ChatMessage};
use crate::state::InputKeys;
use crate::val::{LazyStream, TextStream, Val};
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::catalog::Kind;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::Target;
use canvasc_value::{py, Json, Map};
use futures::stream::BoxStream;
use futures::StreamExt;
use regex::Regex;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

/// The LLM parameters every model-driven component shares (`LLMParam`).
#[derive(Clone, Debug)]
pub struct Llm {
    pub llm_id: String,
    pub sys_prompt: String,
    /// `(role, content)` templates appended after the history.
    pub prompts: Vec<(String, String)>,
    /// The references of `sys_prompt` then of every prompt (`get_input_elements()`).
    pub elements: Template,
    /// `gen_conf()`: only the settings whose `*Enabled` toggle is on.
    pub gen_conf: Map<String, Json>,
    pub cite: bool,
    pub visual_files_var: Option<String>,
    pub history_window: i64,
    pub max_retries: u32,
    pub delay_after_error: f64,
}

/// A prepared prompt (`_prepare_prompt_variables`).
pub struct Prepared {
    pub sys_prompt: String,
    pub msg: Vec<ChatMessage>,
    /// The user-defined tagged sections, lower-case tag → text.
    pub user_defined: Vec<(String, String)>,
    /// `self.imgs`: the `data:image/` URLs of `visual_files_var`, the arguments and `sys.files`,
    /// each once, for an image-to-text model.
    pub images: Vec<String>,
}

/// Python `float(v)` of a numeric parameter (0 when it is not a number).
pub fn float_param(p: &Map<String, Json>, key: &str) -> f64 {
    match p.get(key) {
        Some(Json::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Json::String(s)) => py::parse_float(s).unwrap_or(0.0),
        Some(Json::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

fn enabled(p: &Map<String, Json>, key: &str) -> bool {
    p.get(key).is_some_and(py::truthy)
}

/// `LLMParam.gen_conf()`.
pub fn gen_conf(p: &Map<String, Json>) -> Map<String, Json> {
    let mut conf = Map::new();
    let f = |k: &str| float_param(p, k);
    let num = |v: f64| serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number);
    if f("max_tokens") as i64 > 0 && enabled(p, "maxTokensEnabled") {
        conf.insert("max_tokens".into(), Json::from(f("max_tokens") as i64));
    }
    if f("temperature") >= 0.0 && enabled(p, "temperatureEnabled") {
        conf.insert("temperature".into(), num(f("temperature")));
    }
    for (key, toggle) in [
        ("top_p", "topPEnabled"),
        ("presence_penalty", "presencePenaltyEnabled"),
        ("frequency_penalty", "frequencyPenaltyEnabled"),
    ] {
        if f(key) > 0.0 && enabled(p, toggle) {
            conf.insert(key.into(), num(f(key)));
        }
    }
    if let Some(t) = p
        .get("thinking")
        .filter(|t| py::truthy(t) && *t != "default")
    {
        conf.insert("thinking".into(), t.clone());
    }
    conf
}

impl Llm {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let text = |v: Option<&Json>| match v {
            Some(Json::String(s)) => s.clone(),
            Some(Json::Null) | None => String::new(),
            Some(other) => py::str_of(other),
        };
        let prompts: Vec<(String, String)> = match p.get("prompts") {
            Some(Json::String(s)) => vec![("user".into(), s.clone())],
            Some(Json::Array(items)) => items
                .iter()
                .map(|it| (text(it.get("role")), text(it.get("content"))))
                .collect(),
            _ => vec![("user".into(), "{sys.query}".into())],
        };
        let sys_prompt = text(p.get("sys_prompt"));
        let int = |k: &str, d: i64| p.get(k).and_then(Json::as_i64).unwrap_or(d);
        Llm {
            llm_id: text(p.get("llm_id")),
            elements: elements_of_texts(&sys_prompt, &prompts),
            sys_prompt,
            prompts,
            gen_conf: gen_conf(p),
            cite: p.get("cite").is_none_or(py::truthy),
            visual_files_var: p
                .get("visual_files_var")
                .and_then(Json::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            history_window: int("message_history_window_size", 13),
            max_retries: u32::try_from(int("max_retries", 0)).unwrap_or(0),
            delay_after_error: p
                .get("delay_after_error")
                .and_then(Json::as_f64)
                .unwrap_or(2.0),
        }
    }

    /// The same parameters with `prompts` replaced (an Agent called as a tool).
    pub fn with_prompts(&self, prompts: Vec<(String, String)>) -> Llm {
        Llm {
            elements: elements_of_texts(&self.sys_prompt, &prompts),
            prompts,
            ..self.clone()
        }
    }

    /// A model handle for this component, with its retry settings.
    pub fn bundle(&self, cx: &NodeCx<'_>) -> Result<Bundle, RunError> {
        model(cx, &self.llm_id).map(|b| b.with_retries(self.max_retries, self.delay_after_error))
    }

    /// `thoughts()`: runs the preparation and shows the last prompt message.
    pub fn thoughts(&self, cx: &NodeCx<'_>) -> Result<String, RunError> {
        static NOISE: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"User's query:|\\+").unwrap_or_else(|e| panic!("{e}")));
        let prep = self.prepare(cx, true)?;
        let last = prep
            .msg
            .last()
            .and_then(|m| m.content.as_deref())
            .ok_or_else(|| RunError::raised("IndexError", "list index out of range"))?;
        Ok(format!(
            "⌛Give me a moment—starting from: \n\n{}\n\nI’ll figure out our best next move.",
            NOISE.replace_all(last, "")
        ))
    }

    /// `_prepare_prompt_variables`. `record` stores each argument as the node's input value
    /// (a sub-agent keeps its inputs to itself).
    pub fn prepare(&self, cx: &NodeCx<'_>, record: bool) -> Result<Prepared, RunError> {
        let mut images = Vec::new();
        if let Some(var) = &self.visual_files_var {
            if let Val::Json(v) = cx.value(var)? {
                extract_data_images(&v, &mut images);
            }
        }
        let mut args: Vec<(String, Json)> = Vec::new();
        for e in elements_of(cx, &self.elements)? {
            let raw = match &e.value {
                Val::Json(j) => j.clone(),
                Val::Stream(_) => Json::String("<stream>".into()),
            };
            extract_data_images(&raw, &mut images);
            let arg = match remove_data_images(&raw) {
                None | Some(Json::Null) => String::new(),
                Some(Json::String(s)) => s,
                Some(other) => py::json_dumps(&other),
            };
            if record {
                cx.set_input_value(e.exp, Json::String(arg.clone()));
            }
            match args.iter_mut().find(|(k, _)| k == e.exp) {
                Some(slot) => slot.1 = Json::String(arg),
                None => args.push((e.exp.to_string(), Json::String(arg))),
            }
        }
        let (file_texts, file_images) = self.sys_files(cx);
        images.extend(file_images);
        let mut seen = std::collections::HashSet::new();
        images.retain(|i| seen.insert(i.clone()));
        let (history, mut msg) = {
            let s = cx.state();
            let mut h = s.get_history(self.history_window);
            h.pop();
            (h.len(), h)
        };
        for (role, content) in &self.prompts {
            let formatted = (role.clone(), string_format(content, &args));
            let len = msg.len();
            match msg.last_mut() {
                Some(last) if len == history && last.0 == formatted.0 => *last = formatted,
                _ => msg.push(formatted),
            }
        }
        let mut msg: Vec<ChatMessage> = msg
            .into_iter()
            .map(|(role, content)| ChatMessage::new(&role, content))
            .collect();
        if !file_texts.is_empty() {
            let joined = file_texts.join("\n\n");
            match msg.iter_mut().rev().find(|m| m.role == "user") {
                Some(m) => {
                    let c = m.content.get_or_insert_with(String::new);
                    c.push_str("\n\n");
                    c.push_str(&joined);
                }
                None => msg.push(ChatMessage::new("user", joined)),
            }
        }
        let (user_defined, mut sys_prompt) =
            extract_prompts(&string_format(&self.sys_prompt, &args));
        if self.cite && cx.state().has_chunks() {
            let guidelines = user_defined
                .iter()
                .find(|(k, _)| k == "citation_guidelines")
                .map(|(_, v)| v.as_str());
            sys_prompt.push_str(&cx.shared.services.prompts.citation_prompt(guidelines));
        }
        Ok(Prepared {
            sys_prompt,
            msg,
            user_defined,
            images,
        })
    }

    /// `_collect_sys_files`: the text attachments and the images, unless a prompt places
    /// `{sys.files}` itself.
    fn sys_files(&self, cx: &NodeCx<'_>) -> (Vec<String>, Vec<String>) {
        let explicit = self.sys_prompt.contains("{sys.files}")
            || self.prompts.iter().any(|(_, c)| c.contains("{sys.files}"));
        if explicit {
            return (Vec::new(), Vec::new());
        }
        let s = cx.state();
        let Some(Json::Array(files)) = s.globals.get("sys.files") else {
            return (Vec::new(), Vec::new());
        };
        files
            .iter()
            .filter_map(Json::as_str)
            .map(str::to_string)
            .partition(|f| !f.starts_with("data:image/"))
    }

    /// The references as dependencies of the node.
    pub fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.elements.dependencies(cx)
    }

    pub fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        InputKeys::Keys(Cow::Borrowed(self.elements.keys(in_iteration(cx))))
    }

    pub fn bind(&mut self, r: &dyn Resolve) {
        self.elements.bind(r);
    }
}

/// A model handle for the node, or an error naming the node and its `llm_id`.
pub fn model(cx: &NodeCx<'_>, llm_id: &str) -> Result<Bundle, RunError> {
    let provider = cx.shared.services.llm.clone();
    Bundle::new(provider, Arc::clone(cx.shared) as _, llm_id).map_err(|e| {
        RunError::msg(format!(
            "{}: no model for llm_id `{llm_id}`: {}",
            cx.meta().id,
            e.message
        ))
    })
}

fn elements_of_texts(sys_prompt: &str, prompts: &[(String, String)]) -> Template {
    let mut all = sys_prompt.to_string();
    for (_, c) in prompts {
        all.push('\n');
        all.push_str(c);
    }
    Template::new(all)
}

/// `_extract_prompts`: the first `<TAG>…</TAG>` of each known tag is kept aside and every such
/// section is removed from the system prompt.
fn extract_prompts(sys_prompt: &str) -> (Vec<(String, String)>, String) {
    const TAGS: [&str; 6] = [
        "TASK_ANALYSIS",
        "PLAN_GENERATION",
        "REFLECTION",
        "CONTEXT_SUMMARY",
        "CONTEXT_RANKING",
        "CITATION_GUIDELINES",
    ];
    static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        TAGS.iter()
            .map(|t| {
                Regex::new(&format!("(?is)<{t}>(.*?)</{t}>")).unwrap_or_else(|e| panic!("{e}"))
            })
            .collect()
    });
    let mut out = Vec::new();
    let mut sys = sys_prompt.to_string();
    for (tag, re) in TAGS.iter().zip(PATTERNS.iter()) {
        let Some(c) = re.captures(&sys) else {
            continue;
        };
        out.push((tag.to_lowercase(), c[1].to_string()));
        sys = re.replace_all(&sys, "").into_owned();
    }
    (out, sys)
}

/// `_remove_data_images`: data-image strings vanish, containers drop them and what becomes
/// empty; `None` when the value itself vanishes.
fn remove_data_images(v: &Json) -> Option<Json> {
    let empty = |v: &Json| match v {
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        _ => false,
    };
    match v {
        Json::Null => None,
        Json::String(s) => (!py::strip(s).starts_with("data:image/")).then(|| v.clone()),
        Json::Array(items) => Some(Json::Array(
            items
                .iter()
                .filter_map(remove_data_images)
                .filter(|x| !x.is_null() && !empty(x))
                .collect(),
        )),
        Json::Object(m) => {
            let typed = m
                .get("type")
                .and_then(Json::as_str)
                .is_some_and(|t| matches!(t, "image_url" | "input_image" | "image"));
            if typed && !data_images(v).is_empty() {
                return None;
            }
            Some(Json::Object(
                m.iter()
                    .filter_map(|(k, x)| remove_data_images(x).map(|x| (k.clone(), x)))
                    .filter(|(_, x)| !empty(x))
                    .collect(),
            ))
        }
        other => Some(other.clone()),
    }
}

/// `_extract_data_images`: every `data:image/` string in the value (stripped), in order; a
/// dict with `content` is searched there only.
fn extract_data_images(v: &Json, out: &mut Vec<String>) {
    match v {
        Json::String(s) => {
            let s = py::strip(s);
            if s.starts_with("data:image/") {
                out.push(s.to_string());
            }
        }
        Json::Array(items) => items.iter().for_each(|i| extract_data_images(i, out)),
        Json::Object(m) => match m.get("content") {
            Some(c) => extract_data_images(c, out),
            None => m.values().for_each(|i| extract_data_images(i, out)),
        },
        _ => {}
    }
}

fn data_images(v: &Json) -> Vec<String> {
    let mut out = Vec::new();
    extract_data_images(v, &mut out);
    out
}

/// `get_exception_default_value()` when truthy.
pub fn comment_default(cx: &NodeCx<'_>) -> Option<Json> {
    let ex = &cx.meta().exception;
    (ex.method.as_deref() == Some("comment") && py::truthy(&ex.default_value))
        .then(|| ex.default_value.clone())
}

/// Whether the component streams: a direct downstream is a Message and no exception route is
/// configured.
pub fn streams_to_message(cx: &NodeCx<'_>) -> Result<bool, RunError> {
    let meta = cx.meta();
    let mut any = false;
    for d in &meta.downstream {
        match d {
            Target::Node(n) => any |= cx.shared.meta.node(*n).kind == Kind::Message,
            Target::Missing(_) => {
                return Err(RunError::raised(
                    "AttributeError",
                    "'NoneType' object has no attribute 'component_name'",
                ))
            }
        }
    }
    let goto = meta.exception.method.is_some() && !meta.exception.goto.is_empty();
    Ok(any && !goto)
}

/// `LLM.fit_messages`: system prompt plus messages fitted to 97% of the context, then checked.
pub fn fit_messages(
    system: &str,
    msg: &[ChatMessage],
    max_length: u64,
) -> Result<Vec<ChatMessage>, String> {
    let mut all = Vec::with_capacity(msg.len() + 1);
    all.push(ChatMessage::new("system", system));
    all.extend_from_slice(msg);
    let budget = (max_length as f64 * 0.97) as i64;
    let (_, fitted) = message_fit_in(&all, budget)?;
    if fitted.len() < 2 {
        return Err("**ERROR**: message_fit_in produced insufficient messages for LLM".into());
    }
    let last = &fitted[fitted.len() - 1];
    if last.role != "user" || py::strip(last.content.as_deref().unwrap_or("")).is_empty() {
        return Err("**ERROR**: LLM user message is empty after prompt fitting; check model max_tokens context setting".into());
    }
    Ok(fitted)
}

/// Split fitted messages into the system text and the rest, as `chat_mdl.async_chat(msg[0]
/// ["content"], msg[1:], …)` does.
pub fn split_system(mut fitted: Vec<ChatMessage>) -> (String, Vec<ChatMessage>) {
    let first = fitted.remove(0);
    (first.content.unwrap_or_default(), fitted)
}

/// `clean_formated_answer`: drop everything to the last `</think>` and to the last "```json",
/// and a closing fence.
pub fn clean_formatted_answer(ans: &str) -> String {
    static FENCE_END: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"```\n*$").unwrap_or_else(|e| panic!("{e}")));
    let ans = ans
        .rfind("</think>")
        .map_or(ans, |i| &ans[i + "</think>".len()..]);
    let ans = ans
        .rfind("```json")
        .map_or(ans, |i| &ans[i + "```json".len()..]);
    FENCE_END.replace(ans, "").into_owned()
}

/// Where a run of an Agent (or LLM) body reports: a canvas node, or a sub-agent called as a
/// tool (its inputs, outputs and cancellation flag are its own).
pub struct Role {
    pub node: bool,
    /// `get_exception_default_value()` when truthy.
    pub default: Option<Json>,
    pub streams: bool,
}

/// What a body run produced.
pub enum Outcome {
    Content(Json),
    Structured(Json),
    Error(String),
    Stream(LazyStream),
    Canceled,
}

impl Role {
    pub fn canceled(&self, cx: &NodeCx<'_>) -> bool {
        if self.node {
            cx.check_canceled()
        } else {
            cx.shared.is_canceled()
        }
    }

    /// The comment default, or the error.
    pub fn fail(&self, error: String) -> Outcome {
        match &self.default {
            Some(d) => Outcome::Content(d.clone()),
            None => Outcome::Error(error),
        }
    }
}

/// `_get_chat_template_kwargs`: `sys.chat_template_kwargs` when it is an object, or a string
/// that reads as one; anything else is ignored.
fn chat_template_kwargs(cx: &NodeCx<'_>) -> Option<Map<String, Json>> {
    let value = cx
        .state()
        .globals
        .get("sys.chat_template_kwargs")
        .cloned()?;
    match value {
        Json::Object(m) => Some(m),
        Json::String(s) => match json_repair::loads(&s) {
            Json::Object(m) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

/// The LLM body (an Agent without tools), reporting to `role`.
pub async fn llm_run(
    llm: &Llm,
    cx: &NodeCx<'_>,
    role: &Role,
    mut bundle: Bundle,
    structured: Option<Json>,
) -> Result<Outcome, RunError> {
    bundle.chat_template_kwargs = chat_template_kwargs(cx);
    let prep = llm.prepare(cx, role.node)?;
    // With images RAGFlow calls the model as image-to-text when it is one; canvasc sends a
    // chat-only model the text alone.
    if !prep.images.is_empty() && bundle.is_vision() {
        bundle.images = prep.images.clone();
    }
    let structured = structured.filter(|s| {
        s.get("properties")
            .and_then(Json::as_object)
            .is_some_and(|p| !p.is_empty())
    });
    if let Some(schema) = structured {
        let sys = prep.sys_prompt.clone()
            + &cx
                .shared
                .services
                .prompts
                .structured_output_prompt(&py::json_dumps_indent(&schema, 2, false));
        let mut error = String::new();
        for _ in 0..=llm.max_retries {
            if role.canceled(cx) {
                return Ok(Outcome::Canceled);
            }
            let fitted = match fit_messages(&sys, &prep.msg, bundle.max_length) {
                Ok(f) => f,
                Err(e) => return Ok(Outcome::Error(e)),
            };
            let (system, history) = split_system(fitted);
            let ans = bundle.chat(&system, history, &llm.gen_conf).await;
            if ans.contains("**ERROR**") {
                error = ans;
                continue;
            }
            return Ok(Outcome::Structured(json_repair::loads(
                &clean_formatted_answer(&ans),
            )));
        }
        return Ok(if error.is_empty() {
            Outcome::Canceled
        } else {
            Outcome::Error(error)
        });
    }
    if role.streams {
        let stream = llm_stream(
            Arc::clone(cx.shared),
            cx.node,
            bundle,
            llm.gen_conf.clone(),
            prep,
        );
        return Ok(Outcome::Stream(stream));
    }
    let mut error = String::new();
    for _ in 0..=llm.max_retries {
        if role.canceled(cx) {
            return Ok(Outcome::Canceled);
        }
        let fitted = match fit_messages(&prep.sys_prompt, &prep.msg, bundle.max_length) {
            Ok(f) => f,
            Err(e) => {
                error = e;
                break;
            }
        };
        error.clear();
        let (system, history) = split_system(fitted);
        let ans = bundle.chat(&system, history, &llm.gen_conf).await;
        if ans.contains("**ERROR**") {
            error = ans;
            continue;
        }
        return Ok(Outcome::Content(Json::String(ans)));
    }
    Ok(role.fail(error))
}

/// Run the LLM body for a canvas node (the LLM component and a tool-less Agent).
pub async fn invoke_llm(llm: &Llm, cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let role = node_role(cx)?;
    let structured = structured_record(cx);
    let bundle = llm.bundle(cx)?;
    let outcome = llm_run(llm, cx, &role, bundle, structured).await?;
    apply(cx, outcome);
    Ok(())
}

pub fn node_role(cx: &NodeCx<'_>) -> Result<Role, RunError> {
    Ok(Role {
        node: true,
        default: comment_default(cx),
        streams: streams_to_message(cx)?,
    })
}

/// The node's `outputs.structured` record (its value included, as RAGFlow dumps it).
pub fn structured_record(cx: &NodeCx<'_>) -> Option<Json> {
    cx.state()
        .node(cx.node)
        .record("structured")
        .map(|r| Json::Object(r.to_map()))
}

pub fn apply(cx: &NodeCx<'_>, outcome: Outcome) {
    match outcome {
        Outcome::Content(v) => cx.set_output("content", v),
        Outcome::Structured(v) => cx.set_output("structured", v),
        Outcome::Error(e) => cx.set_output("_ERROR", Json::String(e)),
        Outcome::Stream(s) => cx.set_output("content", Val::Stream(s)),
        Outcome::Canceled => {}
    }
}

/// `_stream_output_async` as a lazy stream: the model is called when a Message reads it.
pub(super) fn llm_stream(
    shared: Arc<Shared>,
    node: NodeId,
    bundle: Bundle,
    gen_conf: Map<String, Json>,
    prep: Prepared,
) -> LazyStream {
    let prep = Arc::new(prep);
    LazyStream::new(move || {
        let (shared, bundle, gen_conf, prep) = (
            Arc::clone(&shared),
            bundle.clone(),
            gen_conf.clone(),
            Arc::clone(&prep),
        );
        Box::pin(async_stream::stream! {
            let cx = NodeCx::new(node, &shared);
            let fitted = match fit_messages(&prep.sys_prompt, &prep.msg, bundle.max_length) {
                Ok(f) => f,
                Err(e) => {
                    if let Some(shown) = fail(&cx, e, false) {
                        yield Ok(shown);
                    }
                    return;
                }
            };
            let (system, history) = split_system(fitted);
            let deltas = bundle.chat_stream_delta(&system, history, &gen_conf);
            let mut answer = answer_stream(Arc::clone(&shared), node, deltas, false);
            while let Some(piece) = answer.next().await {
                yield piece;
            }
        })
    })
}

/// A streamed body's failure: the comment default becomes the content and is shown; otherwise
/// `_ERROR` is set, and an Agent (`show`) also makes the error its content and shows it.
pub(super) fn fail(cx: &NodeCx<'_>, error: String, show: bool) -> Option<String> {
    match comment_default(cx) {
        Some(d) => {
            cx.set_output("content", d.clone());
            Some(py::str_of(&d))
        }
        None => {
            cx.set_output("_ERROR", Json::String(error.clone()));
            if !show {
                return None;
            }
            cx.set_output("content", Json::String(error.clone()));
            Some(error)
        }
    }
}

/// The answer part of the LLM stream (an Agent with tools has its own, `agent.rs`): the
/// model's deltas split at think tags, stopped by cancellation or an `**ERROR**` piece
/// ([`fail`]), and the text yielded (markers included) becoming `content` at the end.
pub(super) fn answer_stream(
    shared: Arc<Shared>,
    node: NodeId,
    deltas: BoxStream<'static, String>,
    show_errors: bool,
) -> TextStream {
    Box::pin(async_stream::stream! {
        let cx = NodeCx::new(node, &shared);
        let mut pieces = think_pieces(deltas);
        let mut answer = String::new();
        while let Some(piece) = pieces.next().await {
            if cx.check_canceled() {
                return;
            }
            if piece.contains("**ERROR**") {
                if let Some(shown) = fail(&cx, piece, show_errors) {
                    yield Ok(shown);
                }
                return;
            }
            answer.push_str(&piece);
            yield Ok(piece);
        }
        cx.set_output("content", Json::String(answer));
    })
}

/// The LLM component.
#[derive(Clone, Debug)]
pub struct Spec {
    pub llm: Llm,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        Spec {
            llm: Llm::from_params(p),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        invoke_llm(&self.llm, cx).await
    }

    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        self.llm.thoughts(cx).map(Cow::Owned)
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.llm.dependencies(cx)
    }

    fn get_input(&self, _cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        Ok(Map::new())
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        self.llm.input_keys(cx)
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.llm.bind(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gen_conf_sends_only_enabled_settings() {
        let p = json!({"temperature": 0.1, "temperatureEnabled": true, "top_p": 0.3,
            "topPEnabled": false, "max_tokens": 256, "maxTokensEnabled": true,
            "frequency_penalty": "0.7", "frequencyPenaltyEnabled": 1, "thinking": "default"});
        let conf = gen_conf(p.as_object().expect("object"));
        assert_eq!(
            Json::Object(conf),
            json!({"max_tokens": 256, "temperature": 0.1, "frequency_penalty": 0.7})
        );
    }

    #[test]
    fn tagged_sections_are_taken_out_of_the_system_prompt() {
        let (tags, sys) = extract_prompts(
            "a<citation_guidelines>cite\nwell</CITATION_GUIDELINES>b<REFLECTION>x</REFLECTION>",
        );
        assert_eq!(sys, "ab");
        assert_eq!(
            tags,
            vec![
                ("reflection".to_string(), "x".to_string()),
                ("citation_guidelines".to_string(), "cite\nwell".to_string())
            ]
        );
    }

    #[test]
    fn data_images_are_removed_from_arguments() {
        let v = json!({"a": "data:image/png;base64,xx", "b": ["x", " data:image/gif;x"],
            "c": {"type": "image_url", "url": "data:image/png;y"}, "d": [], "e": null});
        assert_eq!(remove_data_images(&v), Some(json!({"b": ["x"]})));
    }

    #[test]
    fn formatted_answers_are_cleaned_before_parsing() {
        assert_eq!(
            clean_formatted_answer("<think>x</think>Here:\n```json\n{\"a\": 1}\n```\n\n"),
            "\n{\"a\": 1}\n"
        );
    }
}
