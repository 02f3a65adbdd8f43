//! How RAGFlow shows provider-side reasoning (`reasoning_content`) in answer text. Providers
//! keep reasoning apart ([`Delta::Reasoning`], [`ChatResponse::reasoning`]) so that every
//! provider stays comparable; the LLM layer renders it with these helpers, exactly as
//! `rag/llm/chat_model.py` (`Base`) does:
//!
//! * streaming: the first reasoning delta of a run is prefixed with `<think>` and *every*
//!   reasoning delta ends with `</think>`; a content delta ends the run;
//! * a non-streamed answer (the tool-calling path): `<think>` + reasoning + `</think>` before
//!   the content.

use super::{ChatResponse, Delta};

/// Renders streamed deltas as RAGFlow's text pieces.
#[derive(Clone, Debug, Default)]
pub struct ThinkTagger {
    in_reasoning: bool,
}

impl ThinkTagger {
    /// The text RAGFlow yields for `delta`, or `None` for deltas that are not text (tool calls,
    /// usage).
    pub fn text(&mut self, delta: &Delta) -> Option<String> {
        match delta {
            Delta::Reasoning(r) if !r.is_empty() => {
                let open = if self.in_reasoning { "" } else { "<think>" };
                self.in_reasoning = true;
                Some(format!("{open}{r}</think>"))
            }
            Delta::Content(c) => {
                self.in_reasoning = false;
                Some(c.clone())
            }
            _ => None,
        }
    }
}

/// A complete answer's text with its reasoning in front, as RAGFlow's tool-calling chat
/// returns it.
pub fn with_think(response: &ChatResponse) -> String {
    match response.reasoning.as_deref() {
        Some(r) if !r.is_empty() => format!("<think>{r}</think>{}", response.content),
        _ => response.content.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_reasoning_runs_like_ragflow() {
        let mut t = ThinkTagger::default();
        let out: Vec<Option<String>> = [
            Delta::Reasoning("a".into()),
            Delta::Reasoning("b".into()),
            Delta::Content("c".into()),
            Delta::Reasoning("d".into()),
        ]
        .iter()
        .map(|d| t.text(d))
        .collect();
        assert_eq!(
            out,
            [
                Some("<think>a</think>".to_string()),
                Some("b</think>".into()),
                Some("c".into()),
                Some("<think>d</think>".into())
            ]
        );
        let r = ChatResponse {
            content: "x".into(),
            reasoning: Some("r".into()),
            ..ChatResponse::default()
        };
        assert_eq!(with_think(&r), "<think>r</think>x");
    }
}
