//! Python's `str`, `list`, `tuple` and `dict` methods that templates call (`x.split('-')`),
//! plus the methods of Jinja2's own helpers (`loop.cycle`, `cycler.next`).

use super::args::{int_arg, Args};
use super::error::{Error, Result};
use super::format::str_format;
use super::value::{cmp, dict_set, eq, Value, ViewKind};
use canvasc_value::py::{self, is_space, strip_ends};

const STR_METHODS: &[&str] = &[
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "upper",
    "lower",
    "title",
    "capitalize",
    "swapcase",
    "casefold",
    "replace",
    "startswith",
    "endswith",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "join",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "partition",
    "rpartition",
    "splitlines",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "istitle",
    "isnumeric",
    "isdecimal",
    "isidentifier",
    "isascii",
    "isprintable",
    "format",
    "expandtabs",
    "removeprefix",
    "removesuffix",
    "encode",
];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "pop", "insert", "remove", "reverse", "sort", "copy", "index", "count",
    "clear",
];
const TUPLE_METHODS: &[&str] = &["index", "count"];
const DICT_METHODS: &[&str] = &[
    "items",
    "keys",
    "values",
    "get",
    "update",
    "pop",
    "setdefault",
    "copy",
    "clear",
];

/// The method `name` of `obj`, if it has one.
pub fn lookup(obj: &Value, name: &str) -> Option<&'static str> {
    let table: &[&'static str] = match obj {
        Value::Str(_) | Value::Markup(_) => STR_METHODS,
        Value::Bytes(_) => &["decode"],
        Value::List(_) => LIST_METHODS,
        Value::Tuple(_) => TUPLE_METHODS,
        Value::Dict(_) => DICT_METHODS,
        Value::Cycler(_) => &["next", "reset"],
        Value::Range(..) => &["index", "count"],
        _ => &[],
    };
    table.iter().copied().find(|m| *m == name)
}

/// Calls `recv.name(*args)`.
pub fn call(recv: &Value, name: &str, args: Args) -> Result<Value> {
    match recv {
        Value::Str(s) | Value::Markup(s) if name == "encode" => super::codecs::encode(s, &args),
        Value::Str(s) | Value::Markup(s) => str_method(s, name, &args),
        Value::Bytes(b) => super::codecs::decode(b, &args),
        Value::List(l) => list_method(l, name, args),
        Value::Tuple(t) => seq_method(t, name, &args),
        Value::Range(..) => seq_method(&recv.iterate()?, name, &args),
        Value::Dict(d) => dict_method(d, name, args),
        Value::Loop(state) => match name {
            "cycle" => state.cycle(&args.pos),
            _ => Ok(state.changed(&args.pos)),
        },
        Value::Cycler(c) => {
            let mut c = c.borrow_mut();
            match name {
                "next" => {
                    let v = c.0.get(c.1).cloned().unwrap_or(Value::None);
                    if !c.0.is_empty() {
                        c.1 = (c.1 + 1) % c.0.len();
                    }
                    Ok(v)
                }
                _ => {
                    c.1 = 0;
                    Ok(Value::None)
                }
            }
        }
        v => Err(Error::type_error(format!(
            "'{}' object has no method {name}",
            v.type_name()
        ))),
    }
}

fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase()
}

fn opt_str<'a>(v: &'a Option<Value>, what: &str) -> Result<Option<&'a str>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => v.as_str().map(Some).ok_or_else(|| {
            let what = if what.is_empty() {
                String::new()
            } else {
                format!("{what} ")
            };
            Error::type_error(format!("{what}must be str or None, not {}", v.type_name()))
        }),
    }
}

fn opt_int(v: &Option<Value>, default: i64) -> Result<i64> {
    match v {
        None => Ok(default),
        Some(v) => int_arg(v),
    }
}

