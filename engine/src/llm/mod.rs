//! The seam between components and chat models: one request/response model that the
//! OpenAI-compatible client, the scripted provider and the scripted HTTP server all speak.

pub mod bundle;
pub mod cancelable;
pub mod config;
pub mod error;
pub mod fit;
pub mod json_repair;
pub mod kb_prompt;
pub mod openai;
pub mod prompts;
pub mod script;
pub mod think;
pub mod think_split;
mod wire;

pub use error::LlmError;

use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use futures::stream::BoxStream;

/// One chat message in OpenAI's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatMessage {
    pub role: String,
    /// Text, or `None` for an assistant message that only calls tools.
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        ChatMessage {
            role: role.to_string(),
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A function call the model asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them (a JSON text, possibly malformed).
    pub arguments: String,
}

/// A chat completion request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    /// The `llm_id` of the component (`model`, `model@Factory`, or empty for the default).
    pub llm_id: String,
    pub messages: Vec<ChatMessage>,
    /// OpenAI tool schemas offered to the model.
    pub tools: Vec<Json>,
    /// Generation settings (`temperature`, `top_p`, `response_format`, …) as RAGFlow passes them.
    pub gen_conf: Map<String, Json>,
    /// Retries after a failed attempt (the component's `max_retries`); `None`: the provider's
    /// default (RAGFlow's `LLM_MAX_RETRIES`, 5).
    pub max_retries: Option<u32>,
    /// Base delay in seconds before a retry (the component's `delay_after_error`); `None`: the
    /// provider's default.
    pub retry_delay: Option<f64>,
    /// `sys.chat_template_kwargs` (the run's, for LLM components): sent as the request field
    /// vLLM and SGLang read (`enable_thinking`, …).
    pub chat_template_kwargs: Option<Map<String, Json>>,
    /// `data:image/…` URLs for an image-to-text model: they join the first user message, and
    /// the request is a CV model's (no generation settings, no tools, no retries).
    pub images: Vec<String>,
}

impl ChatRequest {
    /// The text a scripted response matches against: every message content joined with `\n`,
    /// then `\n` and the offered tool names joined with spaces.
    pub fn match_text(&self) -> String {
        let mut text = self
            .messages
            .iter()
            .map(|m| m.content.clone().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        if !self.tools.is_empty() {
            let names: Vec<&str> = self
                .tools
                .iter()
                .filter_map(|t| t.pointer("/function/name").and_then(Json::as_str))
                .collect();
            text.push('\n');
            text.push_str(&names.join(" "));
        }
        text
    }
}

/// Token usage of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

/// A complete answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatResponse {
    pub content: String,
    /// Provider-side reasoning (`reasoning_content`), when sent separately.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<TokenUsage>,
}

/// One piece of a streamed answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    Reasoning(String),
    Content(String),
    /// A complete tool call (streamed fragments are assembled by the client).
    ToolCall(ToolCall),
    Usage(TokenUsage),
    /// The provider stopped at its output limit (`finish_reason == "length"`), after the
    /// content of the chunk that said so; `true` when that chunk carried no content.
    Truncated {
        bare: bool,
    },
}

/// A chat model.
pub trait ChatProvider: Send + Sync {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>>;
    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>>;

    /// The context length of the model `llm_id` names (RAGFlow's `max_length`), or why no
    /// model answers to it.
    fn context_length(&self, llm_id: &str) -> Result<u64, LlmError>;

    /// Whether `llm_id` is also an image-to-text model, so a prompt's images are sent.
    fn is_vision(&self, _llm_id: &str) -> bool {
        false
    }
}
