//! `kb_prompt` (`rag/prompts/generator.py`): the knowledge blocks a model reads, one text per
//! chunk. Tools write their results with it (`formalized_content`), and an Agent's citation
//! pass hands the turn's references to the model with it.

use crate::llm::fit::num_tokens;
use canvasc_value::{py, Json};
use regex::Regex;
use std::sync::LazyLock;

/// RAGFlow's `hash_str2int(line, mod)`: the SHA-1 of the text as a number, modulo `modulus`
/// (the 160-bit number reduced byte by byte, which gives the same remainder). The `ID` a chunk
/// is shown by here, and the key the turn's references file it under (`Canvas.add_reference`,
/// in `components/external.rs`); here, below the tool seam, so `llm/` imports nothing of it.
pub fn hash_str2int(line: &str, modulus: u64) -> u64 {
    use sha1::Digest;
    let digest = sha1::Sha1::digest(line.as_bytes());
    let m = u128::from(modulus.max(1));
    let rest = digest
        .iter()
        .fold(0u128, |acc, b| (acc * 256 + u128::from(*b)) % m);
    u64::try_from(rest).unwrap_or(0)
}

/// `kb_prompt(kbinfos, max_tokens, hash_id=True)`: one text per chunk (`ID: <sha1(id) mod
/// 500>`, title, URL, the document's metadata, content), as many chunks as fit 97% of
/// `max_tokens` (the chunk that passes the budget included, as RAGFlow counts).
pub fn kb_prompt(chunks: &[Json], max_tokens: usize) -> Vec<String> {
    let content_of = |c: &Json| text(get_value(c, "content", "content_with_weight"));
    let mut used = 0usize;
    let mut taken = 0usize;
    for c in chunks {
        let content = content_of(c);
        if content.is_empty() {
            continue;
        }
        used = used.saturating_add(num_tokens(Some(&content)));
        taken += 1;
        if (max_tokens as f64) * 0.97 < used as f64 {
            break;
        }
    }
    static NEWLINES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\n+").expect("valid pattern"));
    let node = |k: &str, line: String| {
        if line.is_empty() {
            String::new()
        } else {
            format!("\n├── {k}: {}", NEWLINES.replace_all(&line, " "))
        }
    };
    chunks
        .iter()
        .take(taken)
        .map(|c| {
            let id = text(get_value(c, "id", "chunk_id"));
            let mut cnt = format!("\nID: {}", hash_str2int(&id, 500));
            cnt += &node("Title", text(get_value(c, "docnm_kwd", "document_name")));
            cnt += &node("URL", text(c.get("url")));
            if let Some(Json::Object(meta)) = c.get("document_metadata") {
                for (k, v) in meta {
                    cnt += &node(k, text(Some(v)));
                }
            }
            cnt += "\n└── Content:\n";
            cnt += &content_of(c);
            cnt
        })
        .collect()
}

/// `d.get(k1, d.get(k2))`.
fn get_value<'a>(chunk: &'a Json, k1: &str, k2: &str) -> Option<&'a Json> {
    chunk.get(k1).or_else(|| chunk.get(k2))
}

/// `str()` of a value, `""` for none.
fn text(v: Option<&Json>) -> String {
    match v {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}
