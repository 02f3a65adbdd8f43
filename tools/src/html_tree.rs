//! A tolerant HTML element tree for pages whose structure a tool reads (Google Scholar's
//! result rows): elements with their attributes and text, nested as the tags say, with void
//! elements, raw-text elements (`script`, `style`), comments and stray end tags handled.
//!
//! Hand-written because the workspace has no HTML parser crate (`html.rs` reads pages by
//! pattern for the same reason) and the pages read here need only element nesting, classes,
//! attributes and text, not HTML5's full tree-construction rules (implied end tags of `p`,
//! table fix-ups), which `scholarly`'s BeautifulSoup with `html.parser` does not apply either.

use crate::html::unescape;
use regex::Regex;
use std::sync::LazyLock;

static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<!--.*?-->|<![^>]*>|<\?[^>]*>|<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>"#)
        .expect("valid pattern")
});
static ATTR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?"#)
        .expect("valid pattern")
});

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// A child of an element: another element (by index) or text.
#[derive(Debug)]
enum Child {
    Element(usize),
    Text(String),
}

#[derive(Debug)]
struct Element {
    tag: String,
    attrs: Vec<(String, String)>,
    parent: Option<usize>,
    children: Vec<Child>,
}

/// A parsed page; element 0 is the document root.
pub struct Doc {
    elements: Vec<Element>,
}

/// An element of a [`Doc`].
#[derive(Clone, Copy)]
pub struct El<'d> {
    doc: &'d Doc,
    id: usize,
}

impl Doc {
    pub fn parse(html: &str) -> Doc {
        let mut elements = vec![Element {
            tag: String::new(),
            attrs: Vec::new(),
            parent: None,
            children: Vec::new(),
        }];
        let mut stack = vec![0usize];
        let mut pos = 0;
        for m in TOKEN.captures_iter(html) {
            let whole = m.get(0).map_or(0..0, |w| w.range());
            if whole.start < pos {
                continue; // inside a `script` or `style` already taken as text
            }
            let current = *stack.last().unwrap_or(&0);
            if whole.start > pos {
                elements[current]
                    .children
                    .push(Child::Text(unescape(&html[pos..whole.start])));
            }
            pos = whole.end;
            let Some(tag) = m.get(2).map(|t| t.as_str().to_ascii_lowercase()) else {
                continue; // a comment, doctype or processing instruction
            };
            if m.get(1).is_some_and(|s| s.as_str() == "/") {
                if let Some(depth) = stack.iter().rposition(|e| elements[*e].tag == tag) {
                    if depth > 0 {
                        stack.truncate(depth);
                    }
                }
                continue;
            }
            let rest = m.get(3).map_or("", |r| r.as_str());
            let attrs = ATTR
                .captures_iter(rest)
                .map(|a| {
                    let value = a
                        .get(2)
                        .or_else(|| a.get(3))
                        .or_else(|| a.get(4))
                        .map_or(String::new(), |v| unescape(v.as_str()));
                    (a[1].to_ascii_lowercase(), value)
                })
                .collect();
            let id = elements.len();
            elements.push(Element {
                tag: tag.clone(),
                attrs,
                parent: Some(current),
                children: Vec::new(),
            });
            elements[current].children.push(Child::Element(id));
            let self_closing = rest.trim_end().ends_with('/');
            if tag == "script" || tag == "style" {
                // Raw text up to the matching end tag.
                let lower = html[pos..].to_ascii_lowercase();
                let (text_end, next) = match lower.find(&format!("</{tag}")) {
                    Some(k) => {
                        let close = lower[k..].find('>').map_or(lower.len(), |g| k + g + 1);
                        (pos + k, pos + close)
                    }
                    None => (html.len(), html.len()),
                };
                elements[id]
                    .children
                    .push(Child::Text(html[pos..text_end].to_string()));
                pos = next;
            } else if !VOID.contains(&tag.as_str()) && !self_closing {
                stack.push(id);
            }
        }
        if pos < html.len() {
            let current = *stack.last().unwrap_or(&0);
            elements[current]
                .children
                .push(Child::Text(unescape(&html[pos..])));
        }
        Doc { elements }
    }

    pub fn root(&self) -> El<'_> {
        El { doc: self, id: 0 }
    }
}

impl<'d> El<'d> {
    fn element(&self) -> &'d Element {
        &self.doc.elements[self.id]
    }

    pub fn tag(&self) -> &'d str {
        &self.element().tag
    }

    pub fn attr(&self, name: &str) -> Option<&'d str> {
        self.element()
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `class` attribute's words.
    pub fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|w| w == class))
    }

    /// The exact `class` attribute (BeautifulSoup's `class_="a b"` match).
    pub fn class_is(&self, classes: &str) -> bool {
        self.attr("class").is_some_and(|c| c.trim() == classes)
    }

    pub fn parent(&self) -> Option<El<'d>> {
        self.element().parent.map(|id| El { doc: self.doc, id })
    }

    /// The descendants in document order.
    pub fn descendants(&self) -> Vec<El<'d>> {
        let mut out = Vec::new();
        let mut todo: Vec<usize> = self.child_ids().into_iter().rev().collect();
        while let Some(id) = todo.pop() {
            out.push(El { doc: self.doc, id });
            let el = El { doc: self.doc, id };
            todo.extend(el.child_ids().into_iter().rev());
        }
        out
    }

    fn child_ids(&self) -> Vec<usize> {
        self.element()
            .children
            .iter()
            .filter_map(|c| match c {
                Child::Element(id) => Some(*id),
                Child::Text(_) => None,
            })
            .collect()
    }

    /// The first descendant that is a `tag` element (any tag when `""`) with `class`.
    pub fn find(&self, tag: &str, class: &str) -> Option<El<'d>> {
        self.find_all(tag, class).into_iter().next()
    }

    /// Every descendant that is a `tag` element (any tag when `""`) with `class` (any when
    /// `""`).
    pub fn find_all(&self, tag: &str, class: &str) -> Vec<El<'d>> {
        self.descendants()
            .into_iter()
            .filter(|e| {
                (tag.is_empty() || e.tag() == tag) && (class.is_empty() || e.has_class(class))
            })
            .collect()
    }

    /// All text inside, in document order (BeautifulSoup's `.text`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut todo: Vec<&Child> = self.element().children.iter().rev().collect();
        while let Some(c) = todo.pop() {
            match c {
                Child::Text(t) => out.push_str(t),
                Child::Element(id) => {
                    todo.extend(self.doc.elements[*id].children.iter().rev());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nests_tolerantly() {
        let doc = Doc::parse(
            r#"<div class="a b"><p>x<br>y &amp; <b>z</b></i></p><script>if (a<b) {}</script><img src='q.png'/></div>tail"#,
        );
        let div = doc.root().find("div", "b").map(|d| d.text());
        assert_eq!(div.as_deref(), Some("xy & zif (a<b) {}"));
        assert_eq!(
            doc.root().find("img", "").and_then(|i| i.attr("src")),
            Some("q.png")
        );
        assert_eq!(doc.root().text(), "xy & zif (a<b) {}tail");
    }
}
