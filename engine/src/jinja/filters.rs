//! Jinja2's builtin filters (jinja2/filters.py), with its parameter names and defaults.

use super::args::{int_arg, Args};
use super::attr::get_attr;
use super::error::{Error, Result};
use super::format::percent_format;
use super::methods::{capitalize, replace, sort_values, splitlines, strip_text};
use super::value::{eq, html_escape, Value, ViewKind};
use canvasc_value::py;
use canvasc_value::py::is_space;
use serde_json::Value as Json;
use std::rc::Rc;

/// `soft_str`: strings stay, undefined is `''`, anything else goes through `str()`.
fn text(v: &Value) -> String {
    v.to_str()
}

fn generator(items: Vec<Value>, head: &'static str) -> Value {
    Value::Iter(Rc::new(items), head)
}

fn arg_or(b: &[Option<Value>], i: usize, default: Value) -> Value {
    b.get(i).cloned().flatten().unwrap_or(default)
}

fn flag(b: &[Option<Value>], i: usize) -> bool {
    b.get(i).cloned().flatten().is_some_and(|v| v.truthy())
}

/// Applies filter `name` to `v`.
pub fn apply(name: &str, v: Value, args: Args) -> Result<Value> {
    let fname = format!("do_{name}");
    let bind = |params: &[&str]| args.bind(&fname, params, 1);
    match name {
        "abs" => {
            bind(&[])?;
            match v {
                Value::Int(i) => i.checked_abs().map(Value::Int).ok_or_else(Error::overflow),
                Value::Bool(b) => Ok(Value::Int(i64::from(b))),
                Value::Float(f) => Ok(Value::Float(f.abs())),
                Value::Undefined(_) => Err(super::value::undefined_error(&v)),
                other => Err(Error::type_error(format!(
                    "bad operand type for abs(): '{}'",
                    other.type_name()
                ))),
            }
        }
        "attr" => {
            let b = bind(&["name"])?;
            let name = arg_or(&b, 0, Value::None);
            let name = name.as_str().unwrap_or_default().to_string();
            Ok(super::attr::attribute_only(&v, &name))
        }
        "batch" => {
            let b = bind(&["linecount", "fill_with"])?;
            let n = int_arg(&arg_or(&b, 0, Value::None))?;
            if n <= 0 {
                return Err(Error::value_error("batch size must be positive"));
            }
            let fill = b[1].clone();
            let items = v.iterate()?;
            let mut out = Vec::new();
            for chunk in items.chunks(n as usize) {
                let mut c = chunk.to_vec();
                if let Some(f) = &fill {
                    while c.len() < n as usize {
                        c.push(f.clone());
                    }
                }
                out.push(Value::list(c));
            }
            Ok(generator(out, "<generator object do_batch"))
        }
        "capitalize" => {
            bind(&[])?;
            Ok(Value::str(capitalize(&text(&v))))
        }
        "center" => {
            let b = bind(&["width"])?;
            let width = int_arg(&arg_or(&b, 0, Value::Int(80)))?;
            super::methods::call(
                &Value::str(text(&v)),
                "center",
                Args::positional(vec![Value::Int(width)]),
            )
        }
        "count" | "length" => {
            bind(&[])?;
            Ok(Value::Int(v.len()? as i64))
        }
        "d" | "default" => {
            let b = args.bind("do_default", &["default_value", "boolean"], 1)?;
            let default = arg_or(&b, 0, Value::str(""));
            let use_default = v.is_undefined() || (flag(&b, 1) && !v.truthy());
            Ok(if use_default { default } else { v })
        }
        "dictsort" => {
            let b = bind(&["case_sensitive", "by", "reverse"])?;
            let case_sensitive = flag(&b, 0);
            let by = arg_or(&b, 1, Value::str("key"));
            let pos = match by.as_str() {
                Some("key") => 0,
                Some("value") => 1,
                _ => {
                    return Err(Error::new(
                        "FilterArgumentError",
                        "You can only sort by either \"key\" or \"value\"",
                    ))
                }
            };
            let mut items = match &v {
                Value::Dict(d) => d
                    .borrow()
                    .iter()
                    .map(|(k, x)| Value::tuple(vec![k.clone(), x.clone()]))
                    .collect::<Vec<_>>(),
                other => Value::View(ViewKind::Items, dict_of(other)?).iterate()?,
            };
            sort_values(
                &mut items,
                |item| {
                    let parts = item.iterate()?;
                    Ok(fold_case(&parts[pos], case_sensitive))
                },
                flag(&b, 2),
            )?;
            Ok(Value::list(items))
        }
        "e" | "escape" => {
            bind(&[])?;
            Ok(match v {
                Value::Markup(_) => v,
                other => Value::Markup(html_escape(&text(&other)).into()),
            })
        }
        "forceescape" => {
            bind(&[])?;
            Ok(Value::Markup(html_escape(&text(&v)).into()))
        }
        "filesizeformat" => {
            let b = bind(&["binary"])?;
            filesizeformat(&v, flag(&b, 0)).map(Value::str)
        }
        "first" => {
            bind(&[])?;
            Ok(v.iterate()?
                .into_iter()
                .next()
                .unwrap_or_else(|| Value::undefined_hint("No first item, sequence was empty.")))
        }
        "last" => {
            bind(&[])?;
            if matches!(v, Value::Iter(_, head) if head.contains("generator")) {
                return Err(Error::type_error("'generator' object is not reversible"));
            }
            if matches!(v, Value::Dict(_)) {
                return Ok(v.iterate()?.pop().unwrap_or_else(|| {
                    Value::undefined_hint("No last item, sequence was empty.")
                }));
            }
            Ok(v.iterate()?
                .pop()
                .unwrap_or_else(|| Value::undefined_hint("No last item, sequence was empty.")))
        }
        "float" => {
            let b = bind(&["default"])?;
            let default = arg_or(&b, 0, Value::Float(0.0));
            match &v {
                Value::Undefined(_) => Err(super::value::undefined_error(&v)),
                Value::Float(_) => Ok(v),
                Value::Int(_) | Value::Bool(_) => Ok(Value::Float(v.as_f64().unwrap_or(0.0))),
                Value::Str(s) | Value::Markup(s) => {
                    Ok(py::parse_float(s).map(Value::Float).unwrap_or(default))
                }
                _ => Ok(default),
            }
        }
        "int" => {
            let b = bind(&["default", "base"])?;
            let default = arg_or(&b, 0, Value::Int(0));
            let base = int_arg(&arg_or(&b, 1, Value::Int(10)))?;
            to_int(&v, default, base)
        }
        "format" => {
            if !args.pos.is_empty() && !args.kw.is_empty() {
                return Err(Error::new(
                    "FilterArgumentError",
                    "can't handle positional and keyword arguments at the same time",
                ));
            }
            let fmt = text(&v);
            let values = if args.kw.is_empty() {
                Value::tuple(args.pos.clone())
            } else {
                Value::dict(
                    args.kw
                        .iter()
                        .map(|(k, x)| (Value::str(k.as_str()), x.clone()))
                        .collect(),
                )
            };
            percent_format(&fmt, &values).map(Value::str)
        }
        "groupby" => {
            let b = bind(&["attribute", "default", "case_sensitive"])?;
            let attribute = arg_or(&b, 0, Value::None);
            let default = b[1].clone();
            let case_sensitive = flag(&b, 2);
            let key = |item: &Value| attribute_path(item, &attribute, default.as_ref());
            let mut items = v.iterate()?;
            sort_values(
                &mut items,
                |x| Ok(fold_case(&key(x)?, case_sensitive)),
                false,
            )?;
            let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
            for item in items {
                let k = key(&item)?;
                let folded = fold_case(&k, case_sensitive);
                match groups.last_mut() {
                    Some((g, list)) if eq(&fold_case(g, case_sensitive), &folded) => {
                        list.push(item)
                    }
                    _ => groups.push((k, vec![item])),
                }
            }
            Ok(Value::list(
                groups
                    .into_iter()
                    .map(|(g, list)| Value::tuple(vec![g, Value::list(list)]))
                    .collect(),
            ))
        }
        "indent" => {
            let b = bind(&["width", "first", "blank"])?;
            let width = arg_or(&b, 0, Value::Int(4));
            let indention = match width.as_str() {
                Some(s) => s.to_string(),
                None => " ".repeat(usize::try_from(int_arg(&width)?).unwrap_or(0)),
            };
            Ok(Value::str(indent(
                &text(&v),
                &indention,
                flag(&b, 1),
                flag(&b, 2),
            )))
        }
        "items" => {
            bind(&[])?;
            match &v {
                Value::Undefined(_) => Ok(generator(Vec::new(), "<generator object do_items")),
                Value::Dict(d) => Ok(generator(
                    Value::View(ViewKind::Items, Rc::clone(d)).iterate()?,
                    "<generator object do_items",
                )),
                other => Err(Error::type_error(format!(
                    "Can only get item pairs from a mapping, not {}",
                    py::repr_str(other.type_name())
                ))),
            }
        }
        "join" => {
            let b = args.bind("sync_do_join", &["d", "attribute"], 1)?;
            let sep = text(&arg_or(&b, 0, Value::str("")));
            let attribute = b[1].clone();
            let mut parts = Vec::new();
            for item in v.iterate()? {
                let item = match &attribute {
                    Some(a) => attribute_path(&item, a, None)?,
                    None => item,
                };
                parts.push(text(&item));
            }
            Ok(Value::str(parts.join(&sep)))
        }
        "list" => {
            bind(&[])?;
            Ok(Value::list(v.iterate()?))
        }
        "lower" => {
            bind(&[])?;
            Ok(Value::str(text(&v).to_lowercase()))
        }
        "upper" => {
            bind(&[])?;
            Ok(Value::str(text(&v).to_uppercase()))
        }
        "map" => {
            let items = v.iterate()?;
            let head = "<generator object sync_do_map";
            if args.pos.is_empty() {
                let b = args.bind("sync_do_map", &["attribute", "default"], 1)?;
                let attribute = arg_or(&b, 0, Value::None);
                let mut out = Vec::new();
                for item in items {
                    out.push(attribute_path(&item, &attribute, b[1].as_ref())?);
                }
                return Ok(generator(out, head));
            }
            let filter = args.pos[0].to_str();
            if !super::names::is_filter(&filter) {
                return Err(Error::runtime(format!(
                    "No filter named {}.",
                    py::repr_str(&filter)
                )));
            }
            let rest = Args {
                pos: args.pos[1..].to_vec(),
                kw: args.kw.clone(),
            };
            let mut out = Vec::new();
            for item in items {
                out.push(apply(&filter, item, rest.clone())?);
            }
            Ok(generator(out, head))
        }
        "max" | "min" => {
            let b = bind(&["case_sensitive", "attribute"])?;
            let case_sensitive = flag(&b, 0);
            let attribute = b[1].clone();
            let mut items = v.iterate()?;
            if items.is_empty() {
                return Ok(Value::undefined_hint(
                    "No aggregated item, sequence was empty.",
                ));
            }
            let key = |x: &Value| -> Result<Value> {
                let x = match &attribute {
                    Some(a) => attribute_path(x, a, None)?,
                    None => x.clone(),
                };
                Ok(fold_case(&x, case_sensitive))
            };
            let mut best = items.remove(0);
            let mut best_key = key(&best)?;
            for item in items {
                let k = key(&item)?;
                let better = if name == "max" {
                    super::value::cmp(&k, &best_key, ">")?.is_gt()
                } else {
                    super::value::cmp(&k, &best_key, "<")?.is_lt()
                };
                if better {
                    best = item;
                    best_key = k;
                }
            }
            Ok(best)
        }
        "pprint" => {
            bind(&[])?;
            Ok(Value::str(v.repr()))
        }
        "random" => {
            bind(&[])?;
            let items = v.iterate()?;
            if items.is_empty() {
                return Err(Error::new(
                    "IndexError",
                    "Cannot choose from an empty sequence",
                ));
            }
            let i = rand::random::<usize>() % items.len();
            Ok(items[i].clone())
        }
        "select" | "reject" => {
            let keep = name == "select";
            let items = v.iterate()?;
            let head = "<generator object select_or_reject";
            let mut out = Vec::new();
            for item in items {
                if test_item(&item, &args.pos, &args.kw)? == keep {
                    out.push(item);
                }
            }
            Ok(generator(out, head))
        }
        "selectattr" | "rejectattr" => {
            let keep = name == "selectattr";
            let Some(attribute) = args.pos.first() else {
                return Err(Error::new(
                    "FilterArgumentError",
                    "Missing parameter for attribute name",
                ));
            };
            let items = v.iterate()?;
            let mut out = Vec::new();
            for item in items {
                let field = attribute_path(&item, attribute, None)?;
                if test_item(&field, &args.pos[1..], &args.kw)? == keep {
                    out.push(item);
                }
            }
            Ok(generator(out, "<generator object select_or_reject"))
        }
        "replace" => {
            let b = bind(&["old", "new", "count"])?;
            let old = text(&arg_or(&b, 0, Value::str("")));
            let new = text(&arg_or(&b, 1, Value::str("")));
            let count = match &b[2] {
                None | Some(Value::None) => -1,
                Some(c) => int_arg(c)?,
            };
            Ok(Value::str(replace(&text(&v), &old, &new, count)))
        }
        "reverse" => {
            bind(&[])?;
            match &v {
                Value::Str(s) | Value::Markup(s) => {
                    Ok(Value::str(s.chars().rev().collect::<String>()))
                }
                Value::List(_) => {
                    let mut items = v.iterate()?;
                    items.reverse();
                    Ok(generator(items, "<list_reverseiterator object"))
                }
                Value::Tuple(_) | Value::Range(..) => {
                    let mut items = v.iterate()?;
                    items.reverse();
                    Ok(generator(items, "<reversed object"))
                }
                other => {
                    let mut items = other.iterate().map_err(|_| {
                        Error::new("FilterArgumentError", "argument must be iterable")
                    })?;
                    items.reverse();
                    Ok(Value::list(items))
                }
            }
        }
        "round" => {
            let b = bind(&["precision", "method"])?;
            let precision = int_arg(&arg_or(&b, 0, Value::Int(0)))?;
            let method = arg_or(&b, 1, Value::str("common"));
            round(&v, precision, method.as_str().unwrap_or(""))
        }
        "safe" => {
            bind(&[])?;
            Ok(Value::Markup(text(&v).into()))
        }
        "slice" => {
            let b = bind(&["slices", "fill_with"])?;
            let slices = int_arg(&arg_or(&b, 0, Value::None))?;
            if slices <= 0 {
                return Err(Error::new(
                    "ZeroDivisionError",
                    "integer division or modulo by zero",
                ));
            }
            let items = v.iterate()?;
            let n = slices as usize;
            let per = items.len() / n;
            let extra = items.len() % n;
            let mut offset = 0;
            let mut out = Vec::new();
            for i in 0..n {
                let start = offset + i * per;
                if i < extra {
                    offset += 1;
                }
                let end = offset + (i + 1) * per;
                let mut part = items[start..end].to_vec();
                if let Some(f) = &b[1] {
                    if i >= extra {
                        part.push(f.clone());
                    }
                }
                out.push(Value::list(part));
            }
            Ok(generator(out, "<generator object sync_do_slice"))
        }
        "sort" => {
            let b = bind(&["reverse", "case_sensitive", "attribute"])?;
            let case_sensitive = flag(&b, 1);
            let attribute = b[2].clone();
            let mut items = v.iterate()?;
            sort_values(
                &mut items,
                |x| {
                    let x = match &attribute {
                        Some(a) => attribute_path(x, a, None)?,
                        None => x.clone(),
                    };
                    Ok(fold_case(&x, case_sensitive))
                },
                flag(&b, 0),
            )?;
            Ok(Value::list(items))
        }
        "string" => {
            bind(&[])?;
            Ok(match v {
                Value::Markup(_) => v,
                other => Value::str(text(&other)),
            })
        }
        "striptags" => {
            bind(&[])?;
            Ok(Value::str(striptags(&text(&v))))
        }
        "sum" => {
            let b = bind(&["attribute", "start"])?;
            let mut total = arg_or(&b, 1, Value::Int(0));
            for item in v.iterate()? {
                let item = match &b[0] {
                    Some(a) => attribute_path(&item, a, None)?,
                    None => item,
                };
                total = super::ops::add(&total, &item)?;
            }
            Ok(total)
        }
        "title" => {
            bind(&[])?;
            Ok(Value::str(jinja_title(&text(&v))))
        }
        "tojson" => {
            let b = bind(&["indent"])?;
            let indent = match &b[0] {
                None | Some(Value::None) => None,
                Some(i) => Some(usize::try_from(int_arg(i)?).unwrap_or(0)),
            };
            let json = to_json(&v)?;
            let dumped = py::json_dumps_opts(
                &json,
                py::JsonOpts {
                    ensure_ascii: true,
                    indent,
                    sort_keys: true,
                    compact: false,
                },
            );
            let safe = dumped
                .replace('<', "\\u003c")
                .replace('>', "\\u003e")
                .replace('&', "\\u0026")
                .replace('\'', "\\u0027");
            Ok(Value::Markup(safe.into()))
        }
        "trim" => {
            let b = bind(&["chars"])?;
            let chars = match &b[0] {
                None | Some(Value::None) => None,
                Some(c) => Some(text(c)),
            };
            Ok(Value::str(strip_text(&text(&v), chars.as_deref())))
        }
        "truncate" => {
            let b = bind(&["length", "killwords", "end", "leeway"])?;
            let length = int_arg(&arg_or(&b, 0, Value::Int(255)))?;
            let killwords = flag(&b, 1);
            let end = text(&arg_or(&b, 2, Value::str("...")));
            let leeway = match &b[3] {
                None | Some(Value::None) => 5,
                Some(l) => int_arg(l)?,
            };
            truncate(&text(&v), length, killwords, &end, leeway).map(Value::str)
        }
        "unique" => {
            let b = bind(&["case_sensitive", "attribute"])?;
            let case_sensitive = flag(&b, 0);
            let mut seen: Vec<Value> = Vec::new();
            let mut out = Vec::new();
            for item in v.iterate()? {
                let k = match &b[1] {
                    Some(a) => attribute_path(&item, a, None)?,
                    None => item.clone(),
                };
                let k = fold_case(&k, case_sensitive);
                if !seen.iter().any(|s| eq(s, &k)) {
                    seen.push(k);
                    out.push(item);
                }
            }
            Ok(generator(out, "<generator object do_unique"))
        }
        "urlencode" => {
            bind(&[])?;
            urlencode(&v).map(Value::str)
        }
        "urlize" => {
            let b = bind(&[
                "trim_url_limit",
                "nofollow",
                "target",
                "rel",
                "extra_schemes",
            ])?;
            let limit = match &b[0] {
                None | Some(Value::None) => None,
                Some(n) => Some(usize::try_from(int_arg(n)?).unwrap_or(0)),
            };
            let mut rel: Vec<String> = match &b[3] {
                None | Some(Value::None) => Vec::new(),
                Some(r) => text(r).split_whitespace().map(String::from).collect(),
            };
            if flag(&b, 1) {
                rel.push("nofollow".to_string());
            }
            rel.push("noopener".to_string());
            rel.sort();
            rel.dedup();
            let rel = rel.join(" ");
            let target = match &b[2] {
                None | Some(Value::None) => None,
                Some(t) => Some(text(t)),
            };
            Ok(Value::Markup(
                super::urlize::urlize(&text(&v), limit, Some(&rel), target.as_deref()).into(),
            ))
        }
        "wordcount" => {
            bind(&[])?;
            let s = text(&v);
            let n = s
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .count();
            Ok(Value::Int(n as i64))
        }
        "wordwrap" => {
            let b = bind(&[
                "width",
                "break_long_words",
                "wrapstring",
                "break_on_hyphens",
            ])?;
            let width = usize::try_from(int_arg(&arg_or(&b, 0, Value::Int(79)))?).unwrap_or(0);
            let break_long = b[1].as_ref().is_none_or(Value::truthy);
            let wrapstring = match &b[2] {
                None | Some(Value::None) => "\n".to_string(),
                Some(w) => text(w),
            };
            let s = text(&v);
            let paragraphs: Vec<String> = splitlines(&s, false)
                .iter()
                .map(|line| wrap(line, width, break_long).join(&wrapstring))
                .collect();
            Ok(Value::str(paragraphs.join(&wrapstring)))
        }
        "xmlattr" => {
            let b = bind(&["autospace"])?;
            let autospace = b[0].as_ref().is_none_or(Value::truthy);
            let Value::Dict(d) = &v else {
                return Err(Error::new(
                    "AttributeError",
                    format!("'{}' object has no attribute 'items'", v.type_name()),
                ));
            };
            let mut parts = Vec::new();
            for (k, x) in d.borrow().iter() {
                if matches!(x, Value::None | Value::Undefined(_)) {
                    continue;
                }
                let key = text(k);
                if key.chars().any(|c| is_space(c) || "/>=".contains(c)) {
                    return Err(Error::value_error(format!(
                        "Invalid character in attribute name: {}",
                        py::repr_str(&key)
                    )));
                }
                parts.push(format!(
                    "{}=\"{}\"",
                    html_escape(&key),
                    html_escape(&text(x))
                ));
            }
            let mut out = parts.join(" ");
            if autospace && !out.is_empty() {
                out.insert(0, ' ');
            }
            Ok(Value::Markup(out.into()))
        }
        other => Err(Error::new(
            "TemplateAssertionError",
            format!("No filter named {}.", py::repr_str(other)),
        )),
    }
}

