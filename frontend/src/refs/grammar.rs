//! RAGFlow's reference grammar (base-semantics.md §10.1, `ComponentBase.variable_ref_patt`).

use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// The template reference pattern, exactly RAGFlow's (case-insensitive, DOTALL).
pub static TEMPLATE_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?is)\{* *\{([a-zA-Z0-9_:]+@[A-Za-z0-9_.-]+|sys\.[A-Za-z0-9_.]+|env\.[A-Za-z0-9_.]+)\} *\}*",
    )
    .expect("valid pattern")
});

/// The same pattern without IGNORECASE: Message streaming matches `sys.`/`env.` only in lower
/// case (`re.finditer(variable_ref_patt, …, flags=re.DOTALL)`).
pub static TEMPLATE_REF_EXACT_CASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?s)\{* *\{([a-zA-Z0-9_:]+@[A-Za-z0-9_.-]+|sys\.[A-Za-z0-9_.]+|env\.[A-Za-z0-9_.]+)\} *\}*",
    )
    .expect("valid pattern")
});

/// Template references matched case-sensitively (Message streaming).
pub fn template_refs_exact_case(text: &str) -> Vec<TemplateMatch> {
    braced_matches(&TEMPLATE_REF_EXACT_CASE, text)
}

/// Iteration aliases `{item}`, `{index}`, `{result}` (RAGFlow's `iteration_alias_patt`).
pub static ALIAS_REF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)\{* *\{(item|index|result)\} *\}*").expect("valid pattern"));

/// Text that a user meant as a reference but that the grammar above does not match: spaces
/// inside the innermost braces, `-` in a component id, a misspelt prefix, ….
static LOOKS_LIKE_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\{+\s*((?:[A-Za-z0-9_:.-]+@[A-Za-z0-9_.-]+)|(?:sys|env)\.[A-Za-z0-9_.-]*)\s*\}+",
    )
    .expect("valid pattern")
});

/// What a reference expression names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// `cpn@output.path.0`: output `output` of component `cpn`, then the path walked.
    Output {
        component: String,
        output: String,
        path: Vec<String>,
    },
    /// A global key, looked up verbatim (`sys.query`, `env.counter`, or anything without `@`).
    Global(String),
}

impl Expr {
    /// Parse an expression the way `Canvas.get_variable_value` does: strip braces and spaces,
    /// split at the first `@`, then the output name at the first `.`.
    pub fn parse(raw: &str) -> Expr {
        let exp = strip_like_python(raw);
        match exp.split_once('@') {
            None => Expr::Global(exp.to_string()),
            Some((cpn, var)) => {
                let mut parts = var.splitn(2, '.');
                let output = parts.next().unwrap_or("").to_string();
                let path = parts
                    .next()
                    .filter(|rest| !rest.is_empty())
                    .map(|rest| rest.split('.').map(str::to_string).collect())
                    .unwrap_or_default();
                Expr::Output {
                    component: cpn.to_string(),
                    output,
                    path,
                }
            }
        }
    }

    pub fn component(&self) -> Option<&str> {
        match self {
            Expr::Output { component, .. } => Some(component),
            Expr::Global(_) => None,
        }
    }
}

/// `exp.strip("{").strip("}").strip(" ").strip("{").strip("}")`.
pub fn strip_like_python(s: &str) -> &str {
    s.trim_matches('{')
        .trim_matches('}')
        .trim_matches(' ')
        .trim_matches('{')
        .trim_matches('}')
}

/// One template reference found in a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateMatch {
    /// The whole match, including extra braces and the spaces between brace layers.
    pub span: Range<usize>,
    /// The expression inside the innermost braces.
    pub expr_span: Range<usize>,
}

impl TemplateMatch {
    pub fn expr<'a>(&self, text: &'a str) -> &'a str {
        &text[self.expr_span.clone()]
    }
}

/// Every template reference in `text`, leftmost first, non-overlapping (Python `finditer`).
pub fn template_refs(text: &str) -> Vec<TemplateMatch> {
    braced_matches(&TEMPLATE_REF, text)
}

