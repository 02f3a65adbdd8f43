//! DataOperations: select, evaluate, combine, filter, update, remove or rename keys of the
//! objects its references hold (components.md §15, `agent/component/data_operations.py`).

use super::{exp_str, json_of, py_get, value_with_variable_json, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::interpolate::{value_with_template, Template};
use crate::state::{Input, RunState};
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;

/// The bindings of the references in the parameters.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// Per `query` entry.
    pub query: Vec<Option<Bound>>,
    /// Per `filter_values` rule: its `value` text.
    pub rules: Vec<Option<Template>>,
    /// Per `updates` item: its `value` text.
    pub updates: Vec<Option<Template>>,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub bound: Bindings,
    pub query: Json,
    pub operation: Json,
    pub select_keys: Json,
    pub filter_values: Json,
    pub updates: Json,
    pub remove_keys: Json,
    pub rename_keys: Json,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let get = |k: &str| p.get(k).cloned().unwrap_or(Json::Array(Vec::new()));
        Spec {
            bound: Bindings::default(),
            query: get("query"),
            operation: p
                .get("operations")
                .cloned()
                .unwrap_or(Json::from("literal_eval")),
            select_keys: get("select_keys"),
            filter_values: get("filter_values"),
            updates: get("updates"),
            remove_keys: get("remove_keys"),
            rename_keys: get("rename_keys"),
        }
    }
}

/// Where an input object lives in the canvas state: the reference and, for a list value, the
/// element index. Python's objects are the live ones, so `combine` mutates them (see
/// [`write_back`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Origin {
    exp: String,
    elem: Option<usize>,
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx).await
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("DataOperation in progress"))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        let text = |v: Option<&Json>| match v {
            Some(Json::String(t)) => {
                let mut tpl = Template::new(t.clone());
                tpl.bind(r);
                Some(tpl)
            }
            _ => None,
        };
        let each = |list: &Json, f: &dyn Fn(&Json) -> Option<Template>| match list {
            Json::Array(a) => a.iter().map(f).collect(),
            _ => Vec::new(),
        };
        self.bound = Bindings {
            query: match &self.query {
                Json::Array(a) => a
                    .iter()
                    .map(|q| q.as_str().and_then(|e| r.resolve(e)))
                    .collect(),
                Json::String(e) => vec![r.resolve(e)],
                _ => Vec::new(),
            },
            rules: each(&self.filter_values, &|rule| text(rule.get("value"))),
            updates: each(&self.updates, &|item| text(item.get("value"))),
        };
    }
}

/// The pre-scanned text at `i` of a binding list, if the program was built with bindings.
fn template(list: &[Option<Template>], i: usize) -> Option<&Template> {
    list.get(i).and_then(Option::as_ref)
}

async fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    let refs = match &spec.query {
        Json::Array(a) => a.clone(),
        other => vec![other.clone()],
    };
    let mut objects: Vec<Map<String, Json>> = Vec::new();
    let mut origins: Vec<Origin> = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let key = exp_str(r)?;
        let bound = spec.bound.query.get(i).and_then(Option::as_ref);
        let value = json_of(cx.read(bound, key)?);
        cx.set_input_value(key, value.clone());
        match value {
            Json::Object(m) => {
                objects.push(m);
                origins.push(Origin {
                    exp: key.to_string(),
                    elem: None,
                });
            }
            Json::Array(items) => {
                for (j, x) in items.into_iter().enumerate() {
                    if let Json::Object(m) = x {
                        objects.push(m);
                        origins.push(Origin {
                            exp: key.to_string(),
                            elem: Some(j),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let result = match spec.operation.as_str().unwrap_or("") {
        "select_keys" => select_keys(spec, objects)?,
        "literal_eval" => Json::Array(
            objects
                .into_iter()
                .map(|m| recursive_eval(Json::Object(m)))
                .collect(),
        ),
        "combine" => {
            let (result, mutated) = combine(objects, &origins);
            for (obj, key) in mutated {
                if let Some(v) = result.get(&key) {
                    write_back(cx, &origins[obj], &key, v);
                }
            }
            Json::Object(result)
        }
        "filter_values" => filter_values(spec, cx, objects).await?,
        "append_or_update" => append_or_update(spec, cx, objects).await?,
        "remove_keys" => remove_keys(spec, objects)?,
        // Python's dispatch sends anything else (which `check()` rejects) to `rename_keys`.
        _ => rename_keys(spec, objects)?,
    };
    cx.set_output("result", result);
    Ok(())
}

/// Store a list that `combine` grew in place back where Python's live object sits: in the
/// referenced global or output, and in this node's input record of that reference (the same
/// object in Python).
fn write_back(cx: &NodeCx<'_>, origin: &Origin, key: &str, value: &Json) {
    let meta = &cx.shared.meta;
    let mut s = cx.state();
    let put = |root: &mut Json| {
        let obj = match origin.elem {
            Some(j) => root.get_mut(j),
            None => Some(root),
        };
        if let Some(Json::Object(m)) = obj {
            if let Some(slot) = m.get_mut(key) {
                *slot = value.clone();
            }
        }
    };
    if let Some(live) = live_value(&mut s, meta, &origin.exp) {
        put(live);
    }
    if let Some(record) = s
        .node_mut(cx.node)
        .inputs
        .get_mut(&origin.exp)
        .and_then(Input::dict_mut)
    {
        if let Some(v) = record.get_mut("value") {
            put(v);
        }
    }
}

/// The stored object `get_variable_value(exp)` returns, when Python would return the live one
/// (not a fresh object parsed from a JSON string on the way).
fn live_value<'s>(
    state: &'s mut RunState,
    meta: &canvasc_frontend::meta::CanvasMeta,
    exp: &str,
) -> Option<&'s mut Json> {
    let exp = canvasc_frontend::refs::strip_like_python(exp);
    let Some((cpn, var)) = exp.split_once('@') else {
        return state.globals.get_mut(exp);
    };
    let node = meta.find(cpn)?;
    let (root, rest) = var.split_once('.').unwrap_or((var, ""));
    let record = state.nodes[node.index()].record_mut(root)?;
    let mut cur = record.json_mut()?;
    if rest.is_empty() {
        return Some(cur);
    }
    for key in rest.split('.') {
        cur = match cur {
            Json::Object(m) => m.get_mut(key)?,
            Json::Array(a) => {
                let i = py::parse_int(key).ok()?;
                let len = a.len() as i64;
                let idx = if i < 0 { i + len } else { i };
                a.get_mut(usize::try_from(idx).ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Python `key in criteria` for the `select_keys` parameter.
fn contains_key(criteria: &Json, key: &str) -> Result<bool, RunError> {
    match criteria {
        Json::Array(a) => Ok(a.iter().any(|c| c.as_str() == Some(key))),
        Json::String(s) => Ok(s.contains(key)),
        Json::Object(m) => Ok(m.contains_key(key)),
        other => Err(RunError::type_error(format!(
            "argument of type '{}' is not iterable",
            py::type_name(other)
        ))),
    }
}

fn select_keys(spec: &Spec, objects: Vec<Map<String, Json>>) -> Result<Json, RunError> {
    let mut out = Vec::with_capacity(objects.len());
    for obj in objects {
        let mut kept = Map::new();
        for (k, v) in obj {
            if contains_key(&spec.select_keys, &k)? {
                kept.insert(k, v);
            }
        }
        out.push(Json::Object(kept));
    }
    Ok(Json::Array(out))
}

/// `_recursive_eval`: string leaves that look like Python literals are evaluated with
/// `ast.literal_eval`; anything that fails to evaluate stays a string.
fn recursive_eval(data: Json) -> Json {
    match data {
        Json::Object(m) => {
            Json::Object(m.into_iter().map(|(k, v)| (k, recursive_eval(v))).collect())
        }
        Json::Array(a) => Json::Array(a.into_iter().map(recursive_eval).collect()),
        Json::String(s) => {
            let t = py::strip(&s);
            let looks_literal = t.starts_with(['{', '[', '(', '\'', '"'])
                || matches!(t.to_lowercase().as_str(), "true" | "false" | "none")
                || is_digits(&t.replace('.', ""));
            if looks_literal {
                py::literal_eval(&s).unwrap_or(Json::String(s))
            } else {
                Json::String(s)
            }
        }
        other => other,
    }
}

/// Python `str.isdigit()`, restricted to ASCII: a string with other Unicode digits would be
/// tried too, but never parses as a literal, so it stays a string either way.
fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `_combine`: one object; a repeated key collects its values into a list. Also returns which
/// (object, key) lists were grown in place: Python stores the first object's own list and
/// extends it, so that object changes too — and an input that is the same object again
/// (`origins` equal) contributes that already grown list.
fn combine(
    objects: Vec<Map<String, Json>>,
    origins: &[Origin],
) -> (Map<String, Json>, Vec<(usize, String)>) {
    let mut result = Map::new();
    // For each key whose value is an input object's own list: that object.
    let mut owner: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut mutated: Vec<(usize, String)> = Vec::new();
    for (i, obj) in objects.into_iter().enumerate() {
        for (key, value) in obj {
            let own = owner.get(&key).copied();
            let value = match own {
                Some(o) if origins.get(o) == origins.get(i) => {
                    result.get(&key).cloned().unwrap_or(value)
                }
                _ => value,
            };
            match result.get_mut(&key) {
                None => {
                    if value.is_array() {
                        owner.insert(key.clone(), i);
                    }
                    result.insert(key, value);
                }
                Some(Json::Array(existing)) => {
                    match value {
                        Json::Array(more) => existing.extend(more),
                        other => existing.push(other),
                    }
                    if let Some(o) = own {
                        if !mutated.contains(&(o, key.clone())) {
                            mutated.push((o, key));
                        }
                    }
                }
                Some(existing) => {
                    let old = existing.take();
                    *existing = match value {
                        Json::Array(more) => {
                            let mut list = vec![old];
                            list.extend(more);
                            Json::Array(list)
                        }
                        other => Json::Array(vec![old, other]),
                    };
                }
            }
        }
    }
    (result, mutated)
}

/// `str(v)`, with `None` as `""`.
fn norm(v: Option<&Json>) -> String {
    match v {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// `match_rule`: the target is rendered before the key is looked up, so its reference errors
/// surface even for objects without the key.
async fn match_rule(
    cx: &NodeCx<'_>,
    obj: &Map<String, Json>,
    rule: &Json,
    value_tpl: Option<&Template>,
) -> Result<bool, RunError> {
    let key = py_get(rule, "key")?;
    let op = match py_get(rule, "operator")? {
        Some(v) if py::truthy(v) => match v {
            Json::String(s) => s.to_lowercase(),
            other => return Err(super::no_attribute(other, "lower")),
        },
        _ => "equals".to_string(),
    };
    let raw = norm(py_get(rule, "value")?);
    let rendered = match value_tpl {
        Some(tpl) => value_with_template(cx, tpl).await?,
        None => value_with_template(cx, &Template::new(raw.clone())).await?,
    };
    let target = if rendered.is_empty() { raw } else { rendered };
    // Only string keys can be present in a JSON object.
    let Some(v) = key.and_then(Json::as_str).and_then(|k| obj.get(k)) else {
        return Ok(false);
    };
    let v = norm(Some(v));
    Ok(match op.as_str() {
        "=" => v == target,
        "≠" => v != target,
        "contains" => v.contains(&target),
        "start with" => v.starts_with(&target),
        "end with" => v.ends_with(&target),
        _ => false,
    })
}

async fn filter_values(
    spec: &Spec,
    cx: &NodeCx<'_>,
    objects: Vec<Map<String, Json>>,
) -> Result<Json, RunError> {
    let rules = if py::truthy(&spec.filter_values) {
        super::py_iter(&spec.filter_values)?
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    'objects: for obj in objects {
        for (i, rule) in rules.iter().enumerate() {
            let tpl = template(&spec.bound.rules, i);
            if !match_rule(cx, &obj, rule, tpl).await? {
                continue 'objects;
            }
        }
        out.push(Json::Object(obj));
    }
    Ok(Json::Array(out))
}

/// `(item.get(name) or "").strip()`.
fn stripped_key(item: &Json, name: &str) -> Result<String, RunError> {
    match py_get(item, name)? {
        Some(v) if py::truthy(v) => match v {
            Json::String(s) => Ok(py::strip(s).to_string()),
            other => Err(super::no_attribute(other, "strip")),
        },
        _ => Ok(String::new()),
    }
}

async fn append_or_update(
    spec: &Spec,
    cx: &NodeCx<'_>,
    objects: Vec<Map<String, Json>>,
) -> Result<Json, RunError> {
    let updates = if py::truthy(&spec.updates) {
        super::py_iter(&spec.updates)?
    } else {
        Vec::new()
    };
    let mut out = Vec::with_capacity(objects.len());
    for mut obj in objects {
        for (i, item) in updates.iter().enumerate() {
            if !item.is_object() {
                continue;
            }
            let k = stripped_key(item, "key")?;
            if k.is_empty() {
                continue;
            }
            let raw = py_get(item, "value")?.cloned().unwrap_or(Json::Null);
            let rendered = match template(&spec.bound.updates, i) {
                Some(tpl) => value_with_template(cx, tpl).await?,
                None => value_with_variable_json(cx, &raw).await?,
            };
            let value = if rendered.is_empty() {
                raw
            } else {
                Json::String(rendered)
            };
            obj.insert(k, value);
        }
        out.push(Json::Object(obj));
    }
    Ok(Json::Array(out))
}

fn remove_keys(spec: &Spec, objects: Vec<Map<String, Json>>) -> Result<Json, RunError> {
    let keys = if py::truthy(&spec.remove_keys) {
        super::py_iter(&spec.remove_keys)?
    } else {
        Vec::new()
    };
    Ok(Json::Array(
        objects
            .into_iter()
            .map(|mut obj| {
                // Non-string keys are skipped.
                for k in keys.iter().filter_map(Json::as_str) {
                    obj.shift_remove(k);
                }
                Json::Object(obj)
            })
            .collect(),
    ))
}

fn rename_keys(spec: &Spec, objects: Vec<Map<String, Json>>) -> Result<Json, RunError> {
    let pairs = if py::truthy(&spec.rename_keys) {
        super::py_iter(&spec.rename_keys)?
    } else {
        Vec::new()
    };
    let mut out = Vec::with_capacity(objects.len());
    for mut obj in objects {
        for pair in &pairs {
            if !pair.is_object() {
                continue;
            }
            let old = stripped_key(pair, "old_key")?;
            let new = stripped_key(pair, "new_key")?;
            if old.is_empty() || new.is_empty() || old == new {
                continue;
            }
            // `new_obj[new] = new_obj.pop(old)`: an existing `new` keeps its position.
            if let Some(v) = obj.shift_remove(&old) {
                obj.insert(new, v);
            }
        }
        out.push(Json::Object(obj));
    }
    Ok(Json::Array(out))
}