fn dict_of(v: &Value) -> Result<Rc<std::cell::RefCell<super::value::Dict>>> {
    match v {
        Value::Dict(d) => Ok(Rc::clone(d)),
        other => Err(Error::new(
            "AttributeError",
            format!("'{}' object has no attribute 'items'", other.type_name()),
        )),
    }
}

/// Case folding for case-insensitive sorting and grouping (`ignore_case`: strings lowered).
fn fold_case(v: &Value, case_sensitive: bool) -> Value {
    match v.as_str() {
        Some(s) if !case_sensitive => Value::str(s.to_lowercase()),
        _ => v.clone(),
    }
}

/// `make_attrgetter`: a dotted path of attributes or integer items (`'a.0.b'`).
pub fn attribute_path(item: &Value, attribute: &Value, default: Option<&Value>) -> Result<Value> {
    let parts: Vec<Value> = match attribute {
        Value::Str(s) | Value::Markup(s) => s
            .split('.')
            .map(|p| match p.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::str(p),
            })
            .collect(),
        Value::None => vec![],
        other => vec![other.clone()],
    };
    let mut cur = item.clone();
    for part in parts {
        cur = match part.as_str() {
            Some(name) => get_attr(&cur, name),
            None => super::attr::get_item(&cur, &part),
        };
        if cur.is_undefined() {
            if let Some(d) = default {
                return Ok(d.clone());
            }
        }
    }
    Ok(cur)
}

