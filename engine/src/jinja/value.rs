//! Template values with Python's data model: what `str()`, `repr()`, `==`, `<`, truthiness and
//! `type(x).__name__` give for each, since Jinja2 prints and compares plain Python objects.

use super::error::{Error, Result};
use canvasc_value::py;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

/// An ordered Python dict (insertion order; keys compared with Python `==`). Template dicts
/// are small, so a vector with linear lookup is the simplest faithful representation.
pub type Dict = Vec<(Value, Value)>;

/// A Python object as a template sees it.
#[derive(Clone, Debug)]
pub enum Value {
    /// Jinja2's default `Undefined`: prints `''`, iterates empty, raises on most operations.
    Undefined(Rc<Undef>),
    None,
    Bool(bool),
    /// Python ints are unbounded; arithmetic on these is checked and raises `OverflowError`
    /// instead of wrapping.
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    /// `bytes`, which `str.encode` returns (printed as its repr, `b'…'`).
    Bytes(Rc<[u8]>),
    /// `markupsafe.Markup`: a str already escaped (`safe`, `escape`).
    Markup(Rc<str>),
    List(Rc<RefCell<Vec<Value>>>),
    Tuple(Rc<Vec<Value>>),
    Dict(Rc<RefCell<Dict>>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// A one-shot iterator (`map`, `select`, `reverse`, `batch`, …): what it yields, and the
    /// `repr` head Python prints for it (`<generator object sync_do_map`).
    Iter(Rc<Vec<Value>>, &'static str),
    /// `dict.keys()`, `.values()`, `.items()`.
    View(ViewKind, Rc<RefCell<Dict>>),
    /// `namespace(...)`: the only object `{% set a.b = … %}` may assign to.
    Namespace(Rc<RefCell<Dict>>),
    /// Something callable: a builtin, a bound method, a macro, a loop.
    Callable(Rc<Callable>),
    /// `cycler(...)`: its items and current position.
    Cycler(Rc<RefCell<(Vec<Value>, usize)>>),
    /// `loop` inside a for loop.
    Loop(Rc<LoopState>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    Keys,
    Values,
    Items,
}

/// Why a value is undefined: a missing name, or a missing attribute/element of an object.
#[derive(Debug)]
pub struct Undef {
    pub name: Option<Value>,
    /// The object lacking the attribute, as Jinja2's `object_type_repr` words it (`str object`).
    pub owner: Option<String>,
    /// Jinja2's `undefined(hint=…)`: the whole message, when given.
    pub hint: Option<&'static str>,
}

#[derive(Debug)]
pub enum Callable {
    /// A global function (`range`, `dict`, `namespace`, `lipsum`, `cycler`, `joiner`).
    Global(&'static str),
    /// A method bound to its receiver (`s.split`, `l.append`, `c.next`).
    Method(Value, &'static str),
    /// A macro (index into the evaluator's macro table).
    Macro(usize, Rc<str>),
    /// The function `joiner(sep)` returns, with whether it was called yet.
    Joiner(Rc<str>, RefCell<bool>),
    /// `loop(...)` of a recursive for loop.
    LoopRecurse(Rc<LoopState>),
}

impl Value {
    pub fn str(s: impl Into<Rc<str>>) -> Self {
        Value::Str(s.into())
    }

    pub fn list(items: Vec<Value>) -> Self {
        Value::List(Rc::new(RefCell::new(items)))
    }

    pub fn tuple(items: Vec<Value>) -> Self {
        Value::Tuple(Rc::new(items))
    }

    pub fn dict(items: Dict) -> Self {
        Value::Dict(Rc::new(RefCell::new(items)))
    }

    pub fn undefined(name: &str) -> Self {
        Value::Undefined(Rc::new(Undef {
            name: Some(Value::str(name)),
            owner: None,
            hint: None,
        }))
    }

    /// An undefined value whose error message is `hint` (`No first item, …`).
    pub fn undefined_hint(hint: &'static str) -> Self {
        Value::Undefined(Rc::new(Undef {
            name: None,
            owner: None,
            hint: Some(hint),
        }))
    }

    /// The `Undefined` for a missing attribute or element `name` of `owner`.
    pub fn missing_on(owner: &Value, name: Value) -> Self {
        Value::Undefined(Rc::new(Undef {
            name: Some(name),
            owner: Some(owner.object_type_repr()),
            hint: None,
        }))
    }

    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined(_))
    }

    /// The text when this is a `str` (or `Markup`, a `str` subclass).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) | Value::Markup(s) => Some(s),
            _ => None,
        }
    }

    /// Python `type(v).__name__`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined(_) => "Undefined",
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Markup(_) => "Markup",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Range(..) => "range",
            Value::Iter(_, head) if head.contains("generator") => "generator",
            Value::Iter(..) => "list_reverseiterator",
            Value::View(ViewKind::Keys, _) => "dict_keys",
            Value::View(ViewKind::Values, _) => "dict_values",
            Value::View(ViewKind::Items, _) => "dict_items",
            Value::Namespace(_) => "Namespace",
            Value::Callable(c) => match **c {
                Callable::Macro(..) => "Macro",
                Callable::LoopRecurse(_) => "method",
                Callable::Joiner(..) => "Joiner",
                _ => "builtin_function_or_method",
            },
            Value::Cycler(_) => "Cycler",
            Value::Loop(_) => "LoopContext",
        }
    }

    /// Jinja2's `object_type_repr`: `str object`, `None`, `jinja2.utils.Namespace object`.
    pub fn object_type_repr(&self) -> String {
        match self {
            Value::None => "None".to_string(),
            Value::Markup(_) => "markupsafe.Markup object".to_string(),
            Value::Namespace(_) => "jinja2.utils.Namespace object".to_string(),
            Value::Cycler(_) => "jinja2.utils.Cycler object".to_string(),
            Value::Loop(_) => "jinja2.runtime.LoopContext object".to_string(),
            Value::Callable(c) if matches!(**c, Callable::Macro(..)) => {
                "jinja2.runtime.Macro object".to_string()
            }
            v => format!("{} object", v.type_name()),
        }
    }

    /// Python truthiness of a Jinja value. Jinja's values are more than JSON (undefined, markup,
    /// bytes, tuples, ranges, loop and callable objects), so this is its own match; on the JSON
    /// part it answers as `canvasc_value::py::truthy`.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Undefined(_) | Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) | Value::Markup(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) | Value::View(_, d) => !d.borrow().is_empty(),
            Value::Range(a, b, s) => range_len(*a, *b, *s) > 0,
            _ => true,
        }
    }

    /// Python `str(v)` (Jinja2 prints every value this way; undefined prints nothing).
    pub fn to_str(&self) -> String {
        match self {
            Value::Undefined(_) => String::new(),
            Value::Str(s) | Value::Markup(s) => s.to_string(),
            v => v.repr(),
        }
    }

    /// Python `repr(v)`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Value::Undefined(_) => out.push_str("Undefined"),
            Value::None => out.push_str("None"),
            Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Float(f) => out.push_str(&py::float_repr(*f)),
            Value::Str(s) => out.push_str(&py::repr_str(s)),
            Value::Bytes(b) => write_bytes_repr(out, b),
            Value::Markup(s) => {
                out.push_str("Markup(");
                out.push_str(&py::repr_str(s));
                out.push(')');
            }
            Value::List(l) => write_seq(out, "[", "]", &l.borrow(), false),
            Value::Tuple(t) => write_seq(out, "(", ")", t, t.len() == 1),
            Value::Dict(d) => write_dict(out, &d.borrow()),
            Value::Range(a, b, s) => {
                out.push_str(&if *s == 1 {
                    format!("range({a}, {b})")
                } else {
                    format!("range({a}, {b}, {s})")
                });
            }
            Value::Iter(_, head) => {
                // Python prints the object's address; no address exists here.
                out.push_str(head);
                out.push_str(" at 0x0000000000000000>");
            }
            Value::View(kind, d) => {
                let d = d.borrow();
                let (name, items): (&str, Vec<Value>) = match kind {
                    ViewKind::Keys => ("dict_keys", d.iter().map(|(k, _)| k.clone()).collect()),
                    ViewKind::Values => ("dict_values", d.iter().map(|(_, v)| v.clone()).collect()),
                    ViewKind::Items => ("dict_items", d.iter().map(pair).collect()),
                };
                out.push_str(name);
                out.push('(');
                write_seq(out, "[", "]", &items, false);
                out.push(')');
            }
            Value::Namespace(d) => {
                out.push_str("<Namespace ");
                write_dict(out, &d.borrow());
                out.push('>');
            }
            Value::Callable(c) => match &**c {
                Callable::Macro(_, name) => {
                    out.push_str("<Macro ");
                    out.push_str(&py::repr_str(name));
                    out.push('>');
                }
                Callable::Method(recv, name) => {
                    out.push_str("<built-in method ");
                    out.push_str(name);
                    out.push_str(" of ");
                    out.push_str(recv.type_name());
                    out.push_str(" object at 0x0000000000000000>");
                }
                Callable::Global(name) => {
                    out.push_str("<built-in function ");
                    out.push_str(name);
                    out.push('>');
                }
                Callable::Joiner(..) => out.push_str("<jinja2.utils.Joiner object>"),
                Callable::LoopRecurse(_) => out.push_str("<bound method LoopContext.__call__>"),
            },
            Value::Cycler(_) => out.push_str("<jinja2.utils.Cycler object>"),
            Value::Loop(l) => {
                out.push_str(&format!("<LoopContext {}/{}>", l.index() + 1, l.len()));
            }
        }
    }

    /// Python `iter(v)` materialised. Strings iterate characters, dicts their keys.
    pub fn iterate(&self) -> Result<Vec<Value>> {
        Ok(match self {
            Value::Undefined(_) => Vec::new(),
            Value::Str(s) | Value::Markup(s) => {
                s.chars().map(|c| Value::str(c.to_string())).collect()
            }
            Value::Bytes(b) => b.iter().map(|&x| Value::Int(i64::from(x))).collect(),
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            Value::Iter(items, _) => items.to_vec(),
            Value::Dict(d) | Value::View(ViewKind::Keys, d) => {
                d.borrow().iter().map(|(k, _)| k.clone()).collect()
            }
            Value::View(ViewKind::Values, d) => d.borrow().iter().map(|(_, v)| v.clone()).collect(),
            Value::View(ViewKind::Items, d) => d.borrow().iter().map(pair).collect(),
            Value::Range(a, b, s) => range_items(*a, *b, *s),
            Value::Namespace(_) | Value::Loop(_) | Value::Cycler(_) | Value::Callable(_) => {
                return Err(not_iterable(self))
            }
            v => return Err(not_iterable(v)),
        })
    }

    /// Python `len(v)`.
    pub fn len(&self) -> Result<usize> {
        Ok(match self {
            Value::Undefined(_) => 0,
            Value::Str(s) | Value::Markup(s) => s.chars().count(),
            Value::Bytes(b) => b.len(),
            Value::List(l) => l.borrow().len(),
            Value::Tuple(t) => t.len(),
            Value::Dict(d) | Value::View(_, d) => d.borrow().len(),
            Value::Range(a, b, s) => range_len(*a, *b, *s),
            v => {
                return Err(Error::type_error(format!(
                    "object of type '{}' has no len()",
                    v.type_name()
                )))
            }
        })
    }

    /// A number as `f64` for mixed int/float arithmetic (bools count as ints).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// An int or bool as `i64`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Bool(b) => Some(i64::from(*b)),
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Bool(_) | Value::Int(_) | Value::Float(_))
    }
}

