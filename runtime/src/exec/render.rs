//! Putting values into text, each way RAGFlow does it (BS §10.6): `get_value_with_variable`,
//! `string_format`, input elements, and Python's `re.sub` replacement templates.

use super::{NodeCx, RunError};
use crate::frontend::catalog::Kind;
use crate::frontend::refs::{alias_refs, template_refs, Alias};
use crate::value::{py, Json, Map, Val};

/// A value read for rendering: JSON, or the text a consumed stream produced.
pub async fn consume(v: Val) -> Result<Json, RunError> {
    match v {
        Val::Json(j) => Ok(j),
        Val::Stream(s) => Ok(Json::String(s.collect().await?)),
    }
}

/// `get_value_with_variable(text)`: every reference match replaced by `""` for None, the text
/// of a stream, a string as is, anything else as `json.dumps`.
pub async fn value_with_variable(cx: &NodeCx<'_>, text: &str) -> Result<String, RunError> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in template_refs(text) {
        out.push_str(&text[last..m.span.start]);
        let v = consume(cx.value(m.expr(text))?).await?;
        match v {
            Json::Null => {}
            Json::String(s) => out.push_str(&s),
            other => out.push_str(&py::json_dumps(&other)),
        }
        last = m.span.end;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// `string_format(content, kv)`: every literal `{exp}` (one brace pair) replaced by `str(v)`.
pub fn string_format(content: &str, kv: &[(String, Json)]) -> String {
    let mut content = content.to_string();
    for (k, v) in kv {
        let needle = format!("{{{k}}}");
        let rep = match v {
            Json::Null => String::new(),
            other => py::str_of(other),
        };
        content = content.replace(&needle, &rep);
    }
    content
}

/// One input element (`get_input_elements_from_text`).
#[derive(Clone, Debug)]
pub struct Element {
    /// The expression (`cpn@var`, `sys.x`, or an alias `item`).
    pub exp: String,
    pub value: Val,
    /// The component id for component references (`""` for globals).
    pub cpn_id: String,
}

/// A text with its reference matches found once, when the canvas is loaded: RAGFlow rescans
/// the text every time; the matches never change.
#[derive(Clone, Debug, Default)]
pub struct Template {
    text: String,
    /// Distinct expressions in first-occurrence order.
    exprs: Vec<String>,
    aliases: Vec<Alias>,
}

impl Template {
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let mut exprs: Vec<String> = Vec::new();
        for m in template_refs(&text) {
            let exp = m.expr(&text);
            if !exprs.iter().any(|e| e == exp) {
                exprs.push(exp.to_string());
            }
        }
        let mut aliases = Vec::new();
        for (_, a) in alias_refs(&text) {
            if !aliases.contains(&a) && !exprs.iter().any(|e| e == a.output()) {
                aliases.push(a);
            }
        }
        Template {
            text,
            exprs,
            aliases,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The element keys (`get_input_elements()` keys) for a node in or out of an Iteration.
    pub fn keys(&self, in_iteration: bool) -> Vec<String> {
        let mut keys = self.exprs.clone();
        if in_iteration {
            keys.extend(self.aliases.iter().map(|a| a.output().to_string()));
        }
        keys
    }
}

/// `get_input_elements_from_text(txt)`: references in first-occurrence order, each evaluated now
/// (which can fail), then iteration aliases when the node sits in an Iteration.
pub fn elements_from_text(cx: &NodeCx<'_>, txt: &str) -> Result<Vec<Element>, RunError> {
    elements_of(cx, &Template::new(txt))
}

/// [`elements_from_text`] for a pre-scanned template.
pub fn elements_of(cx: &NodeCx<'_>, tpl: &Template) -> Result<Vec<Element>, RunError> {
    let mut out: Vec<Element> = Vec::with_capacity(tpl.exprs.len());
    for exp in &tpl.exprs {
        let cpn_id = match exp.split_once('@') {
            Some((c, _)) if !c.is_empty() => c.to_string(),
            _ => String::new(),
        };
        // RAGFlow also reads `<cpn>@_references` here, which can only fail when this does.
        let value = cx.value(exp)?;
        out.push(Element {
            exp: exp.clone(),
            value,
            cpn_id,
        });
    }
    if tpl.aliases.is_empty() {
        return Ok(out);
    }
    let Some(item) = iteration_item_of(cx) else {
        return Ok(out);
    };
    let item_id = cx.shared.meta.node(item).id.clone();
    for alias in &tpl.aliases {
        let exp = alias.output();
        let value = cx.value(&format!("{item_id}@{exp}"))?;
        out.push(Element {
            exp: exp.to_string(),
            value,
            cpn_id: item_id.clone(),
        });
    }
    Ok(out)
}

/// Whether the node's parent is an Iteration (so aliases resolve).
pub fn in_iteration(cx: &NodeCx<'_>) -> bool {
    iteration_item_of(cx).is_some()
}

/// The IterationItem whose aliases this node's text may use (parent is an Iteration).
fn iteration_item_of(cx: &NodeCx<'_>) -> Option<crate::frontend::ir::NodeId> {
    let meta = &cx.shared.meta;
    let parent = cx.meta().parent?;
    if meta.node(parent).kind != Kind::Iteration {
        return None;
    }
    meta.nodes
        .iter()
        .enumerate()
        .find(|(_, n)| n.parent == Some(parent) && n.kind == Kind::IterationItem)
        .map(|(i, _)| crate::frontend::ir::NodeId(i as u32))
}

/// `str(v)` of an element value for `string_format` (streams are not consumed by prompt
/// building: Python would print the partial object; RAGFlow never gets there in practice).
pub fn element_str(v: &Val) -> Json {
    match v {
        Val::Json(j) => j.clone(),
        Val::Stream(_) => Json::String("<stream>".into()),
    }
}

/// Expand a Python `re.sub` replacement template for a match without groups.
///
/// Backslash escapes are interpreted (`\n`, `\\`, …); an escaped ASCII letter that is not a
/// known escape fails with `bad escape \X at position N`, a group reference with
/// `invalid group reference N at position P`.
pub fn expand_replacement(repl: &str, whole: &str) -> Result<String, RunError> {
    if !repl.contains('\\') {
        return Ok(repl.to_string());
    }
    let chars: Vec<char> = repl.chars().collect();
    let mut out = String::with_capacity(repl.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 >= chars.len() {
            if c == '\\' {
                return Err(RunError::msg(format!(
                    "bad escape (end of pattern) at position {i}"
                )));
            }
            out.push(c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' => out.push('\\'),
            'g' => {
                // \g<0> is the whole match; any other group does not exist.
                let rest: String = chars[i + 2..].iter().collect();
                if let Some(close) = rest.strip_prefix('<').and_then(|r| r.find('>')) {
                    let name = &rest[1..=close];
                    if name == "0" {
                        out.push_str(whole);
                        i += 2 + close + 2;
                        continue;
                    }
                    return Err(RunError::msg(format!(
                        "invalid group reference {name} at position {}",
                        i + 3
                    )));
                }
                return Err(RunError::msg(format!("missing < at position {}", i + 2)));
            }
            '0'..='9' => {
                // Octal escapes (\0, \012) or a group reference (\1 …).
                let digits: String = chars[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|d| d.is_ascii_digit())
                    .collect();
                let octal = e == '0'
                    || (digits.len() == 3 && digits.chars().all(|d| ('0'..='7').contains(&d)));
                if octal {
                    let od: String = digits
                        .chars()
                        .take_while(|d| ('0'..='7').contains(d))
                        .take(3)
                        .collect();
                    let code = u32::from_str_radix(&od, 8).unwrap_or(0);
                    if code > 0o377 {
                        return Err(RunError::msg(format!(
                            "octal escape value \\{od} outside of range 0-0o377 at position {i}"
                        )));
                    }
                    out.push(char::from_u32(code).unwrap_or('\0'));
                    i += 1 + od.len();
                    continue;
                }
                let group: String = chars[i + 1..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_digit())
                    .collect();
                return Err(RunError::msg(format!(
                    "invalid group reference {group} at position {}",
                    i + 1
                )));
            }
            c if c.is_ascii_alphabetic() => {
                return Err(RunError::msg(format!("bad escape \\{c} at position {i}")));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
        i += 2;
    }
    Ok(out)
}

/// `re.sub(pattern, repl, content)` for a pattern that is a literal (after escaping).
pub fn re_sub_literal(content: &str, needle: &str, repl: &str) -> Result<String, RunError> {
    if !content.contains(needle) {
        // Python still validates the template lazily only on a match: nothing to do.
        return Ok(content.to_string());
    }
    let expanded = expand_replacement(repl, needle)?;
    Ok(content.replace(needle, &expanded))
}

/// Render a map as key order-preserving JSON object.
pub fn to_object(pairs: Vec<(String, Json)>) -> Json {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Json::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_templates_behave_like_python() {
        assert_eq!(expand_replacement(r"a\nb", "x").expect("ok"), "a\nb");
        assert_eq!(expand_replacement(r"a\\b", "x").expect("ok"), r"a\b");
        assert_eq!(expand_replacement(r"\{x\}", "x").expect("ok"), r"\{x\}");
        assert_eq!(
            expand_replacement(r"C:\data", "x")
                .expect_err("bad")
                .to_string(),
            r"bad escape \d at position 2"
        );
        assert_eq!(
            expand_replacement(r"v\1", "x")
                .expect_err("bad")
                .to_string(),
            "invalid group reference 1 at position 2"
        );
        assert_eq!(expand_replacement(r"\g<0>!", "hey").expect("ok"), "hey!");
    }

    #[test]
    fn string_format_leaves_outer_braces() {
        let kv = vec![("sys.query".to_string(), Json::String("hi".into()))];
        assert_eq!(string_format("Q: {{sys.query}}", &kv), "Q: {hi}");
        assert_eq!(
            string_format("{sys.query}", &[("sys.query".into(), Json::Null)]),
            ""
        );
    }
}
