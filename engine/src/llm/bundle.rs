//! RAGFlow's `LLMBundle` over its OpenAI-compatible `Base` model (BS §14): what components see
//! of a chat model. Calls never fail: a failed call is the text `**ERROR**: <code> - <message>`,
//! which components detect by substring, as RAGFlow's do. Every call adds its tokens to the
//! run's usage (`workflow_finished.usage`), counted the way `Base` counts them.
//!
//! With tools bound the bundle runs RAGFlow's native tool-calling loop: at most
//! `max_rounds + 1` model calls, the tool calls of one round run concurrently, then one last
//! call after `Exceed max rounds`.

use super::cancelable::Cancelable;
use super::fit::num_tokens;
use super::think::{with_think, ThinkTagger};
use super::{ChatMessage, ChatProvider, ChatRequest, Delta, LlmError, TokenUsage, ToolCall};
use crate::cancel::CancelFlag;
use crate::error::CANCELED;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::StreamExt;
use regex::Regex;
use std::sync::{Arc, LazyLock};
use tracing::Instrument;

/// `LENGTH_NOTIFICATION_EN` / `_CN`: appended when the provider stopped at its length limit.
const LENGTH_NOTIFICATION_EN: &str =
    "...\nThe answer is truncated by your chosen LLM due to its limitation on context length.";
const LENGTH_NOTIFICATION_CN: &str =
    "······\n由于大模型的上下文窗口大小限制，回答已经被大模型截断。";

/// `_length_stop(ans)`. It tests `is_chinese([ans])`: the loop over a one-item list compares
/// the whole answer with `"\u4e00" <= ch <= "\u9fff"`, so an answer that sorts between the
/// two (one starting with a CJK ideograph) counts as Chinese.
fn length_stop(ans: &str) -> &'static str {
    if ("\u{4e00}"..="\u{9fff}").contains(&ans) {
        LENGTH_NOTIFICATION_CN
    } else {
        LENGTH_NOTIFICATION_EN
    }
}

/// A CV model's notices on a truncated streamed answer.
const CV_LENGTH_NOTIFICATION_EN: &str = "...\nFor the content length reason, it stopped, continue?";
const CV_LENGTH_NOTIFICATION_CN: &str = "······\n由于长度的原因，回答被截断了，要继续吗？";

/// `is_english([piece])`: the piece, stripped, is made only of ASCII letters, digits,
/// whitespace and common punctuation.
fn is_english(piece: &str) -> bool {
    static ENGLISH: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"^[`a-zA-Z0-9\s.,':;/"?<>!()\-]+$"#).expect("valid pattern"));
    let t = py::strip(piece);
    !t.is_empty() && ENGLISH.is_match(t)
}

/// `async_chat_streamly`'s test of one streamed piece: `is_chinese(piece)`, more than a fifth
/// of its characters CJK ideographs.
fn piece_is_chinese(piece: &str) -> bool {
    let n = piece.chars().count();
    let cjk = piece
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    n > 0 && cjk as f64 / n as f64 > 0.2
}

/// What a tool call comes to when the model calls a tool none was bound for (RAGFlow has no
/// tool session then).
const UNBOUND: &str = "'NoneType' object has no attribute 'tool_call'";

/// Dispatches the tool calls a model asks for (`LLMToolPluginCallSession`).
pub trait ToolSession: Send + Sync {
    /// Run tool `name`; the error text becomes the tool message.
    fn call(&self, name: String, args: Map<String, Json>) -> BoxFuture<'_, Result<Json, String>>;
}

/// Tools bound to a model: their OpenAI schemas and who runs them.
#[derive(Clone)]
pub struct Tools {
    pub schemas: Vec<Json>,
    pub session: Arc<dyn ToolSession>,
}

/// Where a bundle adds what its calls used: the run's totals. The model layer knows the run
/// only through this (the invocation context implements it), so it stands below the run.
pub trait UsageMeter: Send + Sync {
    /// One call's tokens, as `_report_usage` adds them.
    fn add(&self, used: TokenUsage);

    /// The run's cancellation, which aborts the bundle's model and tool calls in flight
    /// (`None`: a bundle outside any run, never cancelled).
    fn cancel_flag(&self) -> Option<CancelFlag> {
        None
    }
}

