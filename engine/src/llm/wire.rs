//! The OpenAI chat-completions wire format, kept apart from the client's retry and transport
//! logic: the request body (with RAGFlow's `gen_conf` cleaning), lenient response types that
//! accept what real OpenAI-compatible servers send (missing or extra fields, `null`s, choices
//! without a delta), and the assembly of streamed chunks into [`Delta`]s.

use super::config::Endpoint;
use super::{ChatMessage, ChatRequest, ChatResponse, Delta, TokenUsage, ToolCall};
use canvasc_value::{Json, Map};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

/// `gen_conf` keys RAGFlow's `Base` forwards (`ALLOWED_GEN_CONF_KEYS`); `max_tokens` is
/// dropped too (`_clean_conf`), since it is the model's context length there.
const ALLOWED_GEN_CONF_KEYS: &[&str] = &[
    "temperature",
    "max_completion_tokens",
    "top_p",
    "stop",
    "n",
    "presence_penalty",
    "frequency_penalty",
    "functions",
    "function_call",
    "logit_bias",
    "user",
    "response_format",
    "seed",
    "tool_choice",
    "logprobs",
    "top_logprobs",
];

/// The JSON body and extra headers of one request.
pub(crate) fn request_body(
    endpoint: &Endpoint,
    request: &ChatRequest,
    stream: bool,
    stream_usage: bool,
) -> (Json, Vec<(String, String)>) {
    let mut body = Map::new();
    body.insert("model".into(), Json::String(endpoint.model.clone()));
    if !request.images.is_empty() {
        // A CV model's request (`_form_history`): the images join the first user message;
        // no generation settings, no tools.
        let mut images = Some(&request.images);
        let messages = request.messages.iter().map(|m| {
            let mut j = message_json(m);
            if m.role == "user" {
                if let Some(imgs) = images.take() {
                    j["content"] = image_prompt(m.content.as_deref().unwrap_or(""), imgs);
                }
            }
            j
        });
        body.insert("messages".into(), Json::Array(messages.collect()));
        if stream {
            body.insert("stream".into(), Json::Bool(true));
        }
        return (Json::Object(body), Vec::new());
    }
    body.insert(
        "messages".into(),
        Json::Array(request.messages.iter().map(message_json).collect()),
    );
    let mut headers = Vec::new();
    for (k, v) in &request.gen_conf {
        if ALLOWED_GEN_CONF_KEYS.contains(&k.as_str()) {
            body.insert(k.clone(), v.clone());
        } else if k == "extra_headers" {
            if let Json::Object(h) = v {
                headers.extend(
                    h.iter()
                        .filter_map(|(n, v)| v.as_str().map(|v| (n.clone(), v.to_string()))),
                );
            }
        }
    }
    // RAGFlow's model-family policy for the `Base` backend: Qwen3 thinks only when told to,
    // and `thinking` never survives `_clean_conf`, so it is off except where the API insists.
    let lower = endpoint.model.to_lowercase();
    if lower.contains("qwen3") {
        let on = lower.contains("-preview") || lower.contains("2.4t-a95b");
        body.insert("enable_thinking".into(), Json::Bool(on));
    }
    if let Some(kwargs) = &request.chat_template_kwargs {
        body.insert("chat_template_kwargs".into(), Json::Object(kwargs.clone()));
    }
    if stream {
        body.insert("stream".into(), Json::Bool(true));
        if stream_usage {
            body.insert(
                "stream_options".into(),
                serde_json::json!({ "include_usage": true }),
            );
        }
    }
    if !request.tools.is_empty() {
        body.insert("tools".into(), Json::Array(request.tools.clone()));
        body.entry("tool_choice")
            .or_insert_with(|| Json::String("auto".into()));
    }
    (Json::Object(body), headers)
}

/// `_image_prompt`: the text, then each image as an `image_url` part.
fn image_prompt(text: &str, images: &[String]) -> Json {
    let mut parts = vec![serde_json::json!({"type": "text", "text": text})];
    parts.extend(
        images
            .iter()
            .map(|url| serde_json::json!({"type": "image_url", "image_url": {"url": url}})),
    );
    Json::Array(parts)
}

