//! Putting values into text, each way RAGFlow does it (BS §10.6): `get_value_with_variable`,
//! `string_format`, input elements, and Python's `re.sub` replacement templates.

use super::context::NodeCx;
use super::error::RunError;
use super::read_bound::iteration_item_of;
use super::state::RunState;
use crate::read_bound::{FindGlobal, ReadBound};
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_frontend::refs::{
    alias_refs, template_refs, template_refs_exact_case, Alias, TemplateMatch,
};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

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
    value_with_template(cx, &Template::new(text)).await
}

/// [`value_with_variable`] for a pre-scanned template.
pub async fn value_with_template(cx: &NodeCx<'_>, tpl: &Template) -> Result<String, RunError> {
    let text = tpl.text();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (span, i) in tpl.matches() {
        out.push_str(&text[last..span.start]);
        let v = consume(tpl.read(cx, *i)?).await?;
        match v {
            Json::Null => {}
            Json::String(s) => out.push_str(&s),
            other => out.push_str(&py::json_dumps(&other)),
        }
        last = span.end;
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

/// One input element (`get_input_elements_from_text`), borrowing its names from the template
/// and the canvas.
#[derive(Clone, Debug)]
pub struct Element<'a> {
    /// The expression (`cpn@var`, `sys.x`, or an alias `item`).
    pub exp: &'a str,
    pub value: Val,
    /// The component id for component references (`""` for globals).
    pub cpn_id: &'a str,
}

/// A Message-style script with every `{exp}` replaced by its safe name (`@`, `:`, `.` → `_`),
/// and the safe names in element order. Both depend only on the text, so they are computed once
/// per template (and per alias context).
#[derive(Clone, Debug)]
pub struct Renamed {
    pub script: String,
    pub names: Vec<String>,
    /// Whether `script` is Jinja (`is_jinja`), which only the text decides.
    pub jinja: bool,
    /// Per name, a substring searcher built once: the merge loop looks each name up in a text
    /// that grows with every substitution.
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// Where the first name occurs in `script`: the first substitution always works on the
    /// script itself, so it needs no search.
    first_hits: Vec<usize>,
}

impl Renamed {
    fn new(script: String, names: Vec<String>) -> Self {
        let finders: Vec<_> = names
            .iter()
            .map(|n| memchr::memmem::Finder::new(n.as_bytes()).into_owned())
            .collect();
        let first_hits = match finders.first() {
            Some(f) if !f.needle().is_empty() => f.find_iter(script.as_bytes()).collect(),
            _ => Vec::new(),
        };
        Renamed {
            jinja: super::jinja::is_jinja(&script),
            finders,
            first_hits,
            script,
            names,
        }
    }

    /// `text.replace(names[i], value)`, or `None` when the name does not occur.
    pub fn replace(&self, i: usize, text: &str, value: &str) -> Option<String> {
        let finder = self.finders.get(i)?;
        let name_len = finder.needle().len();
        if name_len == 0 {
            return Some(text.replace("", value));
        }
        let mut hits = finder.find_iter(text.as_bytes()).peekable();
        hits.peek()?;
        Some(splice(text, hits, name_len, value))
    }

    /// `script.replace(names[0], value)` (or the script itself when the name does not occur).
    pub fn replace_first_in_script(&self, value: &str) -> String {
        match self.finders.first() {
            Some(f) if f.needle().is_empty() => self.script.replace("", value),
            Some(f) => splice(
                &self.script,
                self.first_hits.iter().copied(),
                f.needle().len(),
                value,
            ),
            None => self.script.clone(),
        }
    }
}

/// `text` with the `len` bytes at each of `hits` replaced by `value`.
fn splice(text: &str, hits: impl Iterator<Item = usize>, len: usize, value: &str) -> String {
    let mut out = String::with_capacity(text.len() + value.len());
    let mut last = 0;
    for at in hits {
        out.push_str(&text[last..at]);
        out.push_str(value);
        last = at + len;
    }
    out.push_str(&text[last..]);
    out
}

/// A text with its reference matches found once, when the canvas is loaded (RAGFlow rescans the
/// text every time; the matches never change), and, in a compiled program, each reference's
/// binding.
#[derive(Clone, Debug, Default)]
pub struct Template {
    text: String,
    /// Every match in order: its span and the index of its expression in `exprs`.
    matches: Vec<(Range<usize>, usize)>,
    /// Distinct expressions in first-occurrence order.
    exprs: Vec<String>,
    /// Per expression, the length of its component id (the text before `@`; 0 for globals).
    cpn_id_lens: Vec<usize>,
    aliases: Vec<Alias>,
    /// `exprs` then the aliases' names, shared with every inputs table that records them.
    keys: Vec<Arc<str>>,
    /// Per expression, then per alias: the binding, when the program was built with one.
    bound: Vec<Option<Bound>>,
    /// The input elements' components, when every reference is bound or there is none (so they
    /// are known without evaluating anything).
    deps: Option<Vec<Target>>,
    /// [`Renamed`] without and with the iteration aliases, computed on first use.
    renamed: [OnceLock<Renamed>; 2],
}

impl Template {
    /// RAGFlow's template grammar (case-insensitive), with iteration aliases.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let mut t = Template::scan(text, template_refs);
        for (_, a) in alias_refs(&t.text) {
            if !t.aliases.contains(&a) && !t.exprs.iter().any(|e| e == a.output()) {
                t.aliases.push(a);
                t.keys.push(Arc::from(a.output()));
            }
        }
        t.complete_without_references()
    }

    /// The grammar matched case-sensitively (Message streaming, Invoke's templates).
    pub fn exact_case(text: impl Into<String>) -> Self {
        Template::scan(text.into(), template_refs_exact_case).complete_without_references()
    }

    /// A text without references or aliases has nothing to resolve, by name or by binding:
    /// it is as bound as it will ever be, with no dependencies.
    fn complete_without_references(mut self) -> Self {
        if self.keys.is_empty() {
            self.deps = Some(Vec::new());
        }
        self
    }

    fn scan(text: String, find: fn(&str) -> Vec<TemplateMatch>) -> Self {
        let mut exprs: Vec<String> = Vec::new();
        let mut matches = Vec::new();
        for m in find(&text) {
            let exp = m.expr(&text);
            let i = match exprs.iter().position(|e| e == exp) {
                Some(i) => i,
                None => {
                    exprs.push(exp.to_string());
                    exprs.len() - 1
                }
            };
            matches.push((m.span, i));
        }
        Template {
            text,
            matches,
            cpn_id_lens: exprs.iter().map(|e| e.find('@').unwrap_or(0)).collect(),
            keys: exprs.iter().map(|e| Arc::from(e.as_str())).collect(),
            exprs,
            aliases: Vec::new(),
            bound: Vec::new(),
            deps: None,
            renamed: Default::default(),
        }
    }

    /// Bind every reference `r` resolves; aliases only resolve for a node inside an Iteration.
    pub fn bind(&mut self, r: &(impl Resolve + ?Sized)) {
        self.bound = self
            .exprs
            .iter()
            .map(|e| r.resolve(e))
            .chain(self.aliases.iter().map(|a| r.resolve(a.output())))
            .collect();
        let bound_all = self.bound.iter().all(Option::is_some);
        self.deps = bound_all.then(|| {
            self.bound
                .iter()
                .flatten()
                .filter_map(Bound::node)
                .map(Target::Node)
                .collect()
        });
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every match: span and expression index.
    pub fn matches(&self) -> &[(Range<usize>, usize)] {
        &self.matches
    }

    /// The distinct expressions.
    pub fn exprs(&self) -> &[String] {
        &self.exprs
    }

    /// The element keys (`get_input_elements()` keys) for a node in or out of an Iteration.
    pub fn keys(&self, in_iteration: bool) -> &[Arc<str>] {
        if in_iteration {
            &self.keys
        } else {
            &self.keys[..self.exprs.len()]
        }
    }

    /// The script renamed for `Message.get_kwargs` when the elements are `keys(in_iteration)`.
    pub fn renamed(&self, in_iteration: bool) -> &Renamed {
        self.renamed[usize::from(in_iteration)].get_or_init(|| {
            let renames: Vec<(String, String)> = self
                .keys(in_iteration)
                .iter()
                .map(|exp| {
                    let name = exp
                        .chars()
                        .map(|c| if matches!(c, '@' | ':' | '.') { '_' } else { c })
                        .collect();
                    (exp.to_string(), name)
                })
                .collect();
            Renamed::new(
                replace_braced(&self.text, &renames),
                renames.into_iter().map(|(_, name)| name).collect(),
            )
        })
    }

    /// The binding of expression `i` (aliases follow the expressions).
    pub fn binding(&self, i: usize) -> Option<&Bound> {
        self.bound.get(i).and_then(Option::as_ref)
    }

    /// When every reference is bound (a compiled program), the number of elements
    /// (`keys(in_iteration)`, aliases last) once every value has been checked readable and not
    /// a stream. `None` when a reference is unbound (read them by name) or a value is a stream
    /// (it must be collected first).
    pub fn bound_ready(&self, s: &RunState) -> Option<Result<usize, RunError>> {
        self.deps.as_ref()?;
        for b in self.bound.iter().flatten() {
            match b.peek(s) {
                Ok(Some(_)) => {}
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(self.bound.len()))
    }

    /// `get_variable_value` of expression `i`.
    pub fn read(&self, cx: &NodeCx<'_>, i: usize) -> Result<Val, RunError> {
        self.read_in(&cx.state(), &cx.shared.meta, i)
    }

    /// [`Template::read`] in a state the caller has locked.
    fn read_in(&self, s: &RunState, meta: &CanvasMeta, i: usize) -> Result<Val, RunError> {
        match self.binding(i) {
            Some(b) => b.read(s),
            None => s.get_variable_value(meta, &self.exprs[i]),
        }
    }

    /// The components of the input elements (`_cpn_id`), as the deferral check needs them.
    /// Evaluates the references as `get_input_elements()` does, unless all are bound (then
    /// only a missing global can fail, as it would).
    pub fn dependencies(&self, cx: &NodeCx<'_>) -> Result<Cow<'_, [Target]>, RunError> {
        if let Some(deps) = &self.deps {
            if self
                .bound
                .iter()
                .any(|b| matches!(b, Some(Bound::Global(_))))
            {
                let s = cx.state();
                for b in self.bound.iter().flatten() {
                    if let Bound::Global(g) = b {
                        if g.find(&s.globals).is_none() {
                            return Err(RunError::key_error(&g.name));
                        }
                    }
                }
            }
            return Ok(Cow::Borrowed(deps));
        }
        let meta = &cx.shared.meta;
        Ok(Cow::Owned(
            elements_of(cx, self)?
                .into_iter()
                .filter(|e| !e.cpn_id.is_empty())
                .map(|e| match meta.find(e.cpn_id) {
                    Some(n) => Target::Node(n),
                    None => Target::Missing(e.cpn_id.to_string()),
                })
                .collect(),
        ))
    }
}

/// `get_input_elements_from_text(txt)`: references in first-occurrence order, each evaluated now
/// (which can fail), then iteration aliases when the node sits in an Iteration.
pub fn elements_from_text(cx: &NodeCx<'_>, txt: &str) -> Result<Vec<(String, Val)>, RunError> {
    let tpl = Template::new(txt);
    Ok(elements_of(cx, &tpl)?
        .into_iter()
        .map(|e| (e.exp.to_string(), e.value))
        .collect())
}

/// [`elements_from_text`] for a pre-scanned template.
pub fn elements_of<'a>(
    cx: &'a NodeCx<'_>,
    tpl: &'a Template,
) -> Result<Vec<Element<'a>>, RunError> {
    elements_in(&cx.state(), &cx.shared.meta, cx.node, tpl)
}

/// [`elements_of`] in a state the caller has locked.
pub fn elements_in<'a>(
    s: &RunState,
    meta: &'a CanvasMeta,
    node: NodeId,
    tpl: &'a Template,
) -> Result<Vec<Element<'a>>, RunError> {
    let mut out: Vec<Element> = Vec::with_capacity(tpl.exprs.len());
    for (i, exp) in tpl.exprs.iter().enumerate() {
        let cpn_id = &exp[..tpl.cpn_id_lens[i]];
        // RAGFlow also reads `<cpn>@_references` here, which can only fail when this does.
        let value = tpl.read_in(s, meta, i)?;
        out.push(Element { exp, value, cpn_id });
    }
    if tpl.aliases.is_empty() {
        return Ok(out);
    }
    let item = match tpl.binding(tpl.exprs.len()).and_then(Bound::node) {
        Some(item) => item,
        None => match iteration_item_of(meta, node) {
            Some(item) => item,
            None => return Ok(out),
        },
    };
    let item_id = &meta.node(item).id;
    for (j, alias) in tpl.aliases.iter().enumerate() {
        let exp = alias.output();
        let value = match tpl.binding(tpl.exprs.len() + j) {
            Some(b) => b.read(s)?,
            None => s.get_variable_value(meta, &format!("{item_id}@{exp}"))?,
        };
        out.push(Element {
            exp,
            value,
            cpn_id: item_id,
        });
    }
    Ok(out)
}

