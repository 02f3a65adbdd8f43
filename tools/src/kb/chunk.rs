//! RAGFlow's naive chunker (`rag/nlp/__init__.py`, `naive_merge` with the default
//! `MergeStrategy.OVER_CAP`, no overlap): the text is split on every delimiter character (the
//! delimiter itself never enters a chunk), each piece becomes a paragraph `"\n" + piece`, and
//! paragraphs are grouped while the running token count stays within the budget; a paragraph
//! over the budget stands alone. Tokens are tiktoken's `cl100k_base`, as
//! `num_tokens_from_string` counts them.

use canvasc_engine::llm::fit::num_tokens;

/// `parser_config["chunk_token_num"]`'s default for text, Markdown and HTML.
pub const CHUNK_TOKENS: usize = 128;

/// The naive parser's default delimiters for text files (`"\n!?。；！？"`).
pub const DELIMITERS: &str = "\n!?。；！？";

/// `naive_merge(text, chunk_tokens, delimiters)`.
pub fn naive_merge(text: &str, chunk_tokens: usize, delimiters: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let dels: Vec<char> = {
        let mut seen = Vec::new();
        for c in delimiters.replace("\r\n", "\n").replace('\r', "\n").chars() {
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
        seen
    };
    let paragraphs: Vec<String> = if dels.is_empty() {
        vec![format!("\n{text}")]
    } else {
        text.split(|c| dels.contains(&c))
            .filter(|p| !p.is_empty())
            .map(|p| format!("\n{p}"))
            .collect()
    };
    let sizes: Vec<usize> = paragraphs.iter().map(|p| num_tokens(Some(p))).collect();
    // `_merge_paragraph_groups`, OVER_CAP, overlap 0 (threshold = cap).
    let cap = chunk_tokens;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut cur_t = 0usize;
    for (i, &pt) in sizes.iter().enumerate() {
        if pt > cap {
            if !cur.is_empty() {
                groups.push(std::mem::take(&mut cur));
            }
            groups.push(vec![i]);
            cur_t = 0;
            continue;
        }
        if cur.is_empty() {
            cur = vec![i];
            cur_t = pt;
            continue;
        }
        if cur_t > cap {
            groups.push(std::mem::replace(&mut cur, vec![i]));
            cur_t = pt;
        } else {
            cur.push(i);
            cur_t += pt;
        }
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    groups
        .into_iter()
        .map(|g| g.into_iter().map(|i| paragraphs[i].as_str()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_delimiters_and_drops_them() {
        let chunks = naive_merge("Hello world! How are you?\nFine。", 128, DELIMITERS);
        assert_eq!(chunks, vec!["\nHello world\n How are you\nFine"]);
    }

    #[test]
    fn groups_by_tokens() {
        let sentence = "word ".repeat(50);
        let text = format!("{sentence}\n{sentence}\n{sentence}\n{sentence}");
        let chunks = naive_merge(&text, 128, DELIMITERS);
        // 50 + 50 = 100 tokens stay under the cap; the third joins (the running sum 100 is
        // not over 128 yet), the fourth starts a new chunk.
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1], format!("\n{sentence}"));
    }

    #[test]
    fn an_oversized_paragraph_stands_alone() {
        let long = "token ".repeat(300);
        let chunks = naive_merge(&format!("a\n{long}\nb"), 128, DELIMITERS);
        assert_eq!(
            chunks,
            vec!["\na".to_string(), format!("\n{long}"), "\nb".to_string()]
        );
    }
}
