//! A component's input form, as RAGFlow's editor asks for it
//! (`GET /agents/{id}/components/{cid}/input-form`: `Canvas.get_component_input_form`, each
//! component kind's `get_input_form`): the fields a "test run" of one component shows.
//!
//! It is read from the stored DSL, as RAGFlow reads it from a freshly built canvas: a
//! component's parameters are its DSL `params` over its kind's defaults (`ComponentParamBase
//! .update` sets each given key whole). References in a component's text name fields
//! (`get_input_elements_from_text`); reading them looks each one up as the canvas would, so a
//! reference to a missing component or global fails with RAGFlow's exception. A kind without a
//! form fails with the `AttributeError` RAGFlow raises for it. Failures are RAGFlow's `repr(e)`,
//! which its API answers (`server_error_response`).

use canvasc_value::py;
use serde_json::{json, Map, Value};

use crate::construct::construction_error;
use crate::load_value;
use crate::refs::{ALIAS_REF, TEMPLATE_REF};

/// Why there is no form: RAGFlow's exception, as `repr(e)`.
pub type Failure = String;

/// The input form of component `cid` of `dsl`, the agent's stored DSL: RAGFlow builds the
/// canvas first, so a DSL it cannot build fails as it fails there.
pub fn input_form(dsl: &Value, cid: &str) -> Result<Value, Failure> {
    built(dsl)?;
    let canvas = Canvas { dsl };
    let Some(component) = canvas.component(cid) else {
        return Err(r#"TypeError("'NoneType' object is not subscriptable")"#.to_string());
    };
    let kind = component
        .pointer("/obj/component_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = Params(component.pointer("/obj/params").and_then(Value::as_object));
    let line = |name: &str| json!({"name": name, "type": "line"});
    Ok(match kind {
        "Begin" => params.get("inputs").cloned().unwrap_or_else(|| json!({})),
        "LLM" | "Agent" => {
            // The system prompt's references, then each prompt's content and references, as
            // `LLM.get_input_elements` reads them (a prompt that is not a `{"content": …}`
            // fails there, in turn).
            let sys_prompt = params.get("sys_prompt").cloned().unwrap_or(json!(""));
            let mut elements = canvas.elements(cid, &sys_prompt)?;
            let prompts = match params.get("prompts") {
                None => vec![json!({"content": "{sys.query}"})],
                Some(Value::String(prompt)) => vec![json!({"content": prompt})],
                Some(other) => items(Some(other))?,
            };
            for prompt in &prompts {
                for (exp, name) in canvas.elements(cid, &content_of(prompt)?)? {
                    upsert(&mut elements, exp, name);
                }
            }
            named_line(elements)
        }
        "StringTransform" if params.str_or("method", "split") == "split" => {
            json!({"line": {"name": "String", "type": "line"}})
        }
        "StringTransform" => {
            let script = params.get("script").cloned().unwrap_or(json!(""));
            named(canvas.elements(cid, &script)?, "line")
        }
        "DataOperations" => {
            let mut form = Map::new();
            for item in items(params.get("query"))? {
                for (exp, name) in canvas.elements(cid, &item)? {
                    form.insert(exp, json!({"name": name, "type": "line"}));
                }
            }
            Value::Object(form)
        }
        "ExcelProcessor" => {
            let mut form = Map::new();
            for item in items(params.get("input_files"))? {
                for (exp, name) in canvas.elements(cid, &item)? {
                    form.insert(exp, json!({"name": name, "type": "file"}));
                }
            }
            if let Some(data) = params.get("transform_data").filter(|d| py::truthy(d)) {
                for (exp, name) in canvas.elements(cid, data)? {
                    form.insert(exp, json!({"name": name, "type": "object"}));
                }
            }
            Value::Object(form)
        }
        "Invoke" => {
            let mut form = Map::new();
            for item in items(params.get("variables"))? {
                let Value::Object(item) = item else { continue };
                // `(item.get("ref") or "").strip()`
                let reference = match item.get("ref") {
                    Some(Value::String(r)) => r.as_str(),
                    Some(other) if py::truthy(other) => {
                        return Err(format!(
                            "AttributeError(\"'{}' object has no attribute 'strip'\")",
                            py::type_name(other)
                        ))
                    }
                    _ => "",
                };
                let reference = reference.trim();
                if reference.is_empty() || form.contains_key(reference) {
                    continue;
                }
                let elements = canvas.elements(cid, &Value::String(format!("{{{reference}}}")))?;
                let name = elements
                    .into_iter()
                    .find(|(exp, name)| exp == reference && !name.is_empty())
                    .map(|(_, name)| name)
                    .or_else(|| {
                        item.get("key")
                            .and_then(Value::as_str)
                            .filter(|k| !k.is_empty())
                            .map(str::to_string)
                    })
                    .unwrap_or_else(|| reference.to_string());
                form.insert(reference.to_string(), json!({"type": "line", "name": name}));
            }
            Value::Object(form)
        }
        "CodeExec" => match params.get("arguments") {
            None => json!({}),
            Some(Value::Object(arguments)) => Value::Object(
                arguments
                    .keys()
                    .map(|k| (k.clone(), json!({"type": "line", "name": k})))
                    .collect(),
            ),
            Some(other) => {
                return Err(format!(
                    "AttributeError(\"'{}' object has no attribute 'items'\")",
                    py::type_name(other)
                ))
            }
        },
        // `Categorize.get_input_elements`: its `query` key (the LLM's form over it).
        "Categorize" => {
            let key = match params.get("query") {
                None => "sys.query".to_string(),
                Some(v) if !py::truthy(v) => "sys.query".to_string(),
                Some(Value::String(key)) => key.clone(),
                Some(other) => other.to_string(),
            };
            let elements = canvas.elements(cid, &Value::String(format!("{{{key}}}")))?;
            named_line(elements)
        }
        "Switch" | "TavilyExtract" | "QueritContents" => json!({"urls": line("URLs")}),
        "Iteration" | "Loop" | "VariableAssigner" => {
            json!({"items": {"type": "json", "name": "Items"}})
        }
        "Browser" => json!({"prompts": {"type": "text", "name": "Prompts"},
            "upload_sources": {"type": "line", "name": "Upload sources"}}),
        "DocGenerator" => json!({"content": {"name": "Content", "type": "text"}}),
        "ListOperations" => json!({}),
        "VariableAggregator" => json!({"variables": {"name": "Variables", "type": "list"}}),
        "AkShare" => json!({"query": line("Stock symbol")}),
        "ArXiv" | "BGPT" | "GitHub" | "GoogleScholar" | "PubMed" | "Retrieval" | "TavilySearch"
        | "WenCai" | "Wikipedia" => json!({"query": line("Query")}),
        "Crawler" => json!({"query": line("URL")}),
        "DeepL" => json!({"query": line("Text")}),
        "QWeather" => json!({"query": line("Location")}),
        "ExeSQL" => json!({"sql": line("SQL")}),
        "YahooFinance" => json!({"stock_code": line("Stock code/Company name")}),
        "DuckDuckGo" => json!({"query": line("Query"), "channel": {"name": "Channel",
            "type": "options", "value": "general", "options": ["general", "news"]}}),
        "Email" => json!({"to_email": line("To "),
            "subject": {"name": "Subject", "type": "line", "optional": true},
            "cc_email": {"name": "CC To", "type": "line", "optional": true}}),
        "Google" => json!({"q": line("Query"),
            "start": {"name": "From", "type": "integer", "value": 0},
            "num": {"name": "Limit", "type": "integer", "value": 12}}),
        "KeenableSearch" => json!({"query": line("Query"), "site": line("Site")}),
        "QueritSearch" => json!({"query": line("Query"), "count": line("Count"),
            "chunks_per_doc": line("Chunks per document"), "site_include": line("Include sites"),
            "site_exclude": line("Exclude sites"), "time_range": line("Time range"),
            "country_include": line("Include countries"),
            "language_include": line("Include languages")}),
        "SearXNG" => json!({"query": line("Query"), "searxng_url": {"name": "SearXNG URL",
            "type": "line", "placeholder": "http://localhost:4000"}}),
        // Every other kind's parameters have no `get_input_form`.
        other => {
            return Err(format!(
                "AttributeError(\"'{other}Param' object has no attribute 'get_input_form'\")"
            ))
        }
    })
}

/// `Canvas(dsl)`: the keys `Graph.load` reads before it builds each component (canvasc also
/// loads other forms of a canvas, which RAGFlow's Python cannot build), then the components'
/// construction (`construct.rs`).
fn built(dsl: &Value) -> Result<(), Failure> {
    let Some(components) = dsl.get("components") else {
        return Err("KeyError('components')".into());
    };
    for component in components.as_object().into_iter().flat_map(|c| c.values()) {
        let Some(obj) = component.get("obj") else {
            return Err("KeyError('obj')".into());
        };
        if obj.get("params").is_none() {
            return Err("KeyError('params')".into());
        }
    }
    let unbuildable = load_value(dsl.clone())
        .ok()
        .and_then(|loaded| construction_error(&loaded.document));
    match unbuildable {
        Some(e) => Err(e.repr()),
        None => Ok(()),
    }
}

/// LLM's form: `{exp: {"type": "line", "name": name}}` of its elements.
fn named_line(elements: Vec<(String, String)>) -> Value {
    Value::Object(
        elements
            .into_iter()
            .map(|(exp, name)| (exp, json!({"type": "line", "name": name})))
            .collect(),
    )
}

/// `{exp: {"name": name, "type": kind}}` of text elements.
fn named(elements: Vec<(String, String)>, kind: &str) -> Value {
    Value::Object(
        elements
            .into_iter()
            .map(|(exp, name)| (exp, json!({"name": name, "type": kind})))
            .collect(),
    )
}

/// A component's parameters after `update`: the DSL's value of a key, else its default.
struct Params<'a>(Option<&'a Map<String, Value>>);

impl Params<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.and_then(|p| p.get(key))
    }

    fn str_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        match self.get(key) {
            Some(Value::String(s)) => s,
            Some(_) => "",
            None => default,
        }
    }
}