/// A model handle (`LLMBundle`) for one component.
#[derive(Clone)]
pub struct Bundle {
    provider: Arc<dyn ChatProvider>,
    usage: Arc<dyn UsageMeter>,
    /// Races every tool call (the model calls race it inside `provider`).
    cancel: CancelFlag,
    pub llm_id: String,
    /// `None`: the provider's default (`LLM_MAX_RETRIES`).
    pub max_retries: Option<u32>,
    pub retry_delay: Option<f64>,
    pub max_rounds: usize,
    /// The model's context length (`max_length`; 8192 when the configuration has none).
    pub max_length: u64,
    pub tools: Option<Tools>,
    /// `sys.chat_template_kwargs`, which only the LLM body passes on.
    pub chat_template_kwargs: Option<Map<String, Json>>,
    /// The prompt's images, set only for an image-to-text model: the calls are then a CV
    /// model's (`rag/llm/cv_model.py`).
    pub images: Vec<String>,
}

/// What one call used, as `Base` leaves it in `last_usage` and returns as its total.
#[derive(Clone, Copy, Default)]
struct Spent {
    split: TokenUsage,
    total: u64,
}

impl Bundle {
    /// A handle on `llm_id` of `provider` (the configured one, if any); fails when no model
    /// answers to it.
    pub fn new(
        provider: Option<Arc<dyn ChatProvider>>,
        usage: Arc<dyn UsageMeter>,
        llm_id: &str,
    ) -> Result<Bundle, LlmError> {
        let provider = provider.ok_or_else(|| {
            LlmError::new(
                super::error::ERROR_MODEL,
                "no chat model is configured (see canvasc.toml or --llm-script)",
            )
        })?;
        let max_length = provider.context_length(llm_id)?;
        let cancel = usage.cancel_flag().unwrap_or_default();
        let provider: Arc<dyn ChatProvider> = Arc::new(Cancelable {
            inner: provider,
            cancel: cancel.clone(),
        });
        Ok(Bundle {
            provider,
            usage,
            cancel,
            llm_id: llm_id.to_string(),
            max_retries: None,
            retry_delay: None,
            max_rounds: 5,
            max_length: if max_length == 0 { 8192 } else { max_length },
            tools: None,
            chat_template_kwargs: None,
            images: Vec::new(),
        })
    }

    pub fn with_retries(mut self, max_retries: u32, retry_delay: f64) -> Self {
        self.max_retries = Some(max_retries);
        self.retry_delay = Some(retry_delay);
        self
    }

    fn request(&self, messages: Vec<ChatMessage>, gen_conf: &Map<String, Json>) -> ChatRequest {
        let mut gen_conf = gen_conf.clone();
        gen_conf.remove("max_tokens");
        ChatRequest {
            llm_id: self.llm_id.clone(),
            messages,
            tools: Vec::new(),
            gen_conf,
            // A CV model makes one attempt.
            max_retries: if self.images.is_empty() {
                self.max_retries
            } else {
                Some(0)
            },
            retry_delay: self.retry_delay,
            chat_template_kwargs: self.chat_template_kwargs.clone(),
            images: self.images.clone(),
        }
    }