fn pair((k, v): &(Value, Value)) -> Value {
    Value::tuple(vec![k.clone(), v.clone()])
}

pub fn not_iterable(v: &Value) -> Error {
    Error::type_error(format!("'{}' object is not iterable", v.type_name()))
}

fn write_seq(out: &mut String, open: &str, close: &str, items: &[Value], single_comma: bool) {
    out.push_str(open);
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        v.write_repr(out);
    }
    if single_comma {
        out.push(',');
    }
    out.push_str(close);
}

/// Python's `bytes.__repr__`: single quotes unless the bytes hold `'` and no `"`; tab, newline,
/// carriage return and backslash escaped, other bytes outside printable ASCII as `\xhh`.
fn write_bytes_repr(out: &mut String, b: &[u8]) {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    out.push('b');
    out.push(quote);
    for &c in b {
        match c {
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\\' => out.push_str("\\\\"),
            c if char::from(c) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(c)),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote);
}

fn write_dict(out: &mut String, d: &Dict) {
    out.push('{');
    for (i, (k, v)) in d.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        k.write_repr(out);
        out.push_str(": ");
        v.write_repr(out);
    }
    out.push('}');
}

pub fn range_len(start: i64, stop: i64, step: i64) -> usize {
    let (lo, hi, st) = if step > 0 {
        (start as i128, stop as i128, step as i128)
    } else {
        (stop as i128, start as i128, -(step as i128))
    };
    if hi <= lo || st == 0 {
        0
    } else {
        usize::try_from((hi - lo + st - 1) / st).unwrap_or(usize::MAX)
    }
}