/// Python's `str.split(sep, maxsplit)` (or `rsplit` when `from_right`).
pub fn split(s: &str, sep: Option<&str>, maxsplit: i64, from_right: bool) -> Result<Vec<String>> {
    let max = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    match sep {
        Some("") => Err(Error::value_error("empty separator")),
        Some(sep) => Ok(if from_right {
            let mut parts: Vec<String> = s
                .rsplitn(max.saturating_add(1), sep)
                .map(String::from)
                .collect();
            parts.reverse();
            parts
        } else {
            s.splitn(max.saturating_add(1), sep)
                .map(String::from)
                .collect()
        }),
        None => {
            let chars: Vec<char> = s.chars().collect();
            let mut words: Vec<(usize, usize)> = Vec::new();
            let mut i = 0;
            while i < chars.len() {
                while i < chars.len() && is_space(chars[i]) {
                    i += 1;
                }
                if i == chars.len() {
                    break;
                }
                let start = i;
                while i < chars.len() && !is_space(chars[i]) {
                    i += 1;
                }
                words.push((start, i));
            }
            let text = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
            if words.len() <= max.saturating_add(1) {
                return Ok(words.iter().map(|&(a, b)| text(a, b)).collect());
            }
            // The unsplit remainder keeps its whitespace on the far side.
            Ok(if from_right {
                let keep = words.len() - max;
                let mut out = vec![text(0, words[keep - 1].1)];
                out.extend(words[keep..].iter().map(|&(a, b)| text(a, b)));
                out
            } else {
                let mut out: Vec<String> = words[..max].iter().map(|&(a, b)| text(a, b)).collect();
                out.push(text(words[max].0, chars.len()));
                out
            })
        }
    }
}

/// Python `s.strip(chars)` (whitespace when `chars` is `None`).
pub fn strip_text(s: &str, chars: Option<&str>) -> String {
    strip_ends(s, chars, true, true).to_string()
}

/// Unicode's titlecase mapping of one character: its uppercase, except for the ligatures and
/// digraphs whose titlecase differs (`ß` → `Ss`, `ǆ` → `ǅ`, `ﬁ` → `Fi`).
pub fn titlecase(c: char) -> String {
    match c {
        'ß' => "Ss".to_string(),
        'Ǆ' | 'ǅ' | 'ǆ' => "ǅ".to_string(),
        'Ǉ' | 'ǈ' | 'ǉ' => "ǈ".to_string(),
        'Ǌ' | 'ǋ' | 'ǌ' => "ǋ".to_string(),
        'Ǳ' | 'ǲ' | 'ǳ' => "ǲ".to_string(),
        'ﬀ' => "Ff".to_string(),
        'ﬁ' => "Fi".to_string(),
        'ﬂ' => "Fl".to_string(),
        'ﬃ' => "Ffi".to_string(),
        'ﬄ' => "Ffl".to_string(),
        'ﬅ' | 'ﬆ' => "St".to_string(),
        'և' => "Եւ".to_string(),
        c => c.to_uppercase().collect(),
    }
}

/// Python `str.title()`.
pub fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.push_str(&titlecase(c));
        }
        prev_cased = is_cased(c);
    }
    out
}

/// Python `str.capitalize()`.
pub fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => {
            let mut out = titlecase(first);
            out.extend(chars.flat_map(char::to_lowercase));
            out
        }
        None => String::new(),
    }
}

/// Char-index window `[start, end)` of Python's optional `start`/`end` arguments.
fn window(len: usize, start: &Option<Value>, end: &Option<Value>) -> Result<(usize, usize)> {
    let n = len as i64;
    let norm = |v: &Option<Value>, default: i64| -> Result<i64> {
        match v {
            None | Some(Value::None) => Ok(default),
            Some(v) => {
                let i = int_arg(v)?;
                Ok(if i < 0 { (i + n).max(0) } else { i.min(n) })
            }
        }
    };
    let a = norm(start, 0)?;
    let b = norm(end, n)?;
    Ok((a as usize, b.max(a) as usize))
}

fn find(
    s: &str,
    needle: &str,
    start: &Option<Value>,
    end: &Option<Value>,
    rev: bool,
) -> Result<i64> {
    let chars: Vec<char> = s.chars().collect();
    let (a, b) = window(chars.len(), start, end)?;
    let hay: String = chars[a..b].iter().collect();
    let hit = if rev {
        hay.rfind(needle)
    } else {
        hay.find(needle)
    };
    Ok(match hit {
        Some(byte) => (a + hay[..byte].chars().count()) as i64,
        None if needle.is_empty() && a <= chars.len() && a <= b => {
            if rev {
                b as i64
            } else {
                a as i64
            }
        }
        None => -1,
    })
}

