//! Rewriting component ids wherever a canvas mentions them.
//!
//! Shared by RAGFlow's load-time migration (`PDFGenerator:x` → `DocGenerator:x`) and the v1↔v2
//! converters, which rename every id.

use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::LazyLock;

/// RAGFlow's migration pattern for a brace-wrapped reference (`agent/dsl_migration.py`).
static BRACED_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\{+\s*)([A-Za-z0-9:_-]+)(@[A-Za-z0-9_.-]+)(\s*\}+)").expect("valid pattern")
});

/// A bare selector such as `Agent:X@content` or `{Agent:X@content}` filling a whole string.
static SELECTOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([\s{]*)([A-Za-z0-9:_-]+)(@[^\s{}]*)([\s}]*)$").expect("valid pattern")
});

/// An id renaming, looked up case-insensitively (ids are compared that way).
#[derive(Clone, Debug, Default)]
pub struct IdMap {
    by_lower: HashMap<String, String>,
    /// Also rewrite whole-string selectors (`cpn@var` without braces). RAGFlow's own migration
    /// does not; the v1↔v2 converters must, or Switch/Iteration selectors would dangle.
    pub selectors: bool,
}

impl IdMap {
    pub fn new(selectors: bool) -> Self {
        IdMap {
            by_lower: HashMap::new(),
            selectors,
        }
    }

    pub fn insert(&mut self, from: &str, to: &str) {
        self.by_lower.insert(from.to_lowercase(), to.to_string());
    }

    pub fn is_empty(&self) -> bool {
        self.by_lower.is_empty()
    }

    /// The new id for `id`, when it is renamed.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.by_lower.get(&id.to_lowercase()).map(String::as_str)
    }

    /// `id` renamed, or unchanged.
    pub fn apply(&self, id: &str) -> String {
        self.get(id).unwrap_or(id).to_string()
    }

    /// Rewrite one string: an exact id, a whole-string selector, and every braced reference.
    pub fn rewrite_str(&self, s: &str) -> Option<String> {
        if let Some(new) = self.get(s) {
            return Some(new.to_string());
        }
        if self.selectors {
            if let Some(c) = SELECTOR.captures(s) {
                if let Some(new) = self.get(&c[2]) {
                    return Some(format!("{}{}{}{}", &c[1], new, &c[3], &c[4]));
                }
            }
        }
        let mut changed = false;
        let out = BRACED_REF.replace_all(s, |c: &regex::Captures| match self.get(&c[2]) {
            Some(new) => {
                changed = true;
                format!("{}{}{}{}", &c[1], new, &c[3], &c[4])
            }
            None => c[0].to_string(),
        });
        changed.then(|| out.into_owned())
    }

    /// Rewrite every string inside a JSON value.
    pub fn rewrite_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Some(new) = self.rewrite_str(s) {
                    *s = new;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.rewrite_value(i)),
            Value::Object(map) => map.values_mut().for_each(|i| self.rewrite_value(i)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(selectors: bool) -> IdMap {
        let mut m = IdMap::new(selectors);
        m.insert("PDFGenerator:A", "DocGenerator:A");
        m
    }

    #[test]
    fn rewrites_exact_ids_and_braced_references() {
        let m = map(false);
        assert_eq!(
            m.rewrite_str("PDFGenerator:A").as_deref(),
            Some("DocGenerator:A")
        );
        assert_eq!(
            m.rewrite_str("see {{ PDFGenerator:A@download }} and {x@y}")
                .as_deref(),
            Some("see {{ DocGenerator:A@download }} and {x@y}")
        );
        assert_eq!(m.rewrite_str("PDFGenerator:A@download"), None);
        assert_eq!(m.rewrite_str("unrelated"), None);
    }

    #[test]
    fn rewrites_selectors_when_asked() {
        let m = map(true);
        assert_eq!(
            m.rewrite_str("pdfgenerator:a@download.0").as_deref(),
            Some("DocGenerator:A@download.0")
        );
    }
}
