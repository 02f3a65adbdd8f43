//! Per-kind extraction of references and routes from component parameters.
//!
//! Which parameter holds a template, which a bare selector and which a list of component ids
//! follows RAGFlow's components (components.md, tools.md): the same knowledge drives the
//! checker, the interpreter and the code generator.

use super::grammar::{alias_refs, inert_refs, strip_like_python, template_refs, Alias, Expr};
use crate::catalog::{tool_meta::tool_meta, Kind};
use crate::diagnostic::pointer_join;
use crate::document::{Document, DslComponent};
use regex::Regex;
use serde_json::Value as Json;
use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::LazyLock;

/// How a reference was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Inside text, matched by the template grammar.
    Template,
    /// A whole parameter naming a value (`cpn@out`, `sys.query`, braces optional).
    Selector,
    /// `{item}`, `{index}` or `{result}` inside an Iteration body.
    Alias(Alias),
}

/// What the referencing component does with the value, for type checks and lints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Rendered into text.
    Text,
    /// Read as a value.
    Value,
    /// Iteration `items_ref`: must be an array.
    IterationItems,
    /// ListOperations `query`: must be an array.
    ListInput,
    /// StringTransform `split_ref`: must be a string.
    SplitInput,
    /// Left side of a Switch condition item.
    SwitchOperand { case: usize, item: usize },
    /// Left side of a Loop termination condition.
    LoopCondition { index: usize },
    /// A VariableAssigner target (written, not read, by `clear`/`set`/`overwrite`).
    AssignTarget { index: usize },
    /// A VariableAssigner parameter reference.
    AssignParameter { index: usize },
    /// A VariableAggregator candidate: the first truthy one wins, so an unset one is expected.
    AggregatorCandidate,
    /// Iteration `outputs.<name>.ref`: a body component's output collected per pass.
    CollectedOutput,
    /// An Invoke header placeholder `{name}`.
    HeaderPlaceholder,
}

/// One reference, located in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Index of the referencing component in the document.
    pub component: usize,
    /// Pointer to the string that holds the reference.
    pub pointer: String,
    /// Span of the match within that string.
    pub span: Range<usize>,
    /// The expression text as written (without braces).
    pub raw: String,
    pub expr: Expr,
    pub syntax: Syntax,
    pub slot: Slot,
    /// Whether RAGFlow's scheduler defers the component until the referenced one is on the path
    /// (the input elements of text-driven components, BS §16.7.1).
    pub deferral: bool,
}

/// Reference-looking text that RAGFlow will not resolve.
#[derive(Clone, Debug, PartialEq)]
pub struct Inert {
    pub component: usize,
    pub pointer: String,
    pub span: Range<usize>,
    pub text: String,
    pub why: InertWhy,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InertWhy {
    /// Spaces inside the innermost braces, or characters the grammar does not allow.
    Malformed { suggestion: Option<String> },
    /// `{item}`/`{index}`/`{result}` outside an Iteration body.
    AliasOutsideIteration,
    /// A tool parameter that names an undefined global, so it is used as literal text.
    LiteralSelector,
}

/// A control-flow edge written in parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub component: usize,
    pub pointer: String,
    pub target: String,
    pub kind: RouteKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteKind {
    /// Switch case `i` (`conditions[i].to`).
    Case(usize),
    /// Switch ELSE (`end_cpn_ids`).
    Else,
    /// Categorize category (`category_description.<name>.to`).
    Category(String),
    /// `exception_goto`.
    ExceptionGoto,
}

/// Everything extracted from a document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extraction {
    pub references: Vec<Reference>,
    pub inert: Vec<Inert>,
    pub routes: Vec<Route>,
}

static HEADER_PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{([A-Za-z_][A-Za-z0-9_.@-]*)\}").expect("valid pattern"));