fn pad(s: &str, width: i64, fill: Option<&Value>, how: char) -> Result<String> {
    let fill = match fill {
        None => ' ',
        Some(v) => {
            let f = v.as_str().ok_or_else(|| {
                Error::type_error(format!(
                    "The fill character must be a unicode character, not {}",
                    v.type_name()
                ))
            })?;
            let mut cs = f.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => c,
                _ => {
                    return Err(Error::type_error(
                        "The fill character must be exactly one character long",
                    ))
                }
            }
        }
    };
    let len = s.chars().count() as i64;
    if width <= len {
        return Ok(s.to_string());
    }
    let marg = width - len;
    let left = match how {
        'l' => 0,
        'r' => marg,
        _ => marg / 2 + (marg & width & 1),
    };
    let f = |n: i64| std::iter::repeat_n(fill, n as usize).collect::<String>();
    Ok(format!("{}{s}{}", f(left), f(marg - left)))
}

fn prefix_arg(v: &Value, method: &str) -> Result<Vec<String>> {
    match v {
        Value::Tuple(t) => t
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    Error::type_error(format!(
                        "tuple for {method} must only contain str, not {}",
                        x.type_name()
                    ))
                })
            })
            .collect(),
        v => match v.as_str() {
            Some(s) => Ok(vec![s.to_string()]),
            None => Err(Error::type_error(format!(
                "{method} first arg must be str or a tuple of str, not {}",
                v.type_name()
            ))),
        },
    }
}

fn strs(items: Vec<String>) -> Value {
    Value::list(items.into_iter().map(Value::str).collect())
}

/// Python `str.splitlines(keepends)`.
pub fn splitlines(s: &str, keepends: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            line.push(c);
            continue;
        }
        let mut end = c.to_string();
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
            end.push('\n');
        }
        if keepends {
            line.push_str(&end);
        }
        out.push(std::mem::take(&mut line));
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

