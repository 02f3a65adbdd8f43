//! Python's `string.Template.safe_substitute`, which RAGFlow applies to MCP header names and
//! values: `$name` and `${name}` are replaced when known and kept otherwise, `$$` is `$`.

use regex::{Captures, Regex};
use std::collections::BTreeMap;
use std::sync::LazyLock;

static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\$(?:(\$)|([_a-z][_a-z0-9]*)|\{([_a-z][_a-z0-9]*)\})").expect("valid pattern")
});

pub fn safe_substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    PATTERN
        .replace_all(text, |c: &Captures| {
            if c.get(1).is_some() {
                return "$".to_string();
            }
            let name = c.get(2).or_else(|| c.get(3)).map_or("", |m| m.as_str());
            match vars.get(name) {
                Some(v) => v.clone(),
                None => c[0].to_string(),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python() {
        // Python: Template("$a ${a}x $$a $b ${b} $ $1").safe_substitute(a="A")
        let vars = [("a".to_string(), "A".to_string())].into();
        assert_eq!(
            safe_substitute("$a ${a}x $$a $b ${b} $ $1", &vars),
            "A Ax $a $b ${b} $ $1"
        );
    }
}