    /// `_report_usage`: the split counts only when it adds up to the call's total.
    fn report(&self, spent: Spent) {
        let mut total = spent.total;
        if total == 0 {
            total = spent.split.total_tokens;
        }
        let (mut prompt, mut completion) =
            (spent.split.prompt_tokens, spent.split.completion_tokens);
        // The counts are the model's: Python's ints cannot overflow, these saturate.
        if prompt.checked_add(completion) != Some(total) {
            (prompt, completion) = (0, 0);
        }
        self.usage.add(TokenUsage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: total,
        });
    }

    /// `async_chat`: the answer text, reasoning and tool traces removed.
    pub async fn chat(
        &self,
        system: &str,
        history: Vec<ChatMessage>,
        gen_conf: &Map<String, Json>,
    ) -> String {
        // Chat models are tool-capable (`is_tools`), so RAGFlow answers through the tool loop
        // even with no tool bound: the text is not stripped and reasoning is wrapped.
        let history = with_system(system, history);
        if !self.images.is_empty() {
            return self.chat_vision(history).await;
        }
        let (txt, spent) = self.chat_with_tools(history, gen_conf).await;
        let txt = strip_tool_calls(remove_reasoning(&txt));
        self.report(spent);
        txt
    }

    /// A CV model's `async_chat`: the stripped text, no notices, no reasoning.
    async fn chat_vision(&self, history: Vec<ChatMessage>) -> String {
        match self.provider.chat(self.request(history, &Map::new())).await {
            Ok(r) => {
                let total = r.usage.map_or(0, |u| u.total_tokens);
                self.report(Spent {
                    split: TokenUsage::default(),
                    total,
                });
                py::strip(&r.content).to_string()
            }
            Err(e) => e.to_string(),
        }
    }

    /// Whether the model is also image-to-text.
    pub fn is_vision(&self) -> bool {
        self.provider.is_vision(&self.llm_id)
    }

    /// `Base._async_chat`.
    async fn chat_plain(
        &self,
        history: Vec<ChatMessage>,
        gen_conf: &Map<String, Json>,
    ) -> (String, Spent) {
        match self.provider.chat(self.request(history, gen_conf)).await {
            Ok(r) => {
                let split = r.usage.unwrap_or_default();
                if r.content.is_empty() {
                    return (String::new(), Spent { split, total: 0 });
                }
                let mut ans = py::strip(&r.content).to_string();
                if r.finish_reason.as_deref() == Some("length") {
                    ans.push_str(length_stop(&ans));
                }
                let total = r.usage.map_or(0, |u| u.total_tokens);
                (ans, Spent { split, total })
            }
            Err(e) => (e.to_string(), Spent::default()),
        }
    }

    /// `Base.async_chat_with_tools`.
    async fn chat_with_tools(
        &self,
        mut history: Vec<ChatMessage>,
        gen_conf: &Map<String, Json>,
    ) -> (String, Spent) {
        let mut ans = String::new();
        let mut agg = TokenUsage::default();
        for _ in 0..=self.max_rounds {
            let mut req = self.request(history.clone(), gen_conf);
            if let Some(tools) = &self.tools {
                req.tools = tools.schemas.clone();
            }
            let r = match self.provider.chat(req).await {
                Ok(r) => r,
                Err(e) => return (e.to_string(), spent_of(agg)),
            };
            add_usage(&mut agg, r.usage.unwrap_or_default());
            if r.tool_calls.is_empty() {
                ans.push_str(&with_think(&r));
                if r.finish_reason.as_deref() == Some("length") {
                    ans.push_str(length_stop(&ans));
                }
                return (ans, spent_of(agg));
            }
            let results = match &self.tools {
                Some(tools) => run_tools(&tools.session, &r.tool_calls, &self.cancel).await,
                None => vec![UNBOUND.to_string(); r.tool_calls.len()],
            };
            append_tool_round(&mut history, &r.tool_calls, &results);
        }
        history.push(ChatMessage::new(
            "user",
            format!("Exceed max rounds: {}", self.max_rounds),
        ));
        let (last, spent) = self.chat_plain(history, gen_conf).await;
        ans.push_str(&last);
        add_usage(&mut agg, spent.split);
        if spent.split.total_tokens == 0 {
            agg.total_tokens = agg.total_tokens.saturating_add(spent.total);
        }
        (ans, spent_of(agg))
    }

    /// `async_chat_streamly_delta`: the answer as it arrives (reasoning as `<think>…</think>`
    /// pieces); a failure is one `**ERROR**` piece. Usage is reported when the stream ends.
    pub fn chat_stream_delta(
        &self,
        system: &str,
        history: Vec<ChatMessage>,
        gen_conf: &Map<String, Json>,
    ) -> BoxStream<'static, String> {
        let history = with_system(system, history);
        let this = self.clone();
        let gen_conf = gen_conf.clone();
        Box::pin(async_stream::stream! {
            let mut total = 0u64;
            match this.tools.clone() {
                None => {
                    let vision = !this.images.is_empty();
                    let gen_conf = if vision { Map::new() } else { gen_conf };
                    let mut tagger = ThinkTagger::default();
                    let mut s = this.provider.chat_stream(this.request(history, &gen_conf));
                    // One piece held back: the notice of a truncated answer joins the piece of
                    // the chunk that said so, as RAGFlow appends it to that chunk's text.
                    let mut held: Option<String> = None;
                    while let Some(item) = s.next().await {
                        match item {
                            Ok(Delta::Usage(_)) | Ok(Delta::ToolCall(_)) => {}
                            // A CV model skips chunks without content, reasoning included.
                            Ok(Delta::Reasoning(_)) | Ok(Delta::Truncated { bare: true }) if vision => {}
                            Ok(Delta::Truncated { .. }) if vision => {
                                let piece = held.take().unwrap_or_default();
                                let notice = if is_english(&piece) {
                                    CV_LENGTH_NOTIFICATION_EN
                                } else {
                                    CV_LENGTH_NOTIFICATION_CN
                                };
                                yield piece + notice;
                            }
                            Ok(Delta::Truncated { bare }) => {
                                let piece = if bare { String::new() } else { held.take().unwrap_or_default() };
                                if let Some(h) = held.take() {
                                    yield h;
                                }
                                let notice = if piece_is_chinese(&piece) {
                                    LENGTH_NOTIFICATION_CN
                                } else {
                                    LENGTH_NOTIFICATION_EN
                                };
                                yield piece + notice;
                            }
                            Ok(d) => {
                                if let Delta::Content(c) = &d {
                                    total += num_tokens(Some(c)) as u64;
                                }
                                if let Some(t) = tagger.text(&d) {
                                    if let Some(h) = held.replace(strip_tool_calls(t)) {
                                        yield h;
                                    }
                                }
                            }
                            Err(e) => {
                                if let Some(h) = held.take() {
                                    yield h;
                                }
                                yield e.to_string();
                                break;
                            }
                        }
                    }
                    if let Some(h) = held.take() {
                        yield h;
                    }
                    this.report(Spent { split: TokenUsage::default(), total });
                }
                Some(tools) => {
                    let mut agg = TokenUsage::default();
                    let mut history = history;
                    let mut done = false;
                    let mut failed = false;
                    for _ in 0..=this.max_rounds {
                        let mut req = this.request(history.clone(), &gen_conf);
                        req.tools = tools.schemas.clone();
                        let mut s = this.provider.chat_stream(req);
                        let mut calls: Vec<ToolCall> = Vec::new();
                        let mut answer = String::new();
                        let mut estimate = 0u64;
                        let mut usage: Option<TokenUsage> = None;
                        let mut tagger = ThinkTagger::default();
                        while let Some(item) = s.next().await {
                            match item {
                                Ok(Delta::ToolCall(c)) => calls.push(c),
                                Ok(Delta::Usage(u)) => usage = Some(u).filter(|u| u.total_tokens > 0),
                                Ok(Delta::Truncated { .. }) => yield length_stop("").to_string(),
                                Ok(d) => {
                                    if let Delta::Content(c) = &d {
                                        answer.push_str(c);
                                        estimate += num_tokens(Some(c)) as u64;
                                    }
                                    if let Some(t) = tagger.text(&d) {
                                        yield strip_tool_calls(t);
                                    }
                                }
                                Err(e) => {
                                    yield e.to_string();
                                    failed = true;
                                    break;
                                }
                            }
                        }
                        if failed {
                            break;
                        }
                        commit_round(&mut agg, usage, estimate);
                        if !answer.is_empty() && calls.is_empty() {
                            done = true;
                            break;
                        }
                        for c in &calls {
                            yield format!("<think>Running the {} tool...</think>", c.name);
                        }
                        let results = run_tools(&tools.session, &calls, &this.cancel).await;
                        append_tool_round(&mut history, &calls, &results);
                        // The `<tool_call>` traces, emptied by the bundle.
                        for _ in &calls {
                            yield String::new();
                        }
                    }
                    if !done && !failed {
                        history.push(ChatMessage::new(
                            "user",
                            format!("Exceed max rounds: {}", this.max_rounds),
                        ));
                        let mut req = this.request(history, &gen_conf);
                        req.tools = tools.schemas.clone();
                        let mut s = this.provider.chat_stream(req);
                        let mut estimate = 0u64;
                        let mut usage: Option<TokenUsage> = None;
                        while let Some(item) = s.next().await {
                            match item {
                                Ok(Delta::Content(c)) => {
                                    estimate += num_tokens(Some(&c)) as u64;
                                    yield strip_tool_calls(c);
                                }
                                Ok(Delta::Usage(u)) => usage = Some(u).filter(|u| u.total_tokens > 0),
                                Ok(_) => {}
                                Err(e) => {
                                    yield e.to_string();
                                    break;
                                }
                            }
                        }
                        commit_round(&mut agg, usage, estimate);
                    }
                    this.report(Spent { split: agg, total: agg.total_tokens });
                }
            }
        })
    }
}