fn message_json(m: &ChatMessage) -> Json {
    let mut o = Map::new();
    o.insert("role".into(), Json::String(m.role.clone()));
    o.insert(
        "content".into(),
        m.content.clone().map(Json::String).unwrap_or(Json::Null),
    );
    if !m.tool_calls.is_empty() {
        let calls = m
            .tool_calls
            .iter()
            .map(|c| {
                serde_json::json!({
                    "id": c.id,
                    "type": "function",
                    "function": { "name": c.name, "arguments": c.arguments },
                })
            })
            .collect();
        o.insert("tool_calls".into(), Json::Array(calls));
    }
    if let Some(id) = &m.tool_call_id {
        o.insert("tool_call_id".into(), Json::String(id.clone()));
    }
    Json::Object(o)
}

// ---- lenient response types ----------------------------------------------------------

/// `null` reads as the default.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A completion or one streamed chunk.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(crate) struct Chunk {
    #[serde(deserialize_with = "nullable")]
    pub choices: Vec<Choice>,
    pub usage: Option<Json>,
    /// Some servers report failures inside a 200 answer or an SSE event.
    pub error: Option<Json>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(crate) struct Choice {
    #[serde(deserialize_with = "nullable")]
    pub delta: WireMessage,
    #[serde(deserialize_with = "nullable")]
    pub message: WireMessage,
    pub finish_reason: Option<String>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(crate) struct WireMessage {
    /// A string, `null`, or a list of content parts.
    pub content: Option<Json>,
    pub reasoning_content: Option<String>,
    /// The field name some servers (vLLM, OpenRouter) use instead.
    pub reasoning: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub tool_calls: Vec<WireToolCall>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(crate) struct WireToolCall {
    pub index: Option<u64>,
    pub id: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub function: WireFunction,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub(crate) struct WireFunction {
    pub name: Option<String>,
    /// A JSON text (OpenAI) or, from some servers, a JSON value.
    pub arguments: Option<Json>,
}

impl WireMessage {
    fn text(&self) -> Option<String> {
        match self.content.as_ref()? {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            Json::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(|p| match p {
                        Json::String(s) => Some(s.as_str()),
                        p => p.get("text").and_then(Json::as_str),
                    })
                    .collect(),
            ),
            other => Some(other.to_string()),
        }
    }

    fn reasoning_text(&self) -> Option<&str> {
        self.reasoning_content
            .as_deref()
            .filter(|r| !r.is_empty())
            .or(self.reasoning.as_deref().filter(|r| !r.is_empty()))
    }
}

fn arguments_text(a: &Option<Json>) -> String {
    match a {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(v) => canvasc_value::py::json_dumps(v),
    }
}

pub(crate) fn usage_of(u: &Json) -> Option<TokenUsage> {
    let n = |k: &str| u.get(k).and_then(Json::as_u64);
    let (p, c, t) = (
        n("prompt_tokens"),
        n("completion_tokens"),
        n("total_tokens"),
    );
    if p.is_none() && c.is_none() && t.is_none() {
        return None;
    }
    let (p, c) = (p.unwrap_or(0), c.unwrap_or(0));
    Some(TokenUsage {
        prompt_tokens: p,
        completion_tokens: c,
        // Counts come from the network: Python's ints cannot overflow, ours saturate.
        total_tokens: t.unwrap_or(p.saturating_add(c)),
    })
}

/// A non-streamed completion as a [`ChatResponse`]. No choices is an empty answer, as in
/// RAGFlow's `_async_chat`.
pub(crate) fn response_of(chunk: Chunk) -> ChatResponse {
    let usage = chunk.usage.as_ref().and_then(usage_of);
    let Some(choice) = chunk.choices.into_iter().next() else {
        return ChatResponse {
            usage,
            ..ChatResponse::default()
        };
    };
    let m = &choice.message;
    ChatResponse {
        content: m.text().unwrap_or_default(),
        reasoning: m.reasoning_text().map(str::to_string),
        tool_calls: m
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.clone().unwrap_or_else(|| format!("call_{i}")),
                name: c.function.name.clone().unwrap_or_default(),
                arguments: arguments_text(&c.function.arguments),
            })
            .collect(),
        finish_reason: choice.finish_reason,
        usage,
    }
}

/// The deltas of a whole answer, for a server that ignored `stream: true`.
pub(crate) fn deltas_of(r: ChatResponse) -> Vec<Delta> {
    let mut out: Vec<Delta> = r.tool_calls.into_iter().map(Delta::ToolCall).collect();
    out.extend(r.reasoning.map(Delta::Reasoning));
    if !r.content.is_empty() {
        out.push(Delta::Content(r.content));
    }
    out.extend(r.usage.map(Delta::Usage));
    out
}