/// Extract every reference, inert reference and route of every component. `merged(i)` is the
/// `i`th component's params merged with its kind's defaults (the IR holds them already: merging
/// again here would copy every component's params once more).
pub fn extract<'p>(
    doc: &Document,
    merged: impl Fn(usize) -> Option<&'p Map<String, Value>>,
) -> Extraction {
    let mut out = Extraction::default();
    for (index, c) in doc.components.iter().enumerate() {
        let Some(kind) = c.kind() else { continue };
        let Some(params) = merged(index) else {
            continue;
        };
        let in_iteration = c
            .parent_id
            .as_ref()
            .and_then(|p| doc.component(&p.id))
            .is_some_and(|p| p.kind() == Some(Kind::Iteration));
        let mut w = Walker {
            doc,
            component: c,
            index,
            params,
            in_iteration,
            out: &mut out,
        };
        w.walk(kind);
    }
    out
}

struct Walker<'a> {
    doc: &'a Document,
    component: &'a DslComponent,
    index: usize,
    params: &'a Map<String, Value>,
    in_iteration: bool,
    out: &'a mut Extraction,
}

impl Walker<'_> {
    fn ptr(&self, path: &[&str]) -> String {
        pointer_join(&self.component.loc.params, path)
    }

    fn param(&self, key: &str) -> Option<&Value> {
        self.params.get(key)
    }

    fn str_param(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(Value::as_str)
    }

    fn walk(&mut self, kind: Kind) {
        use Kind::*;
        self.exception_routes();
        match kind {
            Begin | IterationItem | LoopItem | ExitLoop | Answer | Jin10 | TuShare => {}
            UserFillUp => self.template_at(&["tips"], Slot::Text, false),
            Message => {
                self.template_list("content", true);
                if let Some(uid) = self.str_param("user_id") {
                    if uid.starts_with('{') && uid.ends_with('}') {
                        self.selector_at(&["user_id"], Slot::Value);
                    }
                }
            }
            Llm | Agent => {
                self.llm_prompts();
                if self
                    .param("visual_files_var")
                    .is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty()))
                {
                    self.selector_at(&["visual_files_var"], Slot::Value);
                }
                if kind == Agent {
                    self.agent_tools();
                }
            }
            Categorize => {
                let query = self.str_param("query").unwrap_or("");
                if query.is_empty() {
                    self.push_selector(&["query"], "sys.query", 0..0, Slot::Value, true);
                } else {
                    self.selector_at(&["query"], Slot::Value);
                    if let Some(r) = self.out.references.last_mut() {
                        r.deferral = r.component == self.index;
                    }
                }
                self.category_routes();
            }
            Switch => self.switch(),
            Iteration => {
                self.selector_at(&["items_ref"], Slot::IterationItems);
                if let Some(Value::Object(outputs)) = self.param("outputs") {
                    let names: Vec<String> = outputs
                        .iter()
                        .filter(|(_, d)| d.get("ref").and_then(Value::as_str).is_some())
                        .map(|(k, _)| k.clone())
                        .collect();
                    for name in names {
                        self.selector_at(&["outputs", &name, "ref"], Slot::CollectedOutput);
                    }
                }
            }
            Loop => self.loop_params(),
            Invoke => self.invoke(),
            Browser => {
                self.template_at(&["prompts"], Slot::Text, true);
                self.generic_strings(&["upload_sources"], Slot::Value, true);
            }
            DataOperations => {
                self.selector_list("query", Slot::Value);
                self.row_templates("filter_values", "value");
                self.row_templates("updates", "value");
            }
            ListOperations => self.selector_at(&["query"], Slot::ListInput),
            StringTransform => {
                if self.str_param("method") == Some("split") {
                    self.selector_at(&["split_ref"], Slot::SplitInput);
                }
                self.template_at(&["script"], Slot::Text, true);
            }
            VariableAggregator => self.aggregator(),
            VariableAssigner => self.assigner(),
            DocGenerator => self.template_at(&["content"], Slot::Text, false),
            ExcelProcessor => {
                self.selector_list("input_files", Slot::Value);
                if self
                    .str_param("transform_data")
                    .is_some_and(|s| !s.is_empty())
                {
                    self.selector_at(&["transform_data"], Slot::Value);
                }
            }
            CodeExec => {
                self.tool_inputs(kind);
                if let Some(Value::Object(args)) = self.param("arguments") {
                    let keys: Vec<String> = args
                        .iter()
                        .filter(|(_, v)| v.as_str().is_some_and(|s| !s.is_empty()))
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in keys {
                        self.selector_at(&["arguments", &k], Slot::Value);
                    }
                }
            }
            Retrieval => {
                self.tool_inputs(kind);
                for key in ["dataset_ids", "kb_ids"] {
                    if let Some(Value::Array(ids)) = self.param(key) {
                        let idx: Vec<usize> = ids
                            .iter()
                            .enumerate()
                            .filter(|(_, v)| v.as_str().is_some_and(|s| s.contains('@')))
                            .map(|(i, _)| i)
                            .collect();
                        for i in idx {
                            self.selector_at(&[key, &i.to_string()], Slot::Value);
                        }
                    }
                }
                if let Some(Value::Array(conds)) =
                    self.param("meta_data_filter").and_then(|m| m.get("manual"))
                {
                    let n = conds.len();
                    for i in 0..n {
                        self.template_at(
                            &["meta_data_filter", "manual", &i.to_string(), "value"],
                            Slot::Text,
                            false,
                        );
                    }
                }
            }
            AkShare | ArXiv | Bgpt | Crawler | DeepL | DuckDuckGo | Email | ExeSql | GitHub
            | Google | GoogleScholar | KeenableSearch | PubMed | QueritSearch | QueritContents
            | QWeather | SearXng | TavilySearch | TavilyExtract | WenCai | Wikipedia
            | YahooFinance => self.tool_inputs(kind),
        }
        if kind == Llm
            && self.str_param("prompt").is_some()
            && self.component.component_name == "Generate"
        {
            self.template_at(&["prompt"], Slot::Text, true);
        }
    }

    // ---- references -------------------------------------------------------------------------

    fn value_at(&self, path: &[&str]) -> Option<&Value> {
        let mut cur = self.params.get(*path.first()?)?;
        for key in &path[1..] {
            cur = match cur {
                Value::Object(m) => m.get(*key)?,
                Value::Array(a) => a.get(key.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Template references (and iteration aliases) in the string at `path`.
    fn template_at(&mut self, path: &[&str], slot: Slot, deferral: bool) {
        let Some(Value::String(text)) = self.value_at(path) else {
            return;
        };
        let text = text.clone();
        let pointer = self.ptr(path);
        let matches = template_refs(&text);
        for m in &matches {
            let raw = m.expr(&text).to_string();
            self.out.references.push(Reference {
                component: self.index,
                pointer: pointer.clone(),
                span: m.span.clone(),
                expr: Expr::parse(&raw),
                raw,
                syntax: Syntax::Template,
                slot,
                deferral,
            });
        }
        let mut taken: Vec<_> = matches.clone();
        for (m, alias) in alias_refs(&text) {
            if taken
                .iter()
                .any(|r| r.span.start < m.span.end && m.span.start < r.span.end)
            {
                continue;
            }
            taken.push(m.clone());
            if self.in_iteration {
                self.out.references.push(Reference {
                    component: self.index,
                    pointer: pointer.clone(),
                    span: m.span.clone(),
                    raw: alias.output().to_string(),
                    expr: Expr::Global(alias.output().to_string()),
                    syntax: Syntax::Alias(alias),
                    slot,
                    deferral,
                });
            } else {
                self.out.inert.push(Inert {
                    component: self.index,
                    pointer: pointer.clone(),
                    span: m.span.clone(),
                    text: text[m.span.clone()].to_string(),
                    why: InertWhy::AliasOutsideIteration,
                });
            }
        }
        for m in inert_refs(&text, &taken) {
            let inner = m.expr(&text);
            self.out.inert.push(Inert {
                component: self.index,
                pointer: pointer.clone(),
                span: m.span.clone(),
                text: text[m.span.clone()].to_string(),
                why: InertWhy::Malformed {
                    suggestion: suggest_fix(inner),
                },
            });
        }
    }

    fn template_list(&mut self, key: &str, deferral: bool) {
        match self.param(key) {
            Some(Value::Array(items)) => {
                let n = items.len();
                for i in 0..n {
                    self.template_at(&[key, &i.to_string()], Slot::Text, deferral);
                }
            }
            Some(Value::String(_)) => self.template_at(&[key], Slot::Text, deferral),
            _ => {}
        }
    }

    /// A whole-string selector at `path` (skipped when empty).
    fn selector_at(&mut self, path: &[&str], slot: Slot) {
        let Some(Value::String(s)) = self.value_at(path) else {
            return;
        };
        if s.trim().is_empty() {
            return;
        }
        let s = s.clone();
        self.push_selector(path, &s, 0..s.len(), slot, false);
    }

    fn push_selector(
        &mut self,
        path: &[&str],
        text: &str,
        span: Range<usize>,
        slot: Slot,
        deferral: bool,
    ) {
        let raw = strip_like_python(text).to_string();
        self.out.references.push(Reference {
            component: self.index,
            pointer: self.ptr(path),
            span,
            expr: Expr::parse(&raw),
            raw,
            syntax: Syntax::Selector,
            slot,
            deferral,
        });
    }

    fn selector_list(&mut self, key: &str, slot: Slot) {
        match self.param(key) {
            Some(Value::Array(items)) => {
                let n = items.len();
                for i in 0..n {
                    self.selector_at(&[key, &i.to_string()], slot);
                }
            }
            Some(Value::String(_)) => self.selector_at(&[key], slot),
            _ => {}
        }
    }

    fn row_templates(&mut self, key: &str, field: &str) {
        if let Some(Value::Array(rows)) = self.param(key) {
            let n = rows.len();
            for i in 0..n {
                self.template_at(&[key, &i.to_string(), field], Slot::Text, false);
            }
        }
    }

    /// Strings that may be templates or whole-string selectors (Browser upload sources, tool
    /// parameters of Agent tools): templates are extracted, `cpn@out` strings are selectors.
    fn generic_strings(&mut self, path: &[&str], slot: Slot, deferral: bool) {
        let Some(v) = self.value_at(path).cloned() else {
            return;
        };
        match v {
            Value::String(s) => {
                if !template_refs(&s).is_empty() {
                    self.template_at(path, slot, deferral);
                } else if looks_like_output_selector(&s) {
                    self.selector_at(path, slot);
                }
            }
            Value::Array(items) => {
                for i in 0..items.len() {
                    let mut p: Vec<&str> = path.to_vec();
                    let idx = i.to_string();
                    p.push(&idx);
                    self.generic_strings(&p, slot, deferral);
                }
            }
            Value::Object(map) => {
                for k in map.keys() {
                    let mut p: Vec<&str> = path.to_vec();
                    p.push(k);
                    self.generic_strings(&p, slot, deferral);
                }
            }
            _ => {}
        }
    }

    // ---- per-kind helpers -------------------------------------------------------------------

    fn llm_prompts(&mut self) {
        self.template_at(&["sys_prompt"], Slot::Text, true);
        match self.param("prompts") {
            Some(Value::String(_)) => self.template_at(&["prompts"], Slot::Text, true),
            Some(Value::Array(items)) => {
                let n = items.len();
                for i in 0..n {
                    self.template_at(&["prompts", &i.to_string(), "content"], Slot::Text, true);
                }
            }
            _ => {}
        }
    }

    /// Tools configured inside an Agent: their parameters are read while the Agent runs.
    fn agent_tools(&mut self) {
        let Some(Value::Array(tools)) = self.param("tools") else {
            return;
        };
        let n = tools.len();
        for i in 0..n {
            let idx = i.to_string();
            let is_agent = self
                .value_at(&["tools", &idx, "component_name"])
                .and_then(Value::as_str)
                .is_some_and(|n| n == "Agent");
            if is_agent {
                self.template_at(&["tools", &idx, "params", "sys_prompt"], Slot::Text, false);
                if let Some(Value::Array(prompts)) =
                    self.value_at(&["tools", &idx, "params", "prompts"])
                {
                    let m = prompts.len();
                    for j in 0..m {
                        self.template_at(
                            &[
                                "tools",
                                &idx,
                                "params",
                                "prompts",
                                &j.to_string(),
                                "content",
                            ],
                            Slot::Text,
                            false,
                        );
                    }
                }
            } else {
                // A tool's parameters are literal configuration (an `email` is just an address);
                // only braced references in them are rendered, and Retrieval's dataset ids.
                self.templates_in(&["tools", &idx, "params"]);
                if let Some(Json::Array(ids)) =
                    self.value_at(&["tools", &idx, "params", "dataset_ids"])
                {
                    let with_ref: Vec<usize> = ids
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| {
                            v.as_str()
                                .is_some_and(|s| s.contains('@') && looks_like_output_selector(s))
                        })
                        .map(|(i, _)| i)
                        .collect();
                    for i in with_ref {
                        self.selector_at(
                            &["tools", &idx, "params", "dataset_ids", &i.to_string()],
                            Slot::Value,
                        );
                    }
                }
            }
        }
    }

    /// Template references in every string under `path`.
    fn templates_in(&mut self, path: &[&str]) {
        let Some(v) = self.value_at(path).cloned() else {
            return;
        };
        match v {
            Json::String(s) if !template_refs(&s).is_empty() => {
                self.template_at(path, Slot::Text, false)
            }
            Json::Array(items) => {
                for i in 0..items.len() {
                    let idx = i.to_string();
                    let mut p: Vec<&str> = path.to_vec();
                    p.push(&idx);
                    self.templates_in(&p);
                }
            }
            Json::Object(map) => {
                for k in map.keys() {
                    let mut p: Vec<&str> = path.to_vec();
                    p.push(k);
                    self.templates_in(&p);
                }
            }
            _ => {}
        }
    }

    /// A tool used as a canvas node: each input element is resolved by `get_input()` — a string
    /// naming a known global or component is a selector, a string with references a template.
    fn tool_inputs(&mut self, kind: Kind) {
        let keys: Vec<String> = match self.params.get("inputs") {
            Some(Value::Object(inputs)) if self.component.params.contains_key("inputs") => {
                inputs.keys().cloned().collect()
            }
            _ => tool_meta(kind)
                .map(|m| m.parameters.iter().map(|p| p.name.to_string()).collect())
                .unwrap_or_default(),
        };
        for key in keys {
            let Some(Value::String(s)) = self.param(&key) else {
                continue;
            };
            let s = s.clone();
            if s.trim().is_empty() {
                continue;
            }
            match self.is_reff(&s) {
                Some(true) => self.push_selector(&[&key], &s, 0..s.len(), Slot::Value, false),
                Some(false) => {
                    if template_refs(&s).is_empty() {
                        if !self.meant_as_reference(&s) {
                            continue;
                        }
                        self.out.inert.push(Inert {
                            component: self.index,
                            pointer: self.ptr(&[&key]),
                            span: 0..s.len(),
                            text: s.clone(),
                            why: InertWhy::LiteralSelector,
                        });
                    } else {
                        self.template_at(&[&key], Slot::Text, false);
                    }
                }
                None => self.template_at(&[&key], Slot::Text, false),
            }
        }
    }

    /// Python's `is_reff` decided statically: `Some(true)` when the string names an existing
    /// component or a defined global, `Some(false)` when it is shaped like a selector but names
    /// nothing (RAGFlow then uses it literally), `None` when it is ordinary text.
    fn is_reff(&self, s: &str) -> Option<bool> {
        let exp = s.trim_matches('{').trim_matches('}');
        if exp.contains(char::is_whitespace) {
            return None;
        }
        match exp.split_once('@') {
            Some((cpn, rest)) if !rest.contains('@') && !cpn.is_empty() => {
                Some(self.doc.component(cpn).is_some())
            }
            Some(_) => None,
            None => {
                let lower = exp.to_ascii_lowercase();
                if lower.starts_with("sys.") || lower.starts_with("env.") {
                    Some(global_is_defined(self.doc, exp))
                } else {
                    None
                }
            }
        }
    }

    /// Whether a selector-shaped string that names nothing was probably meant as a reference
    /// (a global, an editor-style id, or a near miss of a component id) rather than being data
    /// such as an e-mail address.
    fn meant_as_reference(&self, s: &str) -> bool {
        let exp = s.trim_matches('{').trim_matches('}');
        match exp.split_once('@') {
            None => true,
            Some((cpn, _)) => {
                cpn.contains(':')
                    || self.doc.components.iter().any(|c| {
                        strsim::normalized_damerau_levenshtein(
                            &cpn.to_lowercase(),
                            &c.id.to_lowercase(),
                        ) >= 0.8
                    })
            }
        }
    }

    fn switch(&mut self) {
        let Some(Value::Array(conds)) = self.param("conditions") else {
            return;
        };
        let conds = conds.clone();
        for (ci, cond) in conds.iter().enumerate() {
            let cs = ci.to_string();
            if let Some(Value::Array(items)) = cond.get("items") {
                for (ii, item) in items.iter().enumerate() {
                    if item
                        .get("cpn_id")
                        .and_then(Value::as_str)
                        .is_some_and(|s| !s.is_empty())
                    {
                        self.selector_at(
                            &["conditions", &cs, "items", &ii.to_string(), "cpn_id"],
                            Slot::SwitchOperand { case: ci, item: ii },
                        );
                    }
                }
            }
            self.route_list(&["conditions", &cs, "to"], RouteKind::Case(ci));
        }
        self.route_list(&["end_cpn_ids"], RouteKind::Else);
    }

    fn category_routes(&mut self) {
        let Some(Value::Object(cats)) = self.param("category_description") else {
            return;
        };
        let names: Vec<String> = cats.keys().cloned().collect();
        for name in names {
            self.route_list(
                &["category_description", &name, "to"],
                RouteKind::Category(name.clone()),
            );
        }
    }

    fn exception_routes(&mut self) {
        self.route_list(&["exception_goto"], RouteKind::ExceptionGoto);
    }

    fn route_list(&mut self, path: &[&str], kind: RouteKind) {
        match self.value_at(path) {
            Some(Value::Array(ids)) => {
                let ids: Vec<(usize, String)> = ids
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.as_str().map(|s| (i, s.to_string())))
                    .collect();
                for (i, id) in ids {
                    let mut p: Vec<&str> = path.to_vec();
                    let idx = i.to_string();
                    p.push(&idx);
                    self.out.routes.push(Route {
                        component: self.index,
                        pointer: self.ptr(&p),
                        target: id,
                        kind: kind.clone(),
                    });
                }
            }
            // Legacy v1 shape: a single id instead of a list.
            Some(Value::String(id)) if !id.is_empty() => {
                let id = id.clone();
                self.out.routes.push(Route {
                    component: self.index,
                    pointer: self.ptr(path),
                    target: id,
                    kind,
                });
            }
            _ => {}
        }
    }

    fn loop_params(&mut self) {
        if let Some(Value::Array(vars)) = self.param("loop_variables") {
            let modes: Vec<bool> = vars
                .iter()
                .map(|v| v.get("input_mode").and_then(Value::as_str) == Some("variable"))
                .collect();
            for (i, variable) in modes.into_iter().enumerate() {
                if variable {
                    self.selector_at(&["loop_variables", &i.to_string(), "value"], Slot::Value);
                }
            }
        }
        if let Some(Value::Array(conds)) = self.param("loop_termination_condition") {
            let modes: Vec<bool> = conds
                .iter()
                .map(|v| v.get("input_mode").and_then(Value::as_str) == Some("variable"))
                .collect();
            for (i, variable) in modes.into_iter().enumerate() {
                let is = i.to_string();
                self.selector_at(
                    &["loop_termination_condition", &is, "variable"],
                    Slot::LoopCondition { index: i },
                );
                if variable {
                    self.selector_at(&["loop_termination_condition", &is, "value"], Slot::Value);
                }
            }
        }
    }

    fn invoke(&mut self) {
        self.template_at(&["url"], Slot::Text, false);
        if let Some(Value::Array(vars)) = self.param("variables") {
            let vars = vars.clone();
            for (i, var) in vars.iter().enumerate() {
                let is = i.to_string();
                if var
                    .get("ref")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
                {
                    self.selector_at(&["variables", &is, "ref"], Slot::Value);
                }
                if var.get("value").is_some_and(Value::is_string) {
                    self.template_at(&["variables", &is, "value"], Slot::Text, false);
                }
            }
        }
        if let Some(headers) = self.str_param("headers").map(str::to_string) {
            for c in HEADER_PLACEHOLDER.captures_iter(&headers) {
                let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else {
                    continue;
                };
                let raw = name.as_str().to_string();
                self.out.references.push(Reference {
                    component: self.index,
                    pointer: self.ptr(&["headers"]),
                    span: whole.range(),
                    expr: Expr::parse(&raw),
                    raw,
                    syntax: Syntax::Selector,
                    slot: Slot::HeaderPlaceholder,
                    deferral: false,
                });
            }
        }
    }

    fn aggregator(&mut self) {
        let Some(Value::Array(groups)) = self.param("groups") else {
            return;
        };
        let shape: Vec<usize> = groups
            .iter()
            .map(|g| {
                g.get("variables")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            })
            .collect();
        for (gi, n) in shape.into_iter().enumerate() {
            for vi in 0..n {
                self.selector_at(
                    &[
                        "groups",
                        &gi.to_string(),
                        "variables",
                        &vi.to_string(),
                        "value",
                    ],
                    Slot::AggregatorCandidate,
                );
            }
        }
    }

    fn assigner(&mut self) {
        let Some(Value::Array(vars)) = self.param("variables") else {
            return;
        };
        let vars = vars.clone();
        for (i, var) in vars.iter().enumerate() {
            let is = i.to_string();
            self.selector_at(
                &["variables", &is, "variable"],
                Slot::AssignTarget { index: i },
            );
            match var.get("operator").and_then(Value::as_str) {
                Some("overwrite" | "append" | "extend") => {
                    self.selector_at(
                        &["variables", &is, "parameter"],
                        Slot::AssignParameter { index: i },
                    );
                }
                Some("set") => {
                    self.template_at(&["variables", &is, "parameter"], Slot::Text, false)
                }
                _ => {}
            }
        }
    }
}

/// Whether `name` (`sys.x` / `env.x`) is defined in the canvas globals or variables.
pub(crate) fn global_is_defined(doc: &Document, name: &str) -> bool {
    if crate::catalog::SYSTEM_GLOBALS.contains(&name) || name == "sys.chat_template_kwargs" {
        return true;
    }
    if doc.globals().is_some_and(|g| g.contains_key(name)) {
        return true;
    }
    name.strip_prefix("env.")
        .is_some_and(|var| doc.variables().is_some_and(|v| v.contains_key(var)))
}

fn looks_like_output_selector(s: &str) -> bool {
    let exp = strip_like_python(s);
    !exp.contains(char::is_whitespace)
        && exp
            .split_once('@')
            .is_some_and(|(c, v)| !c.is_empty() && !v.is_empty() && !v.contains('@'))
}

/// How to write reference-like text so that RAGFlow's grammar matches it.
fn suggest_fix(inner: &str) -> Option<String> {
    let trimmed = inner.trim();
    let ok = template_refs(&format!("{{{trimmed}}}"));
    (!ok.is_empty()).then(|| format!("{{{trimmed}}}"))
}
