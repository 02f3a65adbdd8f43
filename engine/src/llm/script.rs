//! The scripted chat model (`scripted-llm.md`): deterministic answers from a JSON script, used
//! by `--llm-script`, by tests, and by the scripted OpenAI-compatible test server.

use super::{
    error, ChatProvider, ChatRequest, ChatResponse, Delta, LlmError, TokenUsage, ToolCall,
};
use canvasc_value::Json;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use regex::Regex;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

/// How a streamed answer is cut into deltas.
#[derive(Clone, Debug, PartialEq)]
pub enum Chunking {
    Whole,
    Words,
    Chars(usize),
}

/// One scripted response.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Substrings that must all occur in the request text.
    pub matches: Vec<String>,
    pub content: Option<String>,
    pub reasoning: Option<String>,
    /// `(name, arguments as JSON text)`.
    pub tool_calls: Vec<(String, String)>,
    pub chunks: Option<Vec<String>>,
    pub delay_ms: u64,
    pub error: Option<String>,
    /// HTTP status the scripted server answers with (ignored in process).
    pub status: Option<u16>,
    /// Remaining uses; `None` is unlimited.
    pub times: Option<u64>,
}

/// A parsed script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// `"echo"` or a literal answer.
    pub default: String,
    pub chunking: Chunking,
    pub usage: bool,
    /// The context length reported for every model (`max_tokens`, default 8192).
    pub max_tokens: u64,
    pub entries: Vec<Entry>,
}

/// Why a script was refused, and where: the JSON pointer of the offending key or value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub pointer: String,
    pub message: String,
}

impl ScriptError {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        ScriptError {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for ScriptError {}

impl From<ScriptError> for String {
    fn from(e: ScriptError) -> String {
        e.to_string()
    }
}

/// The keys of a script, of a response and of a tool call (`scripted-llm.md`).
const SCRIPT_KEYS: &[&str] = &["default", "chunking", "usage", "max_tokens", "responses"];
const RESPONSE_KEYS: &[&str] = &[
    "match",
    "content",
    "reasoning",
    "tool_calls",
    "chunks",
    "delay_ms",
    "error",
    "status",
    "times",
];
const TOOL_CALL_KEYS: &[&str] = &["name", "arguments"];

/// Refuse the first key of `obj` not in `known`, naming the keys `what` has.
fn known_keys(
    obj: &serde_json::Map<String, Json>,
    known: &[&str],
    what: &str,
) -> Result<(), ScriptError> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(ScriptError::at(
            format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            format!("unknown key `{k}`: {what} has only {}", known.join(", ")),
        )),
    }
}

/// What answered one call, with everything needed to produce it.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Index of the entry that answered, or `None` for the default.
    pub entry: Option<usize>,
    pub content: Option<String>,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub chunks: Vec<String>,
    pub delay_ms: u64,
    pub error: Option<String>,
    pub status: Option<u16>,
    pub usage: Option<TokenUsage>,
}

/// A recorded call.
#[derive(Clone, Debug)]
pub struct Call {
    pub request: ChatRequest,
    pub answer: Answer,
}

impl Script {
    /// Parse a script; a bare list is `{"responses": list}`. Unknown keys are refused: a
    /// misspelt `match` would otherwise answer every call.
    pub fn parse(v: &Json) -> Result<Script, ScriptError> {
        let obj = match v {
            Json::Array(list) => {
                return Self::parse(&serde_json::json!({ "responses": list })).map_err(|mut e| {
                    e.pointer = e.pointer.replacen("/responses", "", 1);
                    e
                })
            }
            Json::Object(obj) => obj,
            _ => {
                return Err(ScriptError::at(
                    "",
                    "an LLM script is a JSON object or a list of responses",
                ))
            }
        };
        known_keys(obj, SCRIPT_KEYS, "a script")?;
        let default = match obj.get("default") {
            None => "echo".to_string(),
            Some(Json::String(s)) => s.clone(),
            Some(_) => return Err(ScriptError::at("/default", "`default` must be a string")),
        };
        let chunking =
            parse_chunking(obj.get("chunking")).map_err(|m| ScriptError::at("/chunking", m))?;
        let usage = obj.get("usage").and_then(Json::as_bool).unwrap_or(false);
        let max_tokens = match obj.get("max_tokens") {
            None => 8192,
            Some(v) => v.as_u64().ok_or_else(|| {
                ScriptError::at("/max_tokens", "`max_tokens` must be a non-negative integer")
            })?,
        };
        let mut entries = Vec::new();
        if let Some(list) = obj.get("responses") {
            let Json::Array(list) = list else {
                return Err(ScriptError::at("/responses", "`responses` must be a list"));
            };
            for (i, e) in list.iter().enumerate() {
                entries.push(parse_entry(e).map_err(|mut err| {
                    err.pointer = format!("/responses/{i}{}", err.pointer);
                    err
                })?);
            }
        }
        Ok(Script {
            default,
            chunking,
            usage,
            max_tokens,
            entries,
        })
    }