// ---- stream assembly ------------------------------------------------------------------

#[derive(Default)]
struct Partial {
    id: String,
    name: String,
    arguments: String,
}

/// Turns streamed chunks into deltas. Tool-call fragments are gathered by `index` and each
/// call is yielded whole once the model moves on (to reasoning or content, a finish reason,
/// or the end of the stream); usage is yielded last.
#[derive(Default)]
pub(crate) struct Assembler {
    pending: BTreeMap<u64, Partial>,
    last_index: Option<u64>,
    usage: Option<TokenUsage>,
    /// A finish reason was seen: the answer is complete even if `[DONE]` never comes.
    pub finished: bool,
}

impl Assembler {
    pub fn push(&mut self, chunk: Chunk, out: &mut Vec<Delta>) {
        if let Some(u) = chunk.usage.as_ref().and_then(usage_of) {
            self.usage = Some(u);
        }
        for choice in chunk.choices {
            let d = &choice.delta;
            for tc in &d.tool_calls {
                self.fragment(tc);
            }
            let reasoning = d.reasoning_text();
            let content = d.text().filter(|c| !c.is_empty());
            if reasoning.is_some() || content.is_some() {
                self.flush_calls(out);
            }
            if let Some(r) = reasoning {
                out.push(Delta::Reasoning(r.to_string()));
            }
            let bare = content.is_none();
            if let Some(c) = content {
                out.push(Delta::Content(c));
            }
            if choice.finish_reason.as_deref() == Some("length") {
                out.push(Delta::Truncated { bare });
            }
            if choice.finish_reason.is_some() {
                self.finished = true;
                self.flush_calls(out);
            }
        }
    }

    fn fragment(&mut self, tc: &WireToolCall) {
        let id = tc.id.as_deref().filter(|i| !i.is_empty());
        let index = match (tc.index, self.last_index) {
            (Some(i), _) => i,
            // No index: a new id starts a new call, anything else continues the last one.
            (None, Some(last))
                if id.is_none()
                    || self
                        .pending
                        .get(&last)
                        .is_some_and(|p| Some(p.id.as_str()) == id) =>
            {
                last
            }
            // The model chose the indices: past `u64::MAX` the fragment joins the last call.
            (None, _) => self
                .pending
                .keys()
                .next_back()
                .map_or(0, |k| k.saturating_add(1)),
        };
        self.last_index = Some(index);
        let p = self.pending.entry(index).or_default();
        if let Some(id) = id {
            if p.id.is_empty() {
                p.id = id.to_string();
            }
        }
        if let Some(name) = tc.function.name.as_deref() {
            if p.name.is_empty() {
                p.name = name.to_string();
            }
        }
        p.arguments
            .push_str(&arguments_text(&tc.function.arguments));
    }

    fn flush_calls(&mut self, out: &mut Vec<Delta>) {
        for (i, p) in std::mem::take(&mut self.pending) {
            out.push(Delta::ToolCall(ToolCall {
                id: if p.id.is_empty() {
                    format!("call_{i}")
                } else {
                    p.id
                },
                name: p.name,
                arguments: p.arguments,
            }));
        }
        self.last_index = None;
    }