fn range_items(start: i64, stop: i64, step: i64) -> Vec<Value> {
    let n = range_len(start, stop, step);
    (0..n as i64)
        .map(|i| Value::Int(start + i * step))
        .collect()
}

/// Python `a == b`.
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Undefined(_), Value::Undefined(_)) => true,
        (Value::Undefined(_), _) | (_, Value::Undefined(_)) => false,
        (Value::None, Value::None) => true,
        (x, y) if x.is_number() && y.is_number() => match (x.as_int(), y.as_int()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (x, y) if x.as_str().is_some() && y.as_str().is_some() => x.as_str() == y.as_str(),
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::List(x), Value::List(y)) => seq_eq(&x.borrow(), &y.borrow()),
        (Value::Tuple(x), Value::Tuple(y)) => seq_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| eq(k, k2) && eq(v, v2)))
        }
        (Value::Range(a1, b1, s1), Value::Range(a2, b2, s2)) => (a1, b1, s1) == (a2, b2, s2),
        (Value::Namespace(x), Value::Namespace(y)) => Rc::ptr_eq(x, y),
        (Value::Callable(x), Value::Callable(y)) => Rc::ptr_eq(x, y),
        (Value::Cycler(x), Value::Cycler(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

fn seq_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
}

/// Python's ordering (`<` and friends): numbers with numbers, str with str, lists with lists,
/// tuples with tuples; anything else raises `TypeError` naming `op`.
pub fn cmp(a: &Value, b: &Value, op: &str) -> Result<Ordering> {
    let unsupported = || {
        Error::type_error(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ))
    };
    if a.is_undefined() || b.is_undefined() {
        return Err(undefined_error(if a.is_undefined() { a } else { b }));
    }
    match (a, b) {
        (x, y) if x.is_number() && y.is_number() => match (x.as_int(), y.as_int()) {
            (Some(i), Some(j)) => Ok(i.cmp(&j)),
            _ => x
                .as_f64()
                .zip(y.as_f64())
                .and_then(|(p, q)| p.partial_cmp(&q))
                .ok_or_else(|| Error::type_error("NaN comparison")),
        },
        (x, y) if x.as_str().is_some() && y.as_str().is_some() => Ok(x.as_str().cmp(&y.as_str())),
        (Value::Bytes(x), Value::Bytes(y)) => Ok(x.cmp(y)),
        (Value::List(x), Value::List(y)) => seq_cmp(&x.borrow(), &y.borrow(), op),
        (Value::Tuple(x), Value::Tuple(y)) => seq_cmp(x, y, op),
        _ => Err(unsupported()),
    }
}