fn spent_of(agg: TokenUsage) -> Spent {
    Spent {
        split: agg,
        total: agg.total_tokens,
    }
}

/// Adds a model's reported usage; counts from the network saturate instead of wrapping.
fn add_usage(agg: &mut TokenUsage, u: TokenUsage) {
    agg.prompt_tokens = agg.prompt_tokens.saturating_add(u.prompt_tokens);
    agg.completion_tokens = agg.completion_tokens.saturating_add(u.completion_tokens);
    agg.total_tokens = agg.total_tokens.saturating_add(if u.total_tokens > 0 {
        u.total_tokens
    } else {
        u.prompt_tokens.saturating_add(u.completion_tokens)
    });
}

/// `_commit_round`: the provider's usage when it sent one, else the content token estimate.
fn commit_round(agg: &mut TokenUsage, usage: Option<TokenUsage>, estimate: u64) {
    match usage {
        Some(u) => add_usage(agg, u),
        None => agg.total_tokens = agg.total_tokens.saturating_add(estimate),
    }
}

/// The system message goes first when there is one and the history has none (and is not
/// empty: `Base` only inserts into a non-empty history).
fn with_system(system: &str, mut history: Vec<ChatMessage>) -> Vec<ChatMessage> {
    if !system.is_empty() && history.first().is_some_and(|m| m.role != "system") {
        history.insert(0, ChatMessage::new("system", system));
    }
    history
}