    /// The end of a complete stream: remaining tool calls, then usage.
    pub fn finish(&mut self, out: &mut Vec<Delta>) {
        self.flush_calls(out);
        out.extend(self.usage.take().map(Delta::Usage));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::LlmConfig;
    use serde_json::json;

    fn chunk(v: Json) -> Chunk {
        serde_json::from_value(v).expect("lenient")
    }

    #[test]
    fn tolerates_nulls_missing_and_extra_fields() {
        let c = chunk(json!({"id": "x", "choices": null, "usage": null, "extra": [1]}));
        assert!(c.choices.is_empty());
        let c = chunk(json!({"choices": [{"index": 0}, {"delta": null, "finish_reason": null}]}));
        assert_eq!(c.choices.len(), 2);
        let r = response_of(chunk(json!({"choices": [{"message": {"content": null,
            "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"q": 1}}}]},
            "finish_reason": "tool_calls"}]})));
        assert_eq!(r.content, "");
        assert_eq!(r.tool_calls[0].arguments, r#"{"q": 1}"#);
        let r = response_of(chunk(
            json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, "b"], "reasoning": "r"}}],
            "usage": {"prompt_tokens": 2, "completion_tokens": 3}}),
        ));
        assert_eq!(
            (r.content.as_str(), r.reasoning.as_deref()),
            ("ab", Some("r"))
        );
        assert_eq!(r.usage.map(|u| u.total_tokens), Some(5));
        assert_eq!(response_of(chunk(json!({}))), ChatResponse::default());
    }

    #[test]
    fn assembles_tool_calls_by_index_and_yields_them_before_text() {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        for c in [
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "f", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "g", "arguments": "{\"b\""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\": 1}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}}]}),
            json!({"choices": [{"delta": {"content": "", "reasoning_content": "hm"}}]}),
            json!({"choices": [{"delta": {"content": "ok"}, "finish_reason": "stop"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
        ] {
            a.push(chunk(c), &mut out);
        }
        a.finish(&mut out);
        let call = |id: &str, name: &str, args: &str| {
            Delta::ToolCall(ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: args.into(),
            })
        };
        assert_eq!(
            out,
            vec![
                call("c0", "f", r#"{"a": 1}"#),
                call("c1", "g", r#"{"b": 2}"#),
                Delta::Reasoning("hm".into()),
                Delta::Content("ok".into()),
                Delta::Usage(TokenUsage {
                    prompt_tokens: 1,
                    completion_tokens: 1,
                    total_tokens: 2
                }),
            ]
        );
        assert!(a.finished);
    }

    #[test]
    fn chat_template_kwargs_travel_in_the_body() {
        let ep = LlmConfig::single("http://h:1", None)
            .resolve("m")
            .expect("ok");
        let kwargs = json!({"enable_thinking": false});
        let req = ChatRequest {
            chat_template_kwargs: kwargs.as_object().cloned(),
            ..ChatRequest::default()
        };
        let (body, _) = request_body(&ep, &req, false, false);
        assert_eq!(body["chat_template_kwargs"], kwargs);
        let (body, _) = request_body(&ep, &ChatRequest::default(), false, false);
        assert!(body.get("chat_template_kwargs").is_none());
    }

    #[test]
    fn images_join_the_first_user_message_of_a_cv_request() {
        let ep = LlmConfig::single("http://h:1", None)
            .resolve("m")
            .expect("ok");
        let mut gen_conf = Map::new();
        gen_conf.insert("temperature".into(), json!(0.1));
        let req = ChatRequest {
            messages: vec![
                ChatMessage::new("system", "s"),
                ChatMessage::new("user", "what is this?"),
                ChatMessage::new("user", "again"),
            ],
            gen_conf,
            images: vec!["data:image/png;base64,AA".into()],
            ..ChatRequest::default()
        };
        let (body, _) = request_body(&ep, &req, true, true);
        assert_eq!(
            body,
            json!({"model": "m", "messages": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]},
                {"role": "user", "content": "again"}],
                "stream": true})
        );
    }

    #[test]
    fn a_length_stop_follows_its_chunks_content() {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        for c in [
            json!({"choices": [{"delta": {"content": "cut"}, "finish_reason": "length"}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "length"}]}),
        ] {
            a.push(chunk(c), &mut out);
        }
        assert_eq!(
            out,
            vec![
                Delta::Content("cut".into()),
                Delta::Truncated { bare: false },
                Delta::Truncated { bare: true },
            ]
        );
    }

    #[test]
    fn builds_ragflow_request_bodies() {
        let ep = LlmConfig::single("http://h:1", None)
            .resolve("qwen3-8b@VLLM")
            .expect("ok");
        let mut req = ChatRequest {
            messages: vec![ChatMessage::new("user", "hi")],
            tools: vec![json!({"type": "function", "function": {"name": "f"}})],
            ..ChatRequest::default()
        };
        for (k, v) in [
            ("temperature", json!(0.1)),
            ("max_tokens", json!(512)),
            ("model_type", json!("chat")),
            ("response_format", json!({"type": "json_object"})),
            ("extra_headers", json!({"X-A": "1"})),
        ] {
            req.gen_conf.insert(k.into(), v);
        }
        let (body, headers) = request_body(&ep, &req, true, true);
        assert_eq!(
            body,
            json!({"model": "qwen3-8b", "messages": [{"role": "user", "content": "hi"}],
                "temperature": 0.1, "response_format": {"type": "json_object"},
                "enable_thinking": false, "stream": true, "stream_options": {"include_usage": true},
                "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "auto"})
        );
        assert_eq!(headers, vec![("X-A".to_string(), "1".to_string())]);
    }
}