fn seq_cmp(a: &[Value], b: &[Value], op: &str) -> Result<Ordering> {
    for (x, y) in a.iter().zip(b) {
        if !eq(x, y) {
            return cmp(x, y, op);
        }
    }
    Ok(a.len().cmp(&b.len()))
}

/// The `UndefinedError` an operation on an undefined value raises.
pub fn undefined_error(v: &Value) -> Error {
    let Value::Undefined(u) = v else {
        return Error::new("UndefinedError", "undefined");
    };
    Error::new("UndefinedError", undefined_message(u))
}

/// Jinja2's `Undefined._undefined_message`.
pub fn undefined_message(u: &Undef) -> String {
    if let Some(hint) = u.hint {
        return hint.to_string();
    }
    let name = u.name.as_ref().map(Value::repr).unwrap_or_default();
    match (&u.owner, &u.name) {
        (None, _) => format!("{name} is undefined"),
        (Some(owner), Some(n)) if n.as_str().is_none() => {
            format!("{owner} has no element {name}")
        }
        (Some(owner), _) => format!("{} has no attribute {name}", py::repr_str(owner)),
    }
}

/// Python `d[k] = v` (keys must be hashable).
pub fn dict_set(d: &mut Dict, k: Value, v: Value) -> Result<()> {
    if matches!(k, Value::List(_) | Value::Dict(_) | Value::Namespace(_)) {
        return Err(Error::type_error(format!(
            "unhashable type: '{}'",
            k.type_name()
        )));
    }
    match d.iter_mut().find(|(kk, _)| eq(kk, &k)) {
        Some(slot) => slot.1 = v,
        None => d.push((k, v)),
    }
    Ok(())
}

