//! Token counting and `message_fit_in` (RAGFlow's `common/token_utils.py` and
//! `rag/prompts/generator.py`): before every chat call the LLM, Categorize and Agent components
//! cut the conversation to the model's context with OpenAI's `cl100k_base` encoding, whatever
//! the model. The counts decide which messages survive, so they must be tiktoken's exactly.

use super::ChatMessage;
use tiktoken_rs::CoreBPE;

fn encoder() -> &'static CoreBPE {
    tiktoken_rs::cl100k_base_singleton()
}

/// `cl100k_base`'s special tokens. tiktoken's `encode(text)` refuses text containing any of them
/// (its default `disallowed_special="all"`).
const SPECIAL: [&str; 5] = [
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|endofprompt|>",
];

/// `encoder.encode(text)`: the tokens, or tiktoken's `ValueError` text for the first special
/// token the text contains.
pub fn encode(text: &str) -> Result<Vec<u32>, String> {
    let first = SPECIAL
        .iter()
        .filter_map(|t| text.find(t).map(|at| (at, *t)))
        .min_by_key(|(at, _)| *at);
    if let Some((_, token)) = first {
        return Err(format!(
            "Encountered text corresponding to disallowed special token '{token}'.\n\
             If you want this text to be encoded as a special token, pass it to `allowed_special`, \
             e.g. `allowed_special={{'{token}', ...}}`.\n\
             If you want this text to be encoded as normal text, disable the check for this token \
             by passing `disallowed_special=(enc.special_tokens_set - {{'{token}'}})`.\n\
             To disable this check for all special tokens, pass `disallowed_special=()`.\n"
        ));
    }
    Ok(encoder().encode_ordinary(text))
}

/// `num_tokens_from_string`: 0 when tiktoken refuses the text (or there is none).
pub fn num_tokens(text: Option<&str>) -> usize {
    text.and_then(|t| encode(t).ok()).map_or(0, |t| t.len())
}

/// `encoder.decode(encoder.encode(content)[:limit])`: bytes cut inside a character decode to
/// U+FFFD, as tiktoken's `errors="replace"` does.
fn trim(content: Option<&str>, limit: usize) -> Result<String, String> {
    let Some(content) = content else {
        return Err("expected string or bytes-like object, got 'NoneType'".into());
    };
    let tokens = encode(content)?;
    let kept = &tokens[..limit.min(tokens.len())];
    let bytes = encoder()
        .decode_bytes(kept)
        .map_err(|e| format!("cannot decode tokens: {e:?}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `message_fit_in(msg, max_length)`: the token count and the messages that fit.
///
/// Under the limit the messages are kept. Otherwise only the system messages and the last
/// message remain (the last one twice when it is itself a system message: Python lists the same
/// dict twice, so trimming one trims both), and then the first and last are cut to share the
/// budget — the system prompt keeps its share unless it is over 80% of the total. Errors are
/// the Python exceptions `trim_content` raises (text with a special token).
pub fn message_fit_in(
    messages: &[ChatMessage],
    max_length: i64,
) -> Result<(usize, Vec<ChatMessage>), String> {
    let max_length = if max_length <= 0 {
        8192
    } else {
        max_length as usize
    };
    let mut msgs = messages.to_vec();
    let count = |msgs: &[ChatMessage], order: &[usize]| -> usize {
        order
            .iter()
            .map(|&i| num_tokens(msgs[i].content.as_deref()))
            .sum()
    };
    let all: Vec<usize> = (0..msgs.len()).collect();
    let c = count(&msgs, &all);
    if c < max_length {
        return Ok((c, msgs));
    }
    // Indices into `msgs`, so that a message listed twice is one message.
    let mut order: Vec<usize> = (0..msgs.len())
        .filter(|&i| msgs[i].role == "system")
        .collect();
    if msgs.len() > 1 {
        order.push(msgs.len() - 1);
    }
    let fitted = |msgs: &[ChatMessage], order: &[usize]| -> Vec<ChatMessage> {
        order.iter().map(|&i| msgs[i].clone()).collect()
    };
    let c = count(&msgs, &order);
    if c < max_length {
        return Ok((c, fitted(&msgs, &order)));
    }
    let (first, last) = match (order.first(), order.last()) {
        (Some(&f), Some(&l)) => (f, l),
        _ => return Ok((0, Vec::new())),
    };
    let ll = num_tokens(msgs[first].content.as_deref());
    let ll2 = num_tokens(msgs[last].content.as_deref());
    let total = ll + ll2;
    if total == 0 {
        return Ok((0, fitted(&msgs, &order)));
    }
    if order.len() == 1 {
        msgs[first].content = Some(trim(msgs[first].content.as_deref(), max_length)?);
        return Ok((count(&msgs, &order), fitted(&msgs, &order)));
    }
    // Python reads both originals (`msg_[0]`, `msg_[-1]`) after the first assignment, which
    // matters only when they are the same dict.
    if ll as f64 / total as f64 > 0.8 {
        let preserved_last = ll2.min(max_length);
        msgs[last].content = Some(trim(msgs[last].content.as_deref(), preserved_last)?);
        let remaining = max_length.saturating_sub(preserved_last);
        msgs[first].content = Some(trim(msgs[first].content.as_deref(), remaining)?);
    } else {
        let preserved_system = ll.min(max_length);
        msgs[first].content = Some(trim(msgs[first].content.as_deref(), preserved_system)?);
        let remaining = max_length.saturating_sub(preserved_system);
        msgs[last].content = Some(trim(msgs[last].content.as_deref(), remaining)?);
    }
    Ok((count(&msgs, &order), fitted(&msgs, &order)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// RAGFlow's own results on these inputs (`tests/golden/fit_cases.py` in the oracle).
    const CASES: &str = include_str!("fit_cases.jsonl");

    fn message(v: &Value) -> ChatMessage {
        ChatMessage::new(
            v["role"].as_str().unwrap_or_default(),
            v["content"].as_str().unwrap_or_default(),
        )
    }

    #[test]
    fn counts_and_fits_like_ragflow() {
        let mut checked = 0;
        for line in CASES.lines() {
            let case: Value = serde_json::from_str(line).expect("a JSON line");
            if let Some(text) = case["text"].as_str() {
                assert_eq!(num_tokens(Some(text)), case["count"], "tokens of {text:?}");
                checked += 1;
                continue;
            }
            let input: Vec<ChatMessage> = case["input"]
                .as_array()
                .expect("input")
                .iter()
                .map(message)
                .collect();
            let got = message_fit_in(&input, case["limit"].as_i64().expect("limit"));
            let got = match got {
                Ok((count, msgs)) => json!({
                    "count": count,
                    "messages": msgs
                        .iter()
                        .map(|m| json!({"role": m.role, "content": m.content}))
                        .collect::<Vec<_>>(),
                }),
                Err(e) => json!({"error": format!("ValueError: {e}")}),
            };
            let mut want = case.clone();
            for k in ["name", "input", "limit"] {
                want.as_object_mut().map(|m| m.remove(k));
            }
            assert_eq!(got, want, "{}", case["name"]);
            checked += 1;
        }
        assert_eq!(checked, 17, "every case ran");
    }
}