/// Whether the node's parent is an Iteration (so aliases resolve).
pub fn in_iteration(cx: &NodeCx<'_>) -> bool {
    iteration_item_of(&cx.shared.meta, cx.node).is_some()
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

    /// A text without references has no dependencies to evaluate in either back-end; one with
    /// references waits for binding or resolution by name.
    #[test]
    fn a_text_without_references_is_complete() {
        assert_eq!(Template::new("plain").deps, Some(Vec::new()));
        assert_eq!(Template::exact_case("plain").deps, Some(Vec::new()));
        assert_eq!(Template::new("{a@b} plain").deps, None);
        assert_eq!(Template::exact_case("{sys.query}").deps, None);
    }

    #[test]
    fn renamed_replace_is_str_replace() {
        let t = Template::new("{a@b} and {a@b}, {sys.query}!");
        let r = t.renamed(false);
        assert_eq!(r.script, "a_b and a_b, sys_query!");
        assert_eq!(r.names, ["a_b", "sys_query"]);
        assert!(!r.jinja);
        for (text, value) in [
            ("a_b and a_b, sys_query!", "xa_bx"),
            ("no match here", "v"),
            ("a_ba_b", ""),
            ("ünïcode a_b ✓", "→"),
        ] {
            let expected = text.contains("a_b").then(|| text.replace("a_b", value));
            assert_eq!(r.replace(0, text, value), expected, "{text:?}");
        }
        assert_eq!(r.replace(2, "a_b", "v"), None, "no such name");
        for value in ["", "v", "a_b", "sys_query"] {
            assert_eq!(
                r.replace_first_in_script(value),
                r.script.replace("a_b", value)
            );
        }
        assert_eq!(
            Template::new("plain")
                .renamed(false)
                .replace_first_in_script("v"),
            "plain"
        );
        assert!(Template::new("{{ x }} {a@b}").renamed(false).jinja);
    }

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

/// Python's `for exp, name in renames: script = script.replace("{" + exp + "}", name)`, in one
/// pass instead of one scan per reference (a Join over 1000 outputs is otherwise quadratic).
///
/// Every `{exp}` is a brace-free span between a `{` and the next `}`, so occurrences never
/// overlap and one left-to-right pass replaces exactly the original ones. The sequential loop
/// can also replace an occurrence that an earlier replacement *created* (`{{a@b}}` becomes
/// `{a_b}`); that leaves a `{exp}` in the one-pass result, and only then the loop is replayed.
pub fn replace_braced(script: &str, renames: &[(String, String)]) -> String {
    if renames.len() < 4 {
        return replace_sequentially(script, renames);
    }
    let mut first: std::collections::HashMap<&str, &str> =
        std::collections::HashMap::with_capacity(renames.len());
    for (exp, name) in renames {
        first.entry(exp.as_str()).or_insert(name.as_str());
    }
    let once = replace_spans(script, |inner| first.get(inner).copied());
    let mut leftover = false;
    replace_spans(&once, |inner| {
        leftover |= first.contains_key(inner);
        None
    });
    if leftover {
        replace_sequentially(script, renames)
    } else {
        once
    }
}

fn replace_sequentially(script: &str, renames: &[(String, String)]) -> String {
    let mut script = script.to_string();
    for (exp, name) in renames {
        script = script.replace(&format!("{{{exp}}}"), name);
    }
    script
}

/// Rewrites every brace-free `{inner}` span for which `with` gives a replacement.
fn replace_spans<'a>(text: &str, mut with: impl FnMut(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(['{', '}']) else {
            break;
        };
        if after.as_bytes()[close] == b'{' {
            out.push_str(&rest[..open + 1 + close]);
            rest = &rest[open + 1 + close..];
            continue;
        }
        out.push_str(&rest[..open]);
        match with(&after[..close]) {
            Some(name) => out.push_str(name),
            None => out.push_str(&rest[open..open + close + 2]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod replace_tests {
    use super::{replace_braced, replace_sequentially};
    use proptest::prelude::*;

    fn renames(exps: &[&str]) -> Vec<(String, String)> {
        exps.iter()
            .map(|e| (e.to_string(), e.replace(['@', ':', '.'], "_")))
            .collect()
    }

    #[test]
    fn one_pass_matches_the_sequential_loop() {
        let r = renames(&["a@b", "c:d@e", "sys.query", "a_b", "x@y"]);
        for script in [
            "{a@b} and {c:d@e}, {sys.query}{x@y}",
            "{{a@b}}",
            "{ {a@b} }",
            "{a@b}{a@b}}{",
            "no refs at all",
            "{unknown@ref} {a@b",
        ] {
            assert_eq!(
                replace_braced(script, &r),
                replace_sequentially(script, &r),
                "{script}"
            );
        }
    }

    proptest! {
        #[test]
        fn one_pass_equals_sequential(script in "[{}ab@_ .x]{0,40}") {
            let r = renames(&["a@b", "a_b", "b", "x", "a", "b.x"]);
            prop_assert_eq!(replace_braced(&script, &r), replace_sequentially(&script, &r));
        }
    }
}