struct Canvas<'a> {
    dsl: &'a Value,
}

impl Canvas<'_> {
    fn component(&self, cid: &str) -> Option<&Value> {
        self.dsl.get("components")?.get(cid)
    }

    /// `Canvas.get_component_name`: the graph node's `data.name`, else empty.
    fn display_name(&self, cid: &str) -> String {
        self.dsl
            .pointer("/graph/nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|n| n.get("id").and_then(Value::as_str) == Some(cid))
            .and_then(|n| n.pointer("/data/name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// `Canvas.get_variable_value` as far as it can fail on a freshly built canvas: a global
    /// it does not hold, or a component it does not have.
    fn look_up(&self, exp: &str) -> Result<(), Failure> {
        match exp.split_once('@') {
            None => {
                let globals = self.dsl.get("globals").and_then(Value::as_object);
                let known = match globals {
                    Some(g) => g.contains_key(exp) || matches!(exp, "sys.history" | "sys.date"),
                    None => matches!(
                        exp,
                        "sys.query"
                            | "sys.user_id"
                            | "sys.conversation_turns"
                            | "sys.files"
                            | "sys.history"
                            | "sys.date"
                    ),
                };
                if known {
                    Ok(())
                } else {
                    Err(format!("KeyError('{exp}')"))
                }
            }
            Some((cpn, var)) if self.component(cpn).is_none() => {
                Err(format!("Exception(\"Can't find variable: '{cpn}@{var}'\")"))
            }
            Some(_) => Ok(()),
        }
    }

    /// `get_input_elements_from_text`: each reference of `text` (then each iteration alias
    /// inside an Iteration) and its display name, in order, looked up as RAGFlow does.
    fn elements(&self, cid: &str, text: &Value) -> Result<Vec<(String, String)>, Failure> {
        let Value::String(text) = text else {
            return Err(format!(
                "TypeError(\"expected string or bytes-like object, got '{}'\")",
                py::type_name(text)
            ));
        };
        let mut out: Vec<(String, String)> = Vec::new();
        for captures in TEMPLATE_REF.captures_iter(text) {
            let exp = captures.get(1).map_or("", |m| m.as_str()).to_string();
            let name = match exp.split_once('@') {
                Some((cpn, var)) if !cpn.is_empty() => {
                    format!("{}@{var}", self.display_name(cpn))
                }
                _ => exp.clone(),
            };
            self.look_up(&exp)?;
            if let Some((cpn, _)) = exp.split_once('@').filter(|(c, _)| !c.is_empty()) {
                self.look_up(&format!("{cpn}@_references"))?;
            }
            upsert(&mut out, exp, name);
        }
        for captures in ALIAS_REF.captures_iter(text) {
            let exp = captures.get(1).map_or("", |m| m.as_str()).to_string();
            if out.iter().any(|(e, _)| *e == exp) {
                continue;
            }
            let Some(item) = self.iteration_item(cid, &exp) else {
                continue;
            };
            let name = format!("{}@{exp}", self.display_name(&item));
            upsert(&mut out, exp, name);
        }
        Ok(out)
    }

    /// `_resolve_iteration_alias_ref`: inside an Iteration, its IterationItem child (the
    /// first by DSL order). Aliases are lower case; the pattern matches any case.
    fn iteration_item(&self, cid: &str, exp: &str) -> Option<String> {
        if !matches!(exp, "item" | "index" | "result") {
            return None;
        }
        let components = self.dsl.get("components")?.as_object()?;
        let parent = components.get(cid)?.get("parent_id")?.as_str()?;
        let kind = |c: &Value| {
            c.pointer("/obj/component_name")
                .and_then(Value::as_str)
                .map(str::to_lowercase)
        };
        if kind(components.get(parent)?).as_deref() != Some("iteration") {
            return None;
        }
        components
            .iter()
            .find(|(_, c)| {
                c.get("parent_id").and_then(Value::as_str) == Some(parent)
                    && kind(c).as_deref() == Some("iterationitem")
            })
            .map(|(id, _)| id.clone())
    }
}

/// A dict's assignment: a key seen before keeps its place and takes the new value.
fn upsert(out: &mut Vec<(String, String)>, exp: String, name: String) {
    match out.iter_mut().find(|(e, _)| *e == exp) {
        Some(slot) => slot.1 = name,
        None => out.push((exp, name)),
    }
}

/// A prompt's `prompt["content"]`.
fn content_of(prompt: &Value) -> Result<Value, Failure> {
    match prompt {
        Value::Object(p) => p
            .get("content")
            .cloned()
            .ok_or_else(|| "KeyError('content')".to_string()),
        Value::String(_) => {
            Err(r#"TypeError("string indices must be integers, not 'str'")"#.to_string())
        }
        other => Err(format!(
            "TypeError(\"'{}' object is not subscriptable\")",
            py::type_name(other)
        )),
    }
}

/// `for x in (value or [])`: a list's items, a string's characters, a dict's keys.
fn items(value: Option<&Value>) -> Result<Vec<Value>, Failure> {
    Ok(match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list.clone(),
        Some(Value::String(s)) => s.chars().map(|c| Value::String(c.to_string())).collect(),
        Some(Value::Object(map)) => map.keys().cloned().map(Value::String).collect(),
        Some(Value::Bool(false)) => Vec::new(),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => Vec::new(),
        Some(other) => return Err(not_iterable(other)),
    })
}

fn not_iterable(value: &Value) -> Failure {
    format!(
        "TypeError(\"'{}' object is not iterable\")",
        py::type_name(value)
    )
}
