//! Rust names for canvas things: component ids become enum variants and field names, output
//! names become struct fields. Names are deterministic, valid identifiers, and unique within
//! their scope; the original text stays in doc comments.

/// Words of a name: runs of ASCII letters and digits (`StringTransform:Join_top` →
/// `String`, `Transform`, `Join`, `top`), splitting camel case.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        let boundary = matches!(prev, Some(p) if p.is_ascii_lowercase() && c.is_ascii_uppercase())
            || matches!(prev, Some(p) if p.is_ascii_digit() != c.is_ascii_digit() && c.is_ascii_uppercase());
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "union",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// `PascalCase` (enum variants, types); `fallback` when the name has no ASCII letter or digit.
pub fn pascal(name: &str, fallback: &str) -> String {
    let mut s: String = words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => {
                    first.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase()
                }
                None => String::new(),
            }
        })
        .collect();
    if s.is_empty() {
        s = fallback.to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'N');
    }
    if s == "Self" {
        s.push('_');
    }
    s
}

/// `snake_case` (fields, modules); `fallback` when the name has no ASCII letter or digit.
pub fn snake(name: &str, fallback: &str) -> String {
    let mut s = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if s.is_empty() {
        s = fallback.to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'n');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `SCREAMING_SNAKE_CASE` (constants).
pub fn screaming(name: &str, fallback: &str) -> String {
    snake(name, fallback)
        .trim_end_matches('_')
        .to_ascii_uppercase()
}

/// Makes names unique in one scope by suffixing `_2`, `_3`, … in order of arrival.
#[derive(Default)]
pub struct Unique(Vec<String>);

impl Unique {
    /// Keep `name` out of reach (taken by something else in the scope).
    pub fn reserve(&mut self, name: &str) {
        if !self.0.iter().any(|n| n == name) {
            self.0.push(name.to_string());
        }
    }

    pub fn take(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut n = 2;
        while self.0.contains(&candidate) {
            candidate = format!("{name}_{n}");
            n += 1;
        }
        self.0.push(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers() {
        assert_eq!(
            pascal("StringTransform:JoinTop", "N"),
            "StringTransformJoinTop"
        );
        assert_eq!(pascal("begin", "N"), "Begin");
        assert_eq!(pascal("Agent:ParentAgent", "N"), "AgentParentAgent");
        assert_eq!(pascal("message_Reply", "N"), "MessageReply");
        assert_eq!(pascal("generate:0", "N"), "Generate0");
        assert_eq!(pascal("0abc", "N"), "N0abc");
        assert_eq!(pascal("分类", "Node3"), "Node3");
        assert_eq!(snake("_ERROR", "o"), "error");
        assert_eq!(snake("_created_time", "o"), "created_time");
        assert_eq!(snake("type", "o"), "type_");
        assert_eq!(snake("structuredContent", "o"), "structured_content");
        assert_eq!(snake("类型", "output_4"), "output_4");
        assert_eq!(
            screaming("StringTransform:JoinTop", "N"),
            "STRING_TRANSFORM_JOIN_TOP"
        );
        let mut u = Unique::default();
        assert_eq!(u.take("a".into()), "a");
        assert_eq!(u.take("a".into()), "a_2");
        assert_eq!(u.take("a".into()), "a_3");
    }
}