/// `markupsafe.escape`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `loop` of one for loop.
#[derive(Debug)]
pub struct LoopState {
    pub(super) items: Rc<Vec<Value>>,
    pub(super) index: Cell<usize>,
    pub(super) depth0: usize,
    pub(super) changed: RefCell<Option<Value>>,
    /// The loop (index into the evaluator's loop table) when it is `recursive`.
    pub(super) recursive: Option<usize>,
}

impl LoopState {
    pub fn index(&self) -> usize {
        self.index.get()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// `loop.<name>` (`None` for names a loop does not have).
    pub fn attr(self: &Rc<Self>, name: &str) -> Option<Value> {
        let i = self.index.get();
        let n = self.items.len();
        let int = |x: usize| Value::Int(x as i64);
        Some(match name {
            "index" => int(i + 1),
            "index0" => int(i),
            "revindex" => int(n - i),
            "revindex0" => int(n - i - 1),
            "first" => Value::Bool(i == 0),
            "last" => Value::Bool(i + 1 == n),
            "length" => int(n),
            "depth" => int(self.depth0 + 1),
            "depth0" => int(self.depth0),
            "previtem" => match i {
                0 => Value::undefined_hint("there is no previous item"),
                _ => self.items[i - 1].clone(),
            },
            "nextitem" => match self.items.get(i + 1) {
                Some(v) => v.clone(),
                None => Value::undefined_hint("there is no next item"),
            },
            "cycle" => method(Value::Loop(Rc::clone(self)), "cycle"),
            "changed" => method(Value::Loop(Rc::clone(self)), "changed"),
            _ => return None,
        })
    }

    /// `loop.cycle(*args)`.
    pub fn cycle(&self, args: &[Value]) -> Result<Value> {
        if args.is_empty() {
            return Err(Error::type_error("no items for cycling given"));
        }
        Ok(args[self.index.get() % args.len()].clone())
    }

    /// `loop.changed(*args)`: whether the arguments differ from the last call's.
    pub fn changed(&self, args: &[Value]) -> Value {
        let now = Value::list(args.to_vec());
        let mut last = self.changed.borrow_mut();
        let differs = last.as_ref().is_none_or(|l| !eq(l, &now));
        if differs {
            *last = Some(now);
        }
        Value::Bool(differs)
    }
}

fn method(recv: Value, name: &'static str) -> Value {
    Value::Callable(Rc::new(Callable::Method(recv, name)))
}