    /// Pick the answer for a request and use the entry up. `call_index` is the 0-based number of
    /// this call in the run (tool call ids are `call_<n>_<i>`).
    pub fn answer(&mut self, request: &ChatRequest, call_index: usize) -> Answer {
        let text = request.match_text();
        let pos = self.entries.iter().position(|e| {
            e.times != Some(0) && e.matches.iter().all(|m| text.contains(m.as_str()))
        });
        let (entry, content, reasoning, tool_calls, chunks, delay_ms, error, status) = match pos {
            Some(i) => {
                let e = &mut self.entries[i];
                if let Some(t) = e.times.as_mut() {
                    *t -= 1;
                }
                let calls = e
                    .tool_calls
                    .iter()
                    .enumerate()
                    .map(|(j, (name, args))| ToolCall {
                        id: format!("call_{call_index}_{j}"),
                        name: name.clone(),
                        arguments: args.clone(),
                    })
                    .collect();
                (
                    Some(i),
                    e.content.clone(),
                    e.reasoning.clone(),
                    calls,
                    e.chunks.clone(),
                    e.delay_ms,
                    e.error.clone(),
                    e.status,
                )
            }
            None => {
                let text = if self.default == "echo" {
                    request
                        .messages
                        .iter()
                        .rev()
                        .find(|m| m.role == "user")
                        .and_then(|m| m.content.clone())
                        .unwrap_or_default()
                } else {
                    self.default.clone()
                };
                (None, Some(text), None, Vec::new(), None, 0, None, None)
            }
        };
        let chunks = match chunks {
            Some(c) => c,
            None => cut(content.as_deref().unwrap_or(""), &self.chunking),
        };
        let usage = self.usage.then(|| {
            let prompt: u64 = text.split_whitespace().count() as u64;
            let completion = content.as_deref().unwrap_or("").split_whitespace().count() as u64;
            TokenUsage {
                prompt_tokens: prompt,
                completion_tokens: completion,
                total_tokens: prompt + completion,
            }
        });
        Answer {
            entry,
            content,
            reasoning,
            tool_calls,
            chunks,
            delay_ms,
            error,
            status,
            usage,
        }
    }
}

fn parse_chunking(v: Option<&Json>) -> Result<Chunking, String> {
    match v {
        None => Ok(Chunking::Whole),
        Some(Json::String(s)) if s == "whole" => Ok(Chunking::Whole),
        Some(Json::String(s)) if s == "words" => Ok(Chunking::Words),
        Some(Json::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
            Ok(Chunking::Chars(n.as_u64().unwrap_or(1) as usize))
        }
        Some(other) => Err(format!(
            "`chunking` must be \"whole\", \"words\" or a positive integer, not {other}"
        )),
    }
}

/// One response; errors point below the response (the caller adds where it is).
fn parse_entry(e: &Json) -> Result<Entry, ScriptError> {
    let Json::Object(m) = e else {
        return Err(ScriptError::at("", "a response must be an object"));
    };
    known_keys(m, RESPONSE_KEYS, "a response")?;
    if let Some(Json::Array(calls)) = m.get("tool_calls") {
        for (j, c) in calls.iter().enumerate() {
            if let Json::Object(c) = c {
                known_keys(c, TOOL_CALL_KEYS, "a tool call").map_err(|mut err| {
                    err.pointer = format!("/tool_calls/{j}{}", err.pointer);
                    err
                })?;
            }
        }
    }
    parse_entry_fields(m).map_err(|message| ScriptError::at("", message))
}