/// `select`/`reject`: the named test (truthiness without one).
fn test_item(item: &Value, pos: &[Value], kw: &[(String, Value)]) -> Result<bool> {
    match pos.first() {
        None => Ok(item.truthy()),
        Some(name) => {
            let name = name.to_str();
            if !super::names::is_test(&name) {
                return Err(Error::runtime(format!(
                    "No test named {}.",
                    py::repr_str(&name)
                )));
            }
            let args = Args {
                pos: pos[1..].to_vec(),
                kw: kw.to_vec(),
            };
            if name == "defined" || name == "undefined" {
                return Ok(item.is_undefined() == (name == "undefined"));
            }
            super::predicates::apply(&name, item, args)
        }
    }
}

fn to_int(v: &Value, default: Value, base: i64) -> Result<Value> {
    match v {
        Value::Undefined(_) => Err(super::value::undefined_error(v)),
        Value::Int(_) => Ok(v.clone()),
        Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
        Value::Float(f) if f.is_finite() => Ok(Value::Int(f.trunc() as i64)),
        Value::Float(_) => Err(Error::new(
            "OverflowError",
            "cannot convert float infinity to integer",
        )),
        Value::Str(s) | Value::Markup(s) => {
            if let Some(i) = parse_int_base(s, base) {
                return Ok(Value::Int(i));
            }
            match py::parse_float(s) {
                Some(f) if f.is_finite() => Ok(Value::Int(f.trunc() as i64)),
                Some(f) if f.is_nan() => {
                    Err(Error::value_error("cannot convert float NaN to integer"))
                }
                Some(_) => Err(Error::new(
                    "OverflowError",
                    "cannot convert float infinity to integer",
                )),
                None => Ok(default),
            }
        }
        _ => Ok(default),
    }
}