/// Matches of a `\{* *\{CORE\} *\}*` pattern without running the (slower) capture engine:
/// CORE never starts or ends with a brace or a space, so trimming those off the match finds it.
fn braced_matches(re: &Regex, text: &str) -> Vec<TemplateMatch> {
    if !text.contains('{') {
        return Vec::new();
    }
    re.find_iter(text)
        .map(|m| {
            let whole = m.as_str();
            let lead = whole.len() - whole.trim_start_matches(['{', ' ']).len();
            let trail = whole.len() - whole.trim_end_matches(['}', ' ']).len();
            TemplateMatch {
                span: m.range(),
                expr_span: m.start() + lead..m.end() - trail,
            }
        })
        .collect()
}

/// Every iteration alias in `text`; only the exact lower-case words are honoured by RAGFlow.
pub fn alias_refs(text: &str) -> Vec<(TemplateMatch, Alias)> {
    braced_matches(&ALIAS_REF, text)
        .into_iter()
        .filter_map(|m| {
            let alias = match m.expr(text) {
                "item" => Alias::Item,
                "index" => Alias::Index,
                "result" => Alias::Result,
                _ => return None,
            };
            Some((m, alias))
        })
        .collect()
}

fn captures_of(re: &Regex, text: &str) -> Vec<TemplateMatch> {
    re.captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let expr = c.get(1)?;
            Some(TemplateMatch {
                span: whole.range(),
                expr_span: expr.range(),
            })
        })
        .collect()
}

/// Spans of reference-like text that the grammar will not resolve, excluding anything that
/// overlaps a real reference.
pub fn inert_refs(text: &str, real: &[TemplateMatch]) -> Vec<TemplateMatch> {
    captures_of(&LOOKS_LIKE_REF, text)
        .into_iter()
        .filter(|m| {
            !real
                .iter()
                .any(|r| r.span.start < m.span.end && m.span.start < r.span.end)
        })
        .collect()
}

/// An iteration alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alias {
    Item,
    Index,
    Result,
}

impl Alias {
    pub fn output(self) -> &'static str {
        match self {
            Alias::Item => "item",
            Alias::Index => "index",
            Alias::Result => "result",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exprs(text: &str) -> Vec<&str> {
        template_refs(text).iter().map(|m| m.expr(text)).collect()
    }

    #[test]
    fn matches_like_ragflow() {
        assert_eq!(exprs("{sys.query}"), ["sys.query"]);
        assert_eq!(exprs("{{sys.query}}"), ["sys.query"]);
        assert_eq!(exprs("{ {sys.query} }"), ["sys.query"]);
        assert!(exprs("{ sys.query }").is_empty());
        assert!(exprs("{{ sys.query }}").is_empty());
        assert_eq!(exprs("{a:b_c@d-e}"), ["a:b_c@d-e"]);
        assert!(exprs("{agent-1@x}").is_empty());
        assert!(exprs("{env.a-b}").is_empty());
        assert_eq!(exprs("{SYS.query}"), ["SYS.query"]);
        let m = &template_refs("x{sys.a}}}y")[0];
        assert_eq!(m.span, 1..10);
    }

    #[test]
    fn parses_expressions() {
        assert_eq!(
            Expr::parse("{{ Agent:X@out.a.0 }}"),
            Expr::Output {
                component: "Agent:X".into(),
                output: "out".into(),
                path: vec!["a".into(), "0".into()]
            }
        );
        assert_eq!(Expr::parse("sys.query"), Expr::Global("sys.query".into()));
    }

    #[test]
    fn finds_inert_references() {
        let text = "{{ sys.query }} and {sys.query}";
        let real = template_refs(text);
        let inert = inert_refs(text, &real);
        assert_eq!(inert.len(), 1);
        assert_eq!(&text[inert[0].span.clone()], "{{ sys.query }}");
    }

    #[test]
    fn aliases_are_lower_case_only() {
        assert_eq!(alias_refs("{item} {ITEM} {{index}}").len(), 2);
    }
}
