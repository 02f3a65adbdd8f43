//! Jinja2's `urlize` filter (jinja2/utils.py `urlize`, with the filter's default policies:
//! `rel="noopener"`, no target, no extra schemes), using the same regular expressions.

use super::value::html_escape;
use regex::Regex;
use std::sync::LazyLock;

static HTTP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        ^
        (
            (https?://|www\.)
            (([\w%-]+\.)+)?
            (
                [a-z]{2,63}
            |
                xn--[\w%]{2,59}
            )
        |
            ([\w%-]{2,63}\.)+
            (com|net|int|edu|gov|org|info|mil)
        |
            (https?://)
            (
                (([\d]{1,3})(\.[\d]{1,3}){3})
            |
                (\[([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}])
            )
        )
        (?::[\d]{1,5})?
        (?:[/?\#]\S*)?
        $",
    )
    .expect("valid pattern")
});
static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\S+@\w[\w.-]*\.\w+$").expect("valid pattern"));
static HEAD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([(<]|&lt;)+").expect("valid pattern"));
static TAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([)>.,\n]|&gt;)+$").expect("valid pattern"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid pattern"));

/// `urlize(text, trim_url_limit, rel, target)`.
pub fn urlize(
    text: &str,
    trim_url_limit: Option<usize>,
    rel: Option<&str>,
    target: Option<&str>,
) -> String {
    let escaped = html_escape(text);
    let rel_attr = rel
        .map(|r| format!(" rel=\"{}\"", html_escape(r)))
        .unwrap_or_default();
    let target_attr = target
        .map(|t| format!(" target=\"{}\"", html_escape(t)))
        .unwrap_or_default();
    let trim = |x: &str| match trim_url_limit {
        Some(n) if x.chars().count() > n => format!("{}...", x.chars().take(n).collect::<String>()),
        _ => x.to_string(),
    };
    let mut out = String::with_capacity(escaped.len());
    let mut last = 0;
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    for m in SPACE.find_iter(&escaped) {
        pieces.push((&escaped[last..m.start()], true));
        pieces.push((m.as_str(), false));
        last = m.end();
    }
    pieces.push((&escaped[last..], true));
    for (word, is_word) in pieces {
        if !is_word {
            out.push_str(word);
            continue;
        }
        let (mut head, mut middle, mut tail) = ("", word.to_string(), String::new());
        if let Some(m) = HEAD.find(word) {
            head = &word[..m.end()];
            middle = word[m.end()..].to_string();
        }
        if [")", ">", ".", ",", "\n", "&gt;"]
            .iter()
            .any(|e| middle.ends_with(e))
        {
            if let Some(m) = TAIL.find(&middle) {
                tail = middle[m.start()..].to_string();
                middle.truncate(m.start());
            }
        }
        for (start, end) in [("(", ")"), ("<", ">"), ("&lt;", "&gt;")] {
            let start_count = middle.matches(start).count();
            if start_count <= middle.matches(end).count() {
                continue;
            }
            for _ in 0..start_count.min(tail.matches(end).count()) {
                let Some(i) = tail.find(end) else { break };
                let end_index = i + end.len();
                middle.push_str(&tail[..end_index]);
                tail = tail[end_index..].to_string();
            }
        }
        if HTTP.is_match(&middle) {
            let href = if middle.starts_with("https://") || middle.starts_with("http://") {
                middle.clone()
            } else {
                format!("https://{middle}")
            };
            middle = format!(
                "<a href=\"{href}\"{rel_attr}{target_attr}>{}</a>",
                trim(&middle)
            );
        } else if middle.starts_with("mailto:") && EMAIL.is_match(&middle[7..]) {
            middle = format!("<a href=\"{middle}\">{}</a>", &middle[7..]);
        } else if middle.contains('@')
            && !middle.starts_with("www.")
            && !middle.starts_with('@')
            && !middle.contains(':')
            && EMAIL.is_match(&middle)
        {
            middle = format!("<a href=\"mailto:{middle}\">{middle}</a>");
        }
        out.push_str(head);
        out.push_str(&middle);
        out.push_str(&tail);
    }
    out
}