/// `_remove_reasoning_content`: everything up to the last `</think>` goes when a `<think>`
/// comes before it.
fn remove_reasoning(txt: &str) -> &str {
    let (Some(open), Some(close)) = (txt.find("<think>"), txt.rfind("</think>")) else {
        return txt;
    };
    if close < open {
        return txt;
    }
    &txt[close + "</think>".len()..]
}

/// `re.sub(r"<tool_call>.*?</tool_call>", "", txt, flags=re.DOTALL)`.
fn strip_tool_calls(txt: impl Into<String>) -> String {
    static TOOL_CALL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)<tool_call>.*?</tool_call>").unwrap_or_else(|e| panic!("{e}"))
    });
    let txt = txt.into();
    if !txt.contains("<tool_call>") {
        return txt;
    }
    TOOL_CALL.replace_all(&txt, "").into_owned()
}

/// Run one round's tool calls concurrently; each result is the tool message's content.
/// A call the run's cancellation interrupts answers with RAGFlow's cancellation text.
async fn run_tools(
    session: &Arc<dyn ToolSession>,
    calls: &[ToolCall],
    cancel: &CancelFlag,
) -> Vec<String> {
    let runs = calls.iter().map(|c| async move {
        let args = match super::json_repair::loads(&c.arguments) {
            Json::Object(m) => m,
            other => {
                return format!(
                    "Tool arguments for {} must be a JSON object, got {}",
                    c.name,
                    py::type_name(&other)
                )
            }
        };
        let span = tracing::info_span!(
            target: "canvasc",
            "canvasc.tool",
            otel.name = tracing::field::Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %c.name,
            gen_ai.tool.call.id = %c.id,
            canvasc.tool.outcome = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("execute_tool {}", c.name).as_str());
        }
        let call = cancel.or_cancel(session.call(c.name.clone(), args));
        let (outcome, text) = match call.instrument(span.clone()).await {
            Some(Ok(Json::Object(m))) => ("ok", py::json_dumps(&Json::Object(m))),
            Some(Ok(other)) => ("ok", py::str_of(&other)),
            Some(Err(e)) => ("error", e),
            None => ("canceled", CANCELED.to_string()),
        };
        span.record("canvasc.tool.outcome", outcome);
        if outcome == "error" {
            span.record("otel.status_code", "ERROR");
        }
        text
    });
    futures::future::join_all(runs).await
}

/// `_append_history_batch`: one assistant message with every call, one tool message each.
fn append_tool_round(history: &mut Vec<ChatMessage>, calls: &[ToolCall], results: &[String]) {
    history.push(ChatMessage {
        role: "assistant".into(),
        content: None,
        tool_calls: calls.to_vec(),
        tool_call_id: None,
    });
    for (c, r) in calls.iter().zip(results) {
        history.push(ChatMessage {
            role: "tool".into(),
            content: Some(r.clone()),
            tool_calls: Vec::new(),
            tool_call_id: Some(c.id.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_and_tool_traces_are_removed_as_the_bundle_does() {
        assert_eq!(remove_reasoning("<think>a</think>b</think>c"), "c");
        assert_eq!(remove_reasoning("x</think>y<think>"), "x</think>y<think>");
        assert_eq!(remove_reasoning("plain"), "plain");
        assert_eq!(
            strip_tool_calls("a<tool_call>{\n}</tool_call>b<tool_call>x</tool_call>"),
            "ab"
        );
    }

    #[test]
    fn truncation_notices_follow_ragflows_language_tests() {
        // `is_chinese([ans])`: the whole answer compared with the ideograph range.
        assert_eq!(length_stop(""), LENGTH_NOTIFICATION_EN);
        assert_eq!(length_stop("Hello 你好"), LENGTH_NOTIFICATION_EN);
        assert_eq!(length_stop("你好, hello world"), LENGTH_NOTIFICATION_CN);
        // `is_chinese(piece)`: more than a fifth of the characters.
        assert!(piece_is_chinese("ab你"));
        assert!(!piece_is_chinese("abcde你"));
        assert!(!piece_is_chinese(""));
    }
}
