//! RAGFlow's `_stream_with_think_delta` (`api/db/services/dialog_service.py`): how a streamed
//! answer whose text carries `<think>`…`</think>` becomes the pieces the LLM and Agent
//! components yield to a Message: the tags as separate `<think>` / `</think>` pieces (which the
//! scheduler turns into `start_to_think` / `end_to_think` events), the text between them, and
//! the answer, buffered until it reaches `min_tokens` tokens.
//!
//! Models that resend the whole text so far are handled as RAGFlow does: a chunk that extends
//! the previous full text contributes only its new part.

use super::fit::num_tokens;
use canvasc_value::py;
use futures::stream::BoxStream;
use futures::StreamExt;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// `re.sub(r"</?think>", "", text)`.
fn strip_tags(text: &str) -> String {
    text.replace(OPEN, "").replace(CLOSE, "")
}

/// The splitter's state between chunks (`_ThinkStreamState`; its think buffer is never filled
/// in RAGFlow, so it is left out).
#[derive(Debug, Default)]
pub struct ThinkSplitter {
    min_tokens: usize,
    last_model_full: String,
    in_think: bool,
    close_pending: bool,
    pending_after_close: String,
    answer_buffer: String,
}

impl ThinkSplitter {
    pub fn new(min_tokens: usize) -> Self {
        ThinkSplitter {
            min_tokens,
            ..ThinkSplitter::default()
        }
    }

    /// `_emit_text`: thinking passes through; the answer waits for `min_tokens` tokens.
    fn emit(&mut self, think: bool, text: &str, out: &mut Vec<String>) {
        if text.is_empty() {
            return;
        }
        if think {
            out.push(text.to_string());
            return;
        }
        self.answer_buffer.push_str(text);
        if num_tokens(Some(&self.answer_buffer)) >= self.min_tokens {
            out.push(std::mem::take(&mut self.answer_buffer));
        }
    }

    /// The pieces one chunk of the model's stream releases.
    pub fn push(&mut self, chunk: &str) -> Vec<String> {
        let mut out = Vec::new();
        if chunk.is_empty() {
            return out;
        }
        let new_part = match chunk.strip_prefix(self.last_model_full.as_str()) {
            Some(rest) => {
                let rest = rest.to_string();
                self.last_model_full = chunk.to_string();
                rest
            }
            None => {
                self.last_model_full.push_str(chunk);
                chunk.to_string()
            }
        };
        if new_part.is_empty() {
            return out;
        }
        let mut pending = new_part;
        if self.close_pending && !pending.contains(CLOSE) {
            self.close_pending = false;
            self.in_think = false;
            out.push(CLOSE.to_string());
            let after = std::mem::take(&mut self.pending_after_close);
            self.emit(false, &after, &mut out);
            self.emit(false, &strip_tags(&pending), &mut out);
            return out;
        }
        while !pending.is_empty() {
            let open = pending.find(OPEN);
            let close = pending.find(CLOSE);
            match (open, close) {
                (None, None) => {
                    let piece = strip_tags(&pending);
                    self.emit(self.in_think, &piece, &mut out);
                    break;
                }
                (Some(o), c) if c.is_none_or(|c| o < c) => {
                    let before = strip_tags(&pending[..o]);
                    self.emit(self.in_think, &before, &mut out);
                    pending = pending[o + OPEN.len()..].to_string();
                    if !self.in_think {
                        if !self.answer_buffer.is_empty() {
                            out.push(std::mem::take(&mut self.answer_buffer));
                        }
                        self.in_think = true;
                        out.push(OPEN.to_string());
                    }
                }
                (_, close) => {
                    let Some(c) = close else { break };
                    let before = strip_tags(&pending[..c]);
                    let after = strip_tags(&pending[c + CLOSE.len()..]);
                    self.emit(self.in_think, &before, &mut out);
                    if !py::strip(&after).is_empty() {
                        self.in_think = false;
                        out.push(CLOSE.to_string());
                        pending = after;
                        continue;
                    }
                    self.close_pending = true;
                    self.pending_after_close.push_str(&after);
                    break;
                }
            }
        }
        out
    }

    /// The pieces left when the stream ends.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if self.close_pending {
            self.in_think = false;
            out.push(CLOSE.to_string());
        }
        if !self.answer_buffer.is_empty() {
            out.push(std::mem::take(&mut self.answer_buffer));
        }
        if !self.pending_after_close.is_empty() {
            out.push(std::mem::take(&mut self.pending_after_close));
        }
        out
    }
}

/// `_stream_with_think_delta(stream, min_tokens=0)`: the pieces of a stream of deltas.
pub fn think_pieces(mut deltas: BoxStream<'static, String>) -> BoxStream<'static, String> {
    Box::pin(async_stream::stream! {
        let mut splitter = ThinkSplitter::new(0);
        while let Some(d) = deltas.next().await {
            for piece in splitter.push(&d) {
                yield piece;
            }
        }
        for piece in splitter.finish() {
            yield piece;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::ThinkSplitter;
    use serde_json::Value;

    /// What RAGFlow's own `_stream_with_think_delta` yields for these chunk sequences
    /// (`tests/golden/think_split_cases.py` in the oracle).
    const CASES: &str = include_str!("think_split_cases.jsonl");

    #[test]
    fn splits_like_ragflow() {
        let mut checked = 0;
        for line in CASES.lines() {
            let case: Value = serde_json::from_str(line).expect("a JSON line");
            let min_tokens = case["min_tokens"].as_u64().expect("min_tokens") as usize;
            let mut s = ThinkSplitter::new(min_tokens);
            let mut got: Vec<String> = Vec::new();
            for chunk in case["chunks"].as_array().expect("chunks") {
                got.extend(s.push(chunk.as_str().expect("a string chunk")));
            }
            got.extend(s.finish());
            assert_eq!(Value::from(got), case["pieces"], "{}", case["name"]);
            checked += 1;
        }
        assert_eq!(checked, 14, "every case ran");
    }
}