/// Python `int(s, base)`: whitespace, sign, `_` between digits, a `0x`/`0o`/`0b` prefix that
/// must match `base` (or select it when `base` is 0).
fn parse_int_base(s: &str, base: i64) -> Option<i64> {
    let t = s.trim_matches(is_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, &lower[2..]),
        (0 | 8, Some("0o")) => (8, &lower[2..]),
        (0 | 2, Some("0b")) => (2, &lower[2..]),
        (0, _) => {
            if lower.starts_with('0') && !lower.trim_start_matches(['0', '_']).is_empty() {
                return None;
            }
            (10, lower.as_str())
        }
        (b, _) if (2..=36).contains(&b) => (b as u32, lower.as_str()),
        _ => return None,
    };
    let digits = digits
        .strip_prefix('_')
        .filter(|_| base == 0 || radix != 10)
        .unwrap_or(digits);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let magnitude = i64::from_str_radix(&clean, radix).ok()?;
    Some(if neg { -magnitude } else { magnitude })
}

fn round(v: &Value, precision: i64, method: &str) -> Result<Value> {
    if !matches!(method, "common" | "ceil" | "floor") {
        return Err(Error::new(
            "FilterArgumentError",
            "method must be common, ceil or floor",
        ));
    }
    let x = match v {
        Value::Int(_) | Value::Bool(_) if method == "common" => {
            if precision >= 0 {
                return Ok(Value::Int(v.as_int().unwrap_or(0)));
            }
            let p = 10f64.powi(-precision as i32);
            let i = v.as_int().unwrap_or(0) as f64;
            return Ok(Value::Int((round_half_even(i / p) * p) as i64));
        }
        Value::Undefined(_) => return Err(super::value::undefined_error(v)),
        v => v.as_f64().ok_or_else(|| {
            Error::type_error(format!(
                "type {} doesn't define __round__ method",
                v.type_name()
            ))
        })?,
    };
    let scale = 10f64.powi(precision as i32);
    Ok(Value::Float(match method {
        "common" => {
            if precision >= 0 {
                let p = precision as usize;
                format!("{x:.p$}").parse().unwrap_or(x)
            } else {
                let p = 10f64.powi(-precision as i32);
                round_half_even(x / p) * p
            }
        }
        "ceil" => (x * scale).ceil() / scale,
        _ => (x * scale).floor() / scale,
    }))
}

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

