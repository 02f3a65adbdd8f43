//! The local knowledge base's tokenizer: words for alphabetic scripts, overlapping bigrams for
//! Chinese, Japanese and Korean.
//!
//! tantivy's `SimpleTokenizer` splits on what is not alphanumeric, and CJK text has no spaces:
//! a whole Chinese sentence became one token (or none, past the length limit), so a Chinese
//! query found nothing. CJK runs are cut into overlapping character bigrams instead (a run of
//! one character stays a unigram), as Lucene's `CJKAnalyzer` and Elasticsearch's `cjk`
//! analyzer do: no dictionary is needed, Chinese, Japanese kana and kanji and Korean hangul are
//! handled alike, and a query matches a chunk when they share bigrams. Everything else is
//! split exactly as `SimpleTokenizer` splits it, so existing English indexes read the same.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Ideographs, kana, hangul and their compatibility forms: the scripts written without spaces.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007      // 々 〆 〇 (iteration mark, closing mark, zero)
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F    // Hangul compatibility jamo
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // Half-width katakana
        | 0x20000..=0x2FA1F  // Extensions B–F, compatibility supplement
    )
}

/// Words and CJK bigrams (see the module documentation).
#[derive(Clone, Default)]
pub struct CjkTokenizer;

/// The tokens of one text, cut in advance (chunks are short).
pub struct CjkTokenStream {
    tokens: Vec<Token>,
    next: usize,
    current: Token,
}

impl Tokenizer for CjkTokenizer {
    type TokenStream<'a> = CjkTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream {
        CjkTokenStream {
            tokens: tokens(text),
            next: 0,
            current: Token::default(),
        }
    }
}

impl TokenStream for CjkTokenStream {
    fn advance(&mut self) -> bool {
        match self.tokens.get_mut(self.next) {
            Some(t) => {
                self.current = std::mem::take(t);
                self.next += 1;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

fn push(out: &mut Vec<Token>, text: &str, from: usize, to: usize) {
    out.push(Token {
        offset_from: from,
        offset_to: to,
        position: out.len(),
        text: text[from..to].to_string(),
        position_length: 1,
    });
}

/// Runs of alphanumeric characters are words, except runs of CJK characters, which become
/// their bigrams.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    // The run being read: its start and whether it is CJK; the CJK run's character offsets.
    let mut word: Option<usize> = None;
    let mut cjk: Vec<usize> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<usize>, end: usize, out: &mut Vec<Token>| {
        match cjk.len() {
            0 => {}
            1 => push(out, text, cjk[0], end),
            n => {
                for i in 0..n - 1 {
                    let to = if i + 2 < n { cjk[i + 2] } else { end };
                    push(out, text, cjk[i], to);
                }
            }
        }
        cjk.clear();
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(start) = word.take() {
                push(&mut out, text, start, i);
            }
            cjk.push(i);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, i, &mut out);
            word.get_or_insert(i);
        } else {
            flush_cjk(&mut cjk, i, &mut out);
            if let Some(start) = word.take() {
                push(&mut out, text, start, i);
            }
        }
    }
    flush_cjk(&mut cjk, text.len(), &mut out);
    if let Some(start) = word {
        push(&mut out, text, start, text.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokens(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_and_bigrams() {
        assert_eq!(
            texts("Hello, happy tax payer!"),
            ["Hello", "happy", "tax", "payer"]
        );
        assert_eq!(texts("重启路由器"), ["重启", "启路", "路由", "由器"]);
        assert_eq!(
            texts("按住复位键。好"),
            ["按住", "住复", "复位", "位键", "好"]
        );
        assert_eq!(texts("WiFi密码abc"), ["WiFi", "密码", "abc"]);
        assert_eq!(texts("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(texts("라우터 재시작"), ["라우", "우터", "재시", "시작"]);
        assert_eq!(texts("人々"), ["人々"]);
        let t = tokens("a 重启");
        assert_eq!((t[1].offset_from, t[1].offset_to, t[1].position), (2, 8, 1));
    }
}
