//! Reading HTML the way the tools need it: tags removed and character references decoded
//! (`_normalize`), pages cleaned of scripts and styles, and a Markdown rendering for the
//! Crawler. Pattern-based: the workspace has no HTML parser crate, and these pages are read
//! for their text, not their structure.

use regex::Regex;
use std::sync::LazyLock;

static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]*>").expect("valid pattern"));
static ENTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);").expect("valid pattern")
});

/// `html.unescape` for the references DuckDuckGo's pages use.
pub fn unescape(s: &str) -> String {
    ENTITY
        .replace_all(s, |c: &regex::Captures<'_>| {
            let e = &c[1];
            let code = if let Some(hex) = e.strip_prefix("#x").or_else(|| e.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok()
            } else if let Some(dec) = e.strip_prefix('#') {
                dec.parse().ok()
            } else {
                match e {
                    "amp" => Some(38),
                    "lt" => Some(60),
                    "gt" => Some(62),
                    "quot" => Some(34),
                    "apos" => Some(39),
                    "nbsp" => Some(160),
                    _ => None,
                }
            };
            match code.and_then(char::from_u32) {
                Some(ch) => ch.to_string(),
                None => c[0].to_string(),
            }
        })
        .into_owned()
}

/// The library's `_normalize`: tags removed, references decoded.
pub fn normalize(html: &str) -> String {
    unescape(&TAG.replace_all(html, ""))
}

static DROPPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)<!--.*?-->|<(script|style|noscript|iframe|svg|template|head)\b[^>]*>.*?</(script|style|noscript|iframe|svg|template|head)\s*>")
        .expect("valid pattern")
});

/// The page without comments, scripts, styles, frames and `<head>` (crawl4ai's `cleaned_html`
/// drops the same elements).
pub fn cleaned(html: &str) -> String {
    DROPPED.replace_all(html, "").trim().to_string()
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)<h([1-6])\b[^>]*>(.*?)</h[1-6]\s*>").expect("valid pattern")
});
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?is)<a\b[^>]*?href\s*=\s*["']([^"']*)["'][^>]*>(.*?)</a\s*>"#)
        .expect("valid pattern")
});
static ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)<li\b[^>]*>").expect("valid pattern"));
static BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)<br\s*/?>|</?(p|div|section|article|ul|ol|table|tr|blockquote|pre|main|header|footer|nav)\b[^>]*>|</li\s*>")
        .expect("valid pattern")
});
static STRONG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)</?(strong|b)\b[^>]*>").expect("valid pattern"));
static BLANK_LINES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\n[ \t]*(\n[ \t]*)+").expect("valid pattern"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[ \t]+").expect("valid pattern"));

/// The page as Markdown: headings as `#`, links as `[text](href)`, list items as `* `,
/// bold as `**`, blocks separated by blank lines.
pub fn markdown(html: &str) -> String {
    let page = cleaned(html);
    let page = HEADING.replace_all(&page, |c: &regex::Captures<'_>| {
        let level: usize = c[1].parse().unwrap_or(1);
        format!("\n\n{} {}\n\n", "#".repeat(level), normalize(&c[2]).trim())
    });
    let page = LINK.replace_all(&page, |c: &regex::Captures<'_>| {
        format!("[{}]({})", normalize(&c[2]).trim(), unescape(&c[1]))
    });
    let page = STRONG.replace_all(&page, "**");
    let page = ITEM.replace_all(&page, "\n* ");
    let page = BREAK.replace_all(&page, "\n\n");
    let text = normalize(&page);
    let text = SPACES.replace_all(&text, " ");
    let text = BLANK_LINES.replace_all(&text, "\n\n");
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_of_a_page() {
        let page = "<html><head><title>x</title><style>p{}</style></head><body><h1>Title</h1><p>Some <b>bold</b> &amp; <a href=\"/a?x=1&amp;y=2\">link</a>.</p><script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>";
        assert_eq!(
            markdown(page),
            "# Title\n\nSome **bold** & [link](/a?x=1&y=2).\n\n* one\n\n* two"
        );
        assert!(!cleaned(page).contains("alert"));
    }
}