fn truncate(s: &str, length: i64, killwords: bool, end: &str, leeway: i64) -> Result<String> {
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(Error::new(
            "AssertionError",
            format!("expected length >= {end_len}, got {length}"),
        ));
    }
    if leeway < 0 {
        return Err(Error::new(
            "AssertionError",
            format!("expected leeway >= 0, got {leeway}"),
        ));
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() as i64 <= length + leeway {
        return Ok(s.to_string());
    }
    let head: String = chars[..(length - end_len) as usize].iter().collect();
    if killwords {
        return Ok(head + end);
    }
    let kept = match head.rfind(' ') {
        Some(i) => head[..i].to_string(),
        None => head,
    };
    Ok(kept + end)
}

fn indent(s: &str, indention: &str, first: bool, blank: bool) -> String {
    let s = format!("{s}\n");
    let lines = splitlines(&s, false);
    let mut rv = if blank {
        lines.join(&format!("\n{indention}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default();
        let rest: Vec<String> = it
            .map(|l| {
                if l.is_empty() {
                    l
                } else {
                    format!("{indention}{l}")
                }
            })
            .collect();
        if !rest.is_empty() {
            rv.push('\n');
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if first {
        rv.insert_str(0, indention);
    }
    rv
}

/// Jinja2's `title`: words start after `-`, whitespace or an opening bracket.
fn jinja_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at_start = true;
    for c in s.chars() {
        let boundary = c == '-' || is_space(c) || "({[<".contains(c);
        if boundary {
            out.push(c);
            at_start = true;
        } else if at_start {
            out.extend(c.to_uppercase());
            at_start = false;
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

fn filesizeformat(v: &Value, binary: bool) -> Result<String> {
    let bytes = match v {
        Value::Str(s) | Value::Markup(s) => py::parse_float(s).ok_or_else(|| {
            Error::value_error(format!(
                "could not convert string to float: {}",
                py::repr_str(s)
            ))
        })?,
        v => v.as_f64().ok_or_else(|| {
            Error::type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                v.type_name()
            ))
        })?,
    };
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return Ok("1 Byte".to_string());
    }
    if bytes < base {
        return Ok(format!("{} Bytes", bytes.trunc() as i64));
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit {
            return Ok(format!("{:.1} {prefix}", base * bytes / unit));
        }
    }
    Ok(format!("{:.1} {}", base * bytes / unit, prefixes[7]))
}

/// `Markup.striptags`: comments and tags removed, whitespace collapsed, entities decoded.
fn striptags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let comment = rest.find("<!--");
        let tag = rest.find('<');
        match (comment, tag) {
            (Some(c), _) if Some(c) == tag => {
                out.push_str(&rest[..c]);
                match rest[c + 4..].find("-->") {
                    Some(e) => rest = &rest[c + 4 + e + 3..],
                    None => {
                        out.push_str(&rest[c..]);
                        break;
                    }
                }
            }
            (_, Some(t)) => {
                out.push_str(&rest[..t]);
                match rest[t + 1..].find('>') {
                    Some(e) => rest = &rest[t + 1 + e + 1..],
                    None => {
                        out.push_str(&rest[t..]);
                        break;
                    }
                }
            }
            _ => {
                out.push_str(rest);
                break;
            }
        }
    }
    let collapsed = out
        .split(is_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    html_unescape(&collapsed)
}

/// `html.unescape` for the named entities markupsafe emits and numeric references.
fn html_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|e| *e <= 32);
        let decoded = end.and_then(|e| {
            let ent = &rest[1..e];
            let c = match ent {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ if ent.starts_with("#x") || ent.starts_with("#X") => {
                    u32::from_str_radix(&ent[2..], 16)
                        .ok()
                        .and_then(char::from_u32)
                }
                _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `textwrap.wrap` without hyphen breaking (whitespace chunks, greedy fill).
fn wrap(line: &str, width: usize, break_long: bool) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in line.split(is_space).filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let sep = usize::from(cur_len > 0);
            if cur_len + sep + word.len() <= width {
                if sep == 1 {
                    cur.push(' ');
                }
                cur.extend(word.iter());
                cur_len += sep + word.len();
                break;
            }
            if word.len() > width && break_long {
                let room = width.saturating_sub(cur_len + sep);
                if room == 0 {
                    lines.push(std::mem::take(&mut cur));
                    cur_len = 0;
                    continue;
                }
                if sep == 1 {
                    cur.push(' ');
                }
                cur.extend(word[..room].iter());
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
                word = word[room..].to_vec();
                continue;
            }
            if cur_len > 0 {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
                continue;
            }
            cur.extend(word.iter());
            cur_len = word.len();
            break;
        }
    }
    if cur_len > 0 {
        lines.push(cur);
    }
    lines
}

fn url_quote(s: &str, for_qs: bool) -> String {
    let mut out = String::new();
    for b in s.as_bytes() {
        let c = *b as char;
        if c.is_ascii_alphanumeric() || "_.-~".contains(c) || (!for_qs && c == '/') {
            out.push(c);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if for_qs {
        out.replace("%20", "+")
    } else {
        out
    }
}

fn urlencode(v: &Value) -> Result<String> {
    let pairs: Vec<(Value, Value)> = match v {
        Value::Str(s) | Value::Markup(s) => return Ok(url_quote(s, false)),
        Value::Dict(d) => d.borrow().clone(),
        other if other.is_number() || matches!(other, Value::None) => {
            return Ok(url_quote(&other.to_str(), false))
        }
        other => {
            let mut out = Vec::new();
            for item in other.iterate()? {
                if let [k, x] = item.iterate()?.as_slice() {
                    out.push((k.clone(), x.clone()));
                }
            }
            out
        }
    };
    Ok(pairs
        .iter()
        .map(|(k, x)| {
            format!(
                "{}={}",
                url_quote(&k.to_str(), true),
                url_quote(&x.to_str(), true)
            )
        })
        .collect::<Vec<_>>()
        .join("&"))
}

/// A value as JSON for `tojson` (`json.dumps` raises `TypeError` on what JSON cannot hold).
fn to_json(v: &Value) -> Result<Json> {
    Ok(match v {
        Value::None => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .unwrap_or(Json::Null),
        Value::Str(s) | Value::Markup(s) => Json::String(s.to_string()),
        Value::List(_) | Value::Tuple(_) => {
            Json::Array(v.iterate()?.iter().map(to_json).collect::<Result<_>>()?)
        }
        Value::Dict(d) => {
            let mut m = serde_json::Map::new();
            for (k, x) in d.borrow().iter() {
                let key = match k {
                    Value::Str(s) | Value::Markup(s) => s.to_string(),
                    Value::None => "null".to_string(),
                    Value::Bool(b) => b.to_string(),
                    Value::Int(_) | Value::Float(_) => k.to_str(),
                    other => {
                        return Err(Error::type_error(format!(
                            "keys must be str, int, float, bool or None, not {}",
                            other.type_name()
                        )))
                    }
                };
                m.insert(key, to_json(x)?);
            }
            Json::Object(m)
        }
        other => {
            return Err(Error::type_error(format!(
                "Object of type {} is not JSON serializable",
                other.type_name()
            )))
        }
    })
}