fn parse_entry_fields(m: &serde_json::Map<String, Json>) -> Result<Entry, String> {
    let string = |k: &str| -> Result<Option<String>, String> {
        match m.get(k) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{k}` must be a string")),
        }
    };
    let matches = match m.get("match") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::String(s)) => vec![s.clone()],
        Some(Json::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or("`match` entries must be strings".to_string())
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`match` must be a string or a list of strings".into()),
    };
    let tool_calls = match m.get("tool_calls") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(a)) => a
            .iter()
            .map(|c| {
                let name = c
                    .get("name")
                    .and_then(Json::as_str)
                    .ok_or("a tool call needs a `name`")?;
                let args = match c.get("arguments") {
                    None => "{}".to_string(),
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => canvasc_value::py::json_dumps(other),
                };
                Ok((name.to_string(), args))
            })
            .collect::<Result<_, String>>()?,
        Some(_) => return Err("`tool_calls` must be a list".into()),
    };
    let chunks = match m.get("chunks") {
        None | Some(Json::Null) => None,
        Some(Json::Array(a)) => Some(
            a.iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or("`chunks` must be strings".to_string())
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(_) => return Err("`chunks` must be a list of strings".into()),
    };
    let times = match m.get("times") {
        None => Some(1),
        Some(Json::Number(n)) if n.as_i64() == Some(-1) => None,
        Some(Json::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(_) => return Err("`times` must be a non-negative integer or -1".into()),
    };
    Ok(Entry {
        matches,
        content: string("content")?,
        reasoning: string("reasoning")?,
        tool_calls,
        chunks,
        delay_ms: m.get("delay_ms").and_then(Json::as_u64).unwrap_or(0),
        error: string("error")?,
        status: m.get("status").and_then(Json::as_u64).map(|s| s as u16),
        times,
    })
}

static WORDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s*\S+\s*").expect("valid pattern"));

fn cut(text: &str, chunking: &Chunking) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    match chunking {
        Chunking::Whole => vec![text.to_string()],
        Chunking::Words => WORDS
            .find_iter(text)
            .map(|m| m.as_str().to_string())
            .collect(),
        Chunking::Chars(n) => {
            let chars: Vec<char> = text.chars().collect();
            chars.chunks(*n).map(|c| c.iter().collect()).collect()
        }
    }
}

/// The in-process scripted provider.
pub struct ScriptedProvider {
    state: Mutex<(Script, Vec<Call>)>,
}

impl ScriptedProvider {
    pub fn new(script: Script) -> Self {
        ScriptedProvider {
            state: Mutex::new((script, Vec::new())),
        }
    }

    /// Every call so far, with the entry that answered it.
    pub fn calls(&self) -> Vec<Call> {
        self.state.lock().map(|s| s.1.clone()).unwrap_or_default()
    }

    fn next_answer(&self, request: &ChatRequest) -> Answer {
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (script, calls) = &mut *guard;
        let answer = script.answer(request, calls.len());
        calls.push(Call {
            request: request.clone(),
            answer: answer.clone(),
        });
        answer
    }
}

/// A scripted failure, coded as RAGFlow codes an exception with that text when it gives up on
/// the first attempt (so `MAX_RETRIES_EXCEEDED` when the request allows no retries).
fn failure(message: &str, request: &ChatRequest) -> LlmError {
    let max_retries = request
        .max_retries
        .unwrap_or(super::config::DEFAULT_MAX_RETRIES);
    LlmError::new(error::final_code(message, 0, max_retries), message)
}

impl ChatProvider for ScriptedProvider {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        let answer = self.next_answer(&request);
        let failed = answer.error.as_deref().map(|e| failure(e, &request));
        Box::pin(async move {
            if answer.delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(answer.delay_ms)).await;
            }
            if let Some(e) = failed {
                return Err(e);
            }
            let finish = if answer.tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            };
            Ok(ChatResponse {
                content: answer.content.unwrap_or_default(),
                reasoning: answer.reasoning,
                tool_calls: answer.tool_calls,
                finish_reason: Some(finish.into()),
                usage: answer.usage,
            })
        })
    }

    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>> {
        let answer = self.next_answer(&request);
        let mut items: Vec<Result<Delta, LlmError>> = Vec::new();
        if let Some(e) = answer.error.as_deref().filter(|e| *e != "broken-stream") {
            items.push(Err(failure(e, &request)));
        } else {
            // Reasoning, then tool calls, then content: the order of the reference oracle's
            // scripted model (`fake_llm.py`), so streams compare with RAGFlow's.
            if let Some(r) = &answer.reasoning {
                items.push(Ok(Delta::Reasoning(r.clone())));
            }
            for c in &answer.tool_calls {
                items.push(Ok(Delta::ToolCall(c.clone())));
            }
            // An empty chunk carries nothing (over HTTP it is an empty `content`, no delta).
            for c in answer.chunks.iter().filter(|c| !c.is_empty()) {
                items.push(Ok(Delta::Content(c.clone())));
            }
            if answer.error.as_deref() == Some("broken-stream") {
                items.truncate(1);
                items.push(Err(LlmError::classified(error::BROKEN_STREAM)));
            } else if let Some(u) = answer.usage {
                items.push(Ok(Delta::Usage(u)));
            }
        }
        let delay = answer.delay_ms;
        Box::pin(futures::stream::iter(items).then(move |item| async move {
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            item
        }))
    }

    fn context_length(&self, _llm_id: &str) -> Result<u64, LlmError> {
        Ok(self.state.lock().map_or(8192, |s| s.0.max_tokens))
    }
}

use futures::StreamExt;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ChatMessage;
    use serde_json::json;

    fn req(user: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::new("system", "sys"),
                ChatMessage::new("user", user),
            ],
            ..ChatRequest::default()
        }
    }

    #[test]
    fn matches_in_order_uses_entries_up_and_echoes_by_default() {
        let mut s = Script::parse(&json!({
            "chunking": "words",
            "responses": [
                {"match": ["weather", "sys"], "content": "It is sunny.", "times": 1},
                {"match": "weather", "content": "Rain.", "tool_calls": [{"name": "f_0", "arguments": {"q": "x"}}]}
            ]
        }))
        .expect("valid");
        let a = s.answer(&req("weather?"), 0);
        assert_eq!(a.entry, Some(0));
        assert_eq!(a.chunks, vec!["It ", "is ", "sunny."]);
        let b = s.answer(&req("weather?"), 1);
        assert_eq!(b.entry, Some(1));
        assert_eq!(b.tool_calls[0].id, "call_1_0");
        assert_eq!(b.tool_calls[0].arguments, r#"{"q": "x"}"#);
        let c = s.answer(&req("hello there"), 2);
        assert_eq!((c.entry, c.content.as_deref()), (None, Some("hello there")));
    }

    #[test]
    fn rejects_malformed_scripts() {
        assert!(Script::parse(&json!({"chunking": "lines"})).is_err());
        assert!(Script::parse(&json!({"responses": [{"times": "x"}]})).is_err());
        assert!(Script::parse(&json!([{"content": "a"}])).is_ok());
    }

    #[test]
    fn unknown_keys_are_refused_where_they_are() {
        let at = |v: Json| Script::parse(&v).map(|_| ()).map_err(|e| e.pointer);
        assert_eq!(at(json!({"llm": {}})), Err("/llm".into()));
        assert_eq!(
            at(json!({"responses": [{}, {"mach": "x"}]})),
            Err("/responses/1/mach".into())
        );
        assert_eq!(
            at(json!([{"content": "a", "time": 2}])),
            Err("/0/time".into())
        );
        assert_eq!(
            at(json!([{"tool_calls": [{"name": "f", "args": {}}]}])),
            Err("/0/tool_calls/0/args".into())
        );
    }
}