fn str_method(s: &str, name: &str, args: &Args) -> Result<Value> {
    let bool_ = |b: bool| Ok(Value::Bool(b));
    let nonempty_all = |f: &dyn Fn(char) -> bool| !s.is_empty() && s.chars().all(f);
    match name {
        "upper" | "lower" | "title" | "capitalize" | "swapcase" | "casefold" | "isdigit"
        | "isalpha" | "isalnum" | "isspace" | "isupper" | "islower" | "istitle" | "isnumeric"
        | "isdecimal" | "isidentifier" | "isascii" | "isprintable" => {
            args.none(&format!("str.{name}"))?;
        }
        _ => {}
    }
    match name {
        "upper" => Ok(Value::str(s.to_uppercase())),
        "lower" => Ok(Value::str(s.to_lowercase())),
        "title" => Ok(Value::str(title(s))),
        "capitalize" => Ok(Value::str(capitalize(s))),
        "casefold" => Ok(Value::str(s.to_lowercase().replace('ß', "ss"))),
        "swapcase" => Ok(Value::str(
            s.chars()
                .flat_map(|c| -> Vec<char> {
                    if c.is_uppercase() {
                        c.to_lowercase().collect()
                    } else if c.is_lowercase() {
                        c.to_uppercase().collect()
                    } else {
                        vec![c]
                    }
                })
                .collect::<String>(),
        )),
        // Approximation: Rust has no Numeric_Type property, so every non-ASCII numeric
        // character counts as a digit (Python excludes fractions and numerals like '½').
        "isdigit" | "isdecimal" => bool_(nonempty_all(&|c| {
            c.is_ascii_digit() || (c.is_numeric() && !c.is_ascii())
        })),
        "isnumeric" => bool_(nonempty_all(&char::is_numeric)),
        "isalpha" => bool_(nonempty_all(&char::is_alphabetic)),
        "isalnum" => bool_(nonempty_all(&char::is_alphanumeric)),
        "isspace" => bool_(nonempty_all(&is_space)),
        "isascii" => bool_(s.is_ascii()),
        "isprintable" => bool_(s.chars().all(py::is_printable)),
        "isupper" => bool_(s.chars().any(is_cased) && !s.chars().any(char::is_lowercase)),
        "islower" => bool_(s.chars().any(is_cased) && !s.chars().any(char::is_uppercase)),
        "istitle" => bool_(s.chars().any(is_cased) && title(s) == s),
        "isidentifier" => {
            let mut cs = s.chars();
            bool_(
                cs.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && cs.all(|c| c.is_alphanumeric() || c == '_'),
            )
        }
        "split" | "rsplit" => {
            let b = args.bind(name, &["sep", "maxsplit"], 0)?;
            let sep = opt_str(&b[0], "")?;
            let parts = split(s, sep, opt_int(&b[1], -1)?, name == "rsplit")?;
            Ok(strs(parts))
        }
        "strip" | "lstrip" | "rstrip" => {
            let b = args.bind(name, &["chars"], 0)?;
            let chars = opt_str(&b[0], &format!("{name} arg"))?;
            Ok(Value::str(strip_ends(
                s,
                chars,
                name != "rstrip",
                name != "lstrip",
            )))
        }
        "replace" => {
            let b = args.bind(name, &["old", "new", "count"], 0)?;
            let (Some(old), Some(new)) = (&b[0], &b[1]) else {
                return Err(Error::type_error(format!(
                    "replace expected at least 2 arguments, got {}",
                    args.pos.len()
                )));
            };
            let old = super::args::str_arg(old, "replace() argument 1")?;
            let new = super::args::str_arg(new, "replace() argument 2")?;
            let count = opt_int(&b[2], -1)?;
            Ok(Value::str(replace(s, old, new, count)))
        }
        "startswith" | "endswith" => {
            let b = args.bind(name, &["prefix", "start", "end"], 0)?;
            let Some(p) = &b[0] else {
                return Err(Error::type_error(format!(
                    "{name}() takes at least 1 argument (0 given)"
                )));
            };
            let prefixes = prefix_arg(p, name)?;
            let chars: Vec<char> = s.chars().collect();
            let (a, e) = window(chars.len(), &b[1], &b[2])?;
            let part: String = chars[a..e].iter().collect();
            bool_(prefixes.iter().any(|p| {
                if name == "startswith" {
                    part.starts_with(p.as_str())
                } else {
                    part.ends_with(p.as_str())
                }
            }))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let b = args.bind(name, &["sub", "start", "end"], 0)?;
            let Some(sub) = &b[0] else {
                return Err(Error::type_error(format!(
                    "{name}() takes at least 1 argument (0 given)"
                )));
            };
            let sub = sub.as_str().ok_or_else(|| {
                Error::type_error(format!("must be str, not {}", sub.type_name()))
            })?;
            if name == "count" {
                let chars: Vec<char> = s.chars().collect();
                let (a, e) = window(chars.len(), &b[1], &b[2])?;
                let part: String = chars[a..e].iter().collect();
                let n = if sub.is_empty() {
                    part.chars().count() + 1
                } else {
                    part.matches(sub).count()
                };
                return Ok(Value::Int(n as i64));
            }
            let i = find(s, sub, &b[1], &b[2], name.starts_with('r'))?;
            if i < 0 && name.ends_with("index") {
                return Err(Error::value_error("substring not found"));
            }
            Ok(Value::Int(i))
        }
        "join" => {
            let b = args.bind(name, &["iterable"], 0)?;
            let Some(items) = &b[0] else {
                return Err(Error::type_error(
                    "str.join() takes exactly one argument (0 given)",
                ));
            };
            let mut parts = Vec::new();
            for (i, item) in items.iterate()?.iter().enumerate() {
                match item.as_str() {
                    Some(t) => parts.push(t.to_string()),
                    None => {
                        return Err(Error::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            item.type_name()
                        )))
                    }
                }
            }
            Ok(Value::str(parts.join(s)))
        }
        "zfill" => {
            let b = args.bind(name, &["width"], 0)?;
            let width = opt_int(&b[0], 0)?;
            let len = s.chars().count() as i64;
            if width <= len {
                return Ok(Value::str(s));
            }
            let zeros = "0".repeat((width - len) as usize);
            Ok(Value::str(match s.chars().next() {
                Some(c @ ('+' | '-')) => format!("{c}{zeros}{}", &s[1..]),
                _ => format!("{zeros}{s}"),
            }))
        }
        "center" | "ljust" | "rjust" => {
            let b = args.bind(name, &["width", "fillchar"], 0)?;
            let width = match &b[0] {
                Some(w) => int_arg(w)?,
                None => {
                    return Err(Error::type_error(format!(
                        "{name} expected at least 1 argument, got 0"
                    )))
                }
            };
            let how = match name {
                "ljust" => 'l',
                "rjust" => 'r',
                _ => 'c',
            };
            Ok(Value::str(pad(s, width, b[1].as_ref(), how)?))
        }
        "partition" | "rpartition" => {
            let b = args.bind(name, &["sep"], 0)?;
            let sep = match &b[0] {
                Some(v) => super::args::str_arg(v, "sep")?,
                None => {
                    return Err(Error::type_error(format!(
                        "str.{name}() takes exactly one argument (0 given)"
                    )))
                }
            };
            if sep.is_empty() {
                return Err(Error::value_error("empty separator"));
            }
            let hit = if name == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts = match hit {
                Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
                None if name == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Ok(Value::tuple(parts.iter().map(|p| Value::str(*p)).collect()))
        }
        "splitlines" => {
            let b = args.bind(name, &["keepends"], 0)?;
            let keep = b[0].as_ref().is_some_and(Value::truthy);
            Ok(strs(splitlines(s, keep)))
        }
        "format" => Ok(Value::str(str_format(s, &args.pos, &args.kw)?)),
        "expandtabs" => {
            let b = args.bind(name, &["tabsize"], 0)?;
            let size = opt_int(&b[0], 8)?.max(0) as usize;
            let mut out = String::new();
            let mut col = 0usize;
            for c in s.chars() {
                match c {
                    '\t' if size > 0 => {
                        let n = size - col % size;
                        out.push_str(&" ".repeat(n));
                        col += n;
                    }
                    '\t' => {}
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Ok(Value::str(out))
        }
        "removeprefix" | "removesuffix" => {
            let b = args.bind(name, &["affix"], 0)?;
            let affix = match &b[0] {
                Some(v) => super::args::str_arg(v, &format!("{name}() argument"))?,
                None => {
                    return Err(Error::type_error(format!(
                        "str.{name}() takes exactly one argument (0 given)"
                    )))
                }
            };
            let out = if name == "removeprefix" {
                s.strip_prefix(affix).unwrap_or(s)
            } else {
                s.strip_suffix(affix).unwrap_or(s)
            };
            Ok(Value::str(out))
        }
        other => Err(Error::type_error(format!("str has no method {other}"))),
    }
}

/// Python `str.replace(old, new, count)`.
pub fn replace(s: &str, old: &str, new: &str, count: i64) -> String {
    let max = if count < 0 {
        usize::MAX
    } else {
        count as usize
    };
    if old.is_empty() {
        let mut out = String::new();
        let mut done = 0;
        for c in s.chars() {
            if done < max {
                out.push_str(new);
                done += 1;
            }
            out.push(c);
        }
        if done < max {
            out.push_str(new);
        }
        return out;
    }
    s.replacen(old, new, max)
}

fn seq_method(items: &[Value], name: &str, args: &Args) -> Result<Value> {
    match name {
        "count" => {
            let b = args.bind(name, &["value"], 0)?;
            let v = b[0].clone().unwrap_or(Value::None);
            Ok(Value::Int(items.iter().filter(|x| eq(x, &v)).count() as i64))
        }
        _ => {
            let b = args.bind(name, &["value", "start", "stop"], 0)?;
            let v = b[0].clone().unwrap_or(Value::None);
            let (a, e) = window(items.len(), &b[1], &b[2])?;
            items[a..e]
                .iter()
                .position(|x| eq(x, &v))
                .map(|i| Value::Int((a + i) as i64))
                .ok_or_else(|| Error::value_error(format!("{} is not in list", v.repr())))
        }
    }
}

/// Sorts with Python's `<`, failing with its `TypeError` on incomparable items.
pub fn sort_values(
    items: &mut [Value],
    key: impl Fn(&Value) -> Result<Value>,
    reverse: bool,
) -> Result<()> {
    let mut keyed: Vec<(Value, Value)> = Vec::with_capacity(items.len());
    for v in items.iter() {
        keyed.push((key(v)?, v.clone()));
    }
    let mut err = None;
    keyed.sort_by(|a, b| match cmp(&a.0, &b.0, "<") {
        Ok(o) => {
            if reverse {
                o.reverse()
            } else {
                o
            }
        }
        Err(e) => {
            err.get_or_insert(e);
            std::cmp::Ordering::Equal
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    for (slot, (_, v)) in items.iter_mut().zip(keyed) {
        *slot = v;
    }
    Ok(())
}

fn list_method(
    l: &std::rc::Rc<std::cell::RefCell<Vec<Value>>>,
    name: &str,
    args: Args,
) -> Result<Value> {
    match name {
        "append" => {
            let b = args.bind(name, &["object"], 0)?;
            l.borrow_mut().push(b[0].clone().unwrap_or(Value::None));
            Ok(Value::None)
        }
        "extend" => {
            let b = args.bind(name, &["iterable"], 0)?;
            let more = b[0].clone().unwrap_or(Value::None).iterate()?;
            l.borrow_mut().extend(more);
            Ok(Value::None)
        }
        "insert" => {
            let b = args.bind(name, &["index", "object"], 0)?;
            let mut list = l.borrow_mut();
            let n = list.len() as i64;
            let i = opt_int(&b[0], 0)?;
            let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
            list.insert(i as usize, b[1].clone().unwrap_or(Value::None));
            Ok(Value::None)
        }
        "pop" => {
            let b = args.bind(name, &["index"], 0)?;
            let mut list = l.borrow_mut();
            if list.is_empty() {
                return Err(Error::new("IndexError", "pop from empty list"));
            }
            let n = list.len() as i64;
            let i = opt_int(&b[0], -1)?;
            let i = if i < 0 { i + n } else { i };
            if !(0..n).contains(&i) {
                return Err(Error::new("IndexError", "pop index out of range"));
            }
            Ok(list.remove(i as usize))
        }
        "remove" => {
            let b = args.bind(name, &["value"], 0)?;
            let v = b[0].clone().unwrap_or(Value::None);
            let mut list = l.borrow_mut();
            let i = list
                .iter()
                .position(|x| eq(x, &v))
                .ok_or_else(|| Error::value_error("list.remove(x): x not in list"))?;
            list.remove(i);
            Ok(Value::None)
        }
        "reverse" => {
            args.none("list.reverse")?;
            l.borrow_mut().reverse();
            Ok(Value::None)
        }
        "clear" => {
            args.none("list.clear")?;
            l.borrow_mut().clear();
            Ok(Value::None)
        }
        "copy" => {
            args.none("list.copy")?;
            Ok(Value::list(l.borrow().clone()))
        }
        "sort" => {
            let b = args.bind(name, &["reverse"], 0)?;
            let reverse = b[0].as_ref().is_some_and(Value::truthy);
            let mut items = l.borrow().clone();
            sort_values(&mut items, |v| Ok(v.clone()), reverse)?;
            *l.borrow_mut() = items;
            Ok(Value::None)
        }
        _ => {
            let items = l.borrow().clone();
            seq_method(&items, name, &args)
        }
    }
}

fn dict_method(
    d: &std::rc::Rc<std::cell::RefCell<super::value::Dict>>,
    name: &str,
    args: Args,
) -> Result<Value> {
    let find = |k: &Value| d.borrow().iter().position(|(kk, _)| eq(kk, k));
    match name {
        "items" | "keys" | "values" => {
            args.none(&format!("dict.{name}"))?;
            let kind = match name {
                "items" => ViewKind::Items,
                "keys" => ViewKind::Keys,
                _ => ViewKind::Values,
            };
            Ok(Value::View(kind, std::rc::Rc::clone(d)))
        }
        "get" => {
            let b = args.bind(name, &["key", "default"], 0)?;
            let k = b[0].clone().unwrap_or(Value::None);
            Ok(match find(&k) {
                Some(i) => d.borrow()[i].1.clone(),
                None => b[1].clone().unwrap_or(Value::None),
            })
        }
        "pop" => {
            let b = args.bind(name, &["key", "default"], 0)?;
            let k = b[0].clone().unwrap_or(Value::None);
            match find(&k) {
                Some(i) => Ok(d.borrow_mut().remove(i).1),
                None => b[1].clone().ok_or_else(|| Error::new("KeyError", k.repr())),
            }
        }
        "setdefault" => {
            let b = args.bind(name, &["key", "default"], 0)?;
            let k = b[0].clone().unwrap_or(Value::None);
            match find(&k) {
                Some(i) => Ok(d.borrow()[i].1.clone()),
                None => {
                    let v = b[1].clone().unwrap_or(Value::None);
                    dict_set(&mut d.borrow_mut(), k, v.clone())?;
                    Ok(v)
                }
            }
        }
        "update" => {
            let mut pairs: Vec<(Value, Value)> = Vec::new();
            if let Some(other) = args.pos.first() {
                match other {
                    Value::Dict(o) => pairs.extend(o.borrow().iter().cloned()),
                    v => {
                        for item in v.iterate()? {
                            if let [k, val] = item.iterate()?.as_slice() {
                                pairs.push((k.clone(), val.clone()));
                            }
                        }
                    }
                }
            }
            pairs.extend(args.kw.into_iter().map(|(k, v)| (Value::str(k), v)));
            let mut dm = d.borrow_mut();
            for (k, v) in pairs {
                dict_set(&mut dm, k, v)?;
            }
            Ok(Value::None)
        }
        "copy" => Ok(Value::dict(d.borrow().clone())),
        "clear" => {
            d.borrow_mut().clear();
            Ok(Value::None)
        }
        other => Err(Error::type_error(format!("dict has no method {other}"))),
    }
}
