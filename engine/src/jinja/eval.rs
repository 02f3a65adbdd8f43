//! The tree-walking evaluator: runs minijinja's parse tree with Jinja2's scoping and Python's
//! value semantics.

use super::args::{int_arg, Args};
use super::attr::{get_attr, get_item, slice};
use super::error::{Error, Result};
use super::limits::{MAX_DEPTH, MAX_OUTPUT, MAX_RANGE, MAX_STEPS};
use super::value::{dict_set, undefined_error, Callable, LoopState, Value};
use super::{filters, methods, ops, predicates};
use minijinja::machinery::ast;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

type Frame = HashMap<String, Value>;

/// A macro or call block: its definition and the scopes it closed over.
struct MacroDef<'s> {
    decl: &'s ast::Macro<'s>,
    closure: Vec<Frame>,
    /// `caller` for a call block's invocation.
    caller: Option<Value>,
    uses_varargs: bool,
    uses_kwargs: bool,
}

pub struct Evaluator<'s> {
    source: &'s str,
    context: HashMap<&'s str, Value>,
    root: Frame,
    frames: Vec<Frame>,
    macros: Vec<MacroDef<'s>>,
    loops: Vec<&'s ast::ForLoop<'s>>,
    depth: usize,
    steps: u64,
    autoescape: bool,
    /// Address of a local at the start of the render: the stack grows down from here, and
    /// `enter` refuses to go deeper than `MAX_STACK` bytes below it.
    stack_base: usize,
    stack_budget: usize,
}

/// The address of a local in the caller's frame, to measure stack use.
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl<'s> Evaluator<'s> {
    /// An evaluator that may use `stack_budget` bytes of stack below the caller's frame.
    pub fn new(source: &'s str, context: HashMap<&'s str, Value>, stack_budget: usize) -> Self {
        Evaluator {
            source,
            context,
            root: Frame::new(),
            frames: Vec::new(),
            macros: Vec::new(),
            loops: Vec::new(),
            depth: 0,
            steps: 0,
            autoescape: false,
            stack_base: stack_position(),
            stack_budget,
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        self.steps += 1;
        let used = self.stack_base.saturating_sub(stack_position());
        if self.depth > MAX_DEPTH || used > self.stack_budget {
            return Err(Error::new(
                "RecursionError",
                "maximum recursion depth exceeded",
            ));
        }
        if self.steps > MAX_STEPS {
            return Err(Error::new(
                "RuntimeError",
                "template evaluation exceeded its work limit",
            ));
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Value {
        for frame in self.frames.iter().rev() {
            if let Some(v) = frame.get(name) {
                return v.clone();
            }
        }
        if let Some(v) = self.root.get(name) {
            return v.clone();
        }
        if let Some(v) = self.context.get(name) {
            return v.clone();
        }
        match name {
            "range" | "dict" | "namespace" | "lipsum" | "cycler" | "joiner" => {
                Value::Callable(Rc::new(Callable::Global(global_name(name))))
            }
            _ => Value::undefined(name),
        }
    }

    fn assign(&mut self, name: &str, v: Value) {
        match self.frames.last_mut() {
            Some(frame) => frame.insert(name.to_string(), v),
            None => self.root.insert(name.to_string(), v),
        };
    }

    pub fn render_body(&mut self, body: &'s [ast::Stmt<'s>], out: &mut String) -> Result<()> {
        for stmt in body {
            self.stmt(stmt, out)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &'s ast::Stmt<'s>, out: &mut String) -> Result<()> {
        self.enter()?;
        let r = self.stmt_inner(stmt, out);
        self.depth -= 1;
        if out.len() > MAX_OUTPUT {
            return Err(Error::new("MemoryError", "template output too large"));
        }
        r
    }

    fn stmt_inner(&mut self, stmt: &'s ast::Stmt<'s>, out: &mut String) -> Result<()> {
        match stmt {
            ast::Stmt::Template(t) => self.render_body(&t.children, out),
            ast::Stmt::EmitRaw(r) => {
                out.push_str(r.raw);
                Ok(())
            }
            ast::Stmt::EmitExpr(e) => {
                let v = self.expr(&e.expr)?;
                self.emit(&v, out);
                Ok(())
            }
            ast::Stmt::IfCond(c) => {
                if self.expr(&c.expr)?.truthy() {
                    self.render_body(&c.true_body, out)
                } else {
                    self.render_body(&c.false_body, out)
                }
            }
            ast::Stmt::ForLoop(f) => {
                let items = self.expr(&f.iter)?;
                self.for_loop(f, &items, 0, out)
            }
            ast::Stmt::WithBlock(w) => {
                let mut frame = Frame::new();
                for (target, value) in &w.assignments {
                    let v = self.expr(value)?;
                    self.frames.push(std::mem::take(&mut frame));
                    let r = self.bind_target(target, v);
                    frame = self.frames.pop().unwrap_or_default();
                    r?;
                }
                self.frames.push(frame);
                let r = self.render_body(&w.body, out);
                self.frames.pop();
                r
            }
            ast::Stmt::Set(s) => {
                let v = self.expr(&s.expr)?;
                self.bind_target(&s.target, v)
            }
            ast::Stmt::SetBlock(s) => {
                let mut buf = String::new();
                self.render_body(&s.body, &mut buf)?;
                let mut v = Value::str(buf);
                if let Some(filter) = &s.filter {
                    v = self.apply_filter_chain(filter, v)?;
                }
                self.bind_target(&s.target, v)
            }
            ast::Stmt::AutoEscape(a) => {
                let enabled = self.expr(&a.enabled)?.truthy();
                let saved = std::mem::replace(&mut self.autoescape, enabled);
                let r = self.render_body(&a.body, out);
                self.autoescape = saved;
                r
            }
            ast::Stmt::FilterBlock(f) => {
                let mut buf = String::new();
                self.render_body(&f.body, &mut buf)?;
                let v = self.apply_filter_chain(&f.filter, Value::str(buf))?;
                self.emit(&v, out);
                Ok(())
            }
            ast::Stmt::Block(b) => self.render_body(&b.body, out),
            ast::Stmt::Extends(_)
            | ast::Stmt::Include(_)
            | ast::Stmt::Import(_)
            | ast::Stmt::FromImport(_) => Err(Error::type_error(
                "no loader for this environment specified",
            )),
            ast::Stmt::Macro(m) => {
                let v = self.define_macro(m, None);
                self.assign(m.name, v);
                Ok(())
            }
            ast::Stmt::CallBlock(c) => {
                let caller = self.define_macro(&c.macro_decl, None);
                let callee = self.expr(&c.call.expr)?;
                let mut args = self.args(&c.call.args)?;
                args.kw.push(("caller".to_string(), caller));
                let v = self.call_value(&callee, args)?;
                self.emit(&v, out);
                Ok(())
            }
            // Rejected before rendering (`validate`): Jinja2 has no such tags by default.
            ast::Stmt::Do(_) => Err(Error::new("TemplateSyntaxError", "unsupported tag")),
        }
    }

    fn emit(&self, v: &Value, out: &mut String) {
        match v {
            Value::Markup(s) => out.push_str(s),
            v if self.autoescape => out.push_str(&super::value::html_escape(&v.to_str())),
            v => out.push_str(&v.to_str()),
        }
    }

    fn define_macro(&mut self, decl: &'s ast::Macro<'s>, caller: Option<Value>) -> Value {
        let id = self.macros.len();
        self.macros.push(MacroDef {
            decl,
            closure: self.frames.clone(),
            caller,
            uses_varargs: uses_name(&decl.body, "varargs"),
            uses_kwargs: uses_name(&decl.body, "kwargs"),
        });
        Value::Callable(Rc::new(Callable::Macro(id, decl.name.into())))
    }

    fn for_loop(
        &mut self,
        f: &'s ast::ForLoop<'s>,
        iterable: &Value,
        depth0: usize,
        out: &mut String,
    ) -> Result<()> {
        let mut items = iterable.iterate()?;
        if let Some(filter) = &f.filter_expr {
            let mut kept = Vec::with_capacity(items.len());
            for item in items {
                self.frames.push(Frame::new());
                let r = self
                    .bind_target(&f.target, item.clone())
                    .and_then(|()| self.expr(filter));
                self.frames.pop();
                if r?.truthy() {
                    kept.push(item);
                }
            }
            items = kept;
        }
        if items.is_empty() {
            return self.render_body(&f.else_body, out);
        }
        let recursive = f.recursive.then(|| {
            self.loops.push(f);
            self.loops.len() - 1
        });
        let state = Rc::new(LoopState {
            items: Rc::new(items),
            index: Cell::new(0),
            depth0,
            changed: RefCell::new(None),
            recursive,
        });
        for i in 0..state.items.len() {
            state.index.set(i);
            let mut frame = Frame::new();
            frame.insert("loop".to_string(), Value::Loop(Rc::clone(&state)));
            self.frames.push(frame);
            let r = self
                .bind_target(&f.target, state.items[i].clone())
                .and_then(|()| self.render_body(&f.body, out));
            self.frames.pop();
            r?;
        }
        Ok(())
    }

    fn bind_target(&mut self, target: &'s ast::Expr<'s>, v: Value) -> Result<()> {
        match target {
            ast::Expr::Var(var) => {
                self.assign(var.id, v);
                Ok(())
            }
            ast::Expr::List(list) => {
                let items = match &v {
                    Value::Str(_)
                    | Value::List(_)
                    | Value::Tuple(_)
                    | Value::Dict(_)
                    | Value::Range(..)
                    | Value::Iter(..)
                    | Value::View(..) => v.iterate()?,
                    other => {
                        return Err(Error::type_error(format!(
                            "cannot unpack non-iterable {} object",
                            other.type_name()
                        )))
                    }
                };
                let want = list.items.len();
                if items.len() < want {
                    return Err(Error::value_error(format!(
                        "not enough values to unpack (expected {want}, got {})",
                        items.len()
                    )));
                }
                if items.len() > want {
                    return Err(Error::value_error(format!(
                        "too many values to unpack (expected {want})"
                    )));
                }
                for (t, item) in list.items.iter().zip(items) {
                    self.bind_target(t, item)?;
                }
                Ok(())
            }
            ast::Expr::GetAttr(ga) => match self.expr(&ga.expr)? {
                Value::Namespace(ns) => {
                    let mut ns = ns.borrow_mut();
                    let key = Value::str(ga.name);
                    match ns.iter_mut().find(|(k, _)| k.as_str() == Some(ga.name)) {
                        Some(slot) => slot.1 = v,
                        None => ns.push((key, v)),
                    }
                    Ok(())
                }
                _ => Err(Error::runtime(
                    "cannot assign attribute on non-namespace object",
                )),
            },
            _ => Err(Error::new(
                "TemplateSyntaxError",
                "can't assign to this target",
            )),
        }
    }

    pub fn expr(&mut self, e: &'s ast::Expr<'s>) -> Result<Value> {
        self.enter()?;
        let r = self.expr_inner(e);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &'s ast::Expr<'s>) -> Result<Value> {
        match e {
            ast::Expr::Var(v) => Ok(self.lookup(v.id)),
            ast::Expr::Const(c) => Ok(super::compile::constant(self.source, e, &c.value)),
            ast::Expr::List(l) => {
                let mut items = Vec::with_capacity(l.items.len());
                for item in &l.items {
                    items.push(self.expr(item)?);
                }
                Ok(if super::compile::is_tuple_literal(self.source, e) {
                    Value::tuple(items)
                } else {
                    Value::list(items)
                })
            }
            ast::Expr::Map(m) => {
                let mut d: super::value::Dict = Vec::with_capacity(m.keys.len());
                for (k, v) in m.keys.iter().zip(&m.values) {
                    let k = self.expr(k)?;
                    let v = self.expr(v)?;
                    dict_set(&mut d, k, v)?;
                }
                Ok(Value::dict(d))
            }
            ast::Expr::Slice(s) => {
                let target = self.expr(&s.expr)?;
                let mut bound = |e: &'s Option<ast::Expr<'s>>| -> Result<Value> {
                    match e {
                        Some(e) => self.expr(e),
                        None => Ok(Value::None),
                    }
                };
                let (a, b, c) = (bound(&s.start)?, bound(&s.stop)?, bound(&s.step)?);
                slice(&target, &a, &b, &c)
            }
            ast::Expr::UnaryOp(u) => {
                let v = self.expr(&u.expr)?;
                match u.op {
                    ast::UnaryOpKind::Not => Ok(Value::Bool(!v.truthy())),
                    ast::UnaryOpKind::Neg => ops::neg(&v),
                }
            }
            ast::Expr::BinOp(b) => self.binop(b),
            ast::Expr::Compare(c) => {
                let mut left = self.expr(&c.expr)?;
                for op in &c.ops {
                    let right = self.expr(&op.expr)?;
                    if !ops::compare(compare_symbol(op.op), &left, &right)? {
                        return Ok(Value::Bool(false));
                    }
                    left = right;
                }
                Ok(Value::Bool(true))
            }
            ast::Expr::IfExpr(i) => {
                if self.expr(&i.test_expr)?.truthy() {
                    self.expr(&i.true_expr)
                } else {
                    match &i.false_expr {
                        Some(e) => self.expr(e),
                        None => Ok(Value::undefined_hint("the inline if-expression on line 1 evaluated to false and no else section was defined.")),
                    }
                }
            }
            ast::Expr::Filter(f) => {
                let v = match &f.expr {
                    Some(e) => self.expr(e)?,
                    None => Value::None,
                };
                let args = self.args(&f.args)?;
                filters::apply(f.name, v, args)
            }
            ast::Expr::Test(t) => {
                if matches!(t.name, "defined" | "undefined") {
                    let v = self.expr(&t.expr)?;
                    return Ok(Value::Bool(v.is_undefined() == (t.name == "undefined")));
                }
                let v = self.expr(&t.expr)?;
                let args = self.args(&t.args)?;
                predicates::apply(t.name, &v, args).map(Value::Bool)
            }
            ast::Expr::GetAttr(g) => {
                let v = self.expr(&g.expr)?;
                if v.is_undefined() {
                    return Err(undefined_error(&v));
                }
                Ok(get_attr(&v, g.name))
            }
            ast::Expr::GetItem(g) => {
                let v = self.expr(&g.expr)?;
                if v.is_undefined() {
                    return Err(undefined_error(&v));
                }
                let key = self.expr(&g.subscript_expr)?;
                Ok(get_item(&v, &key))
            }
            ast::Expr::Call(c) => {
                let callee = self.expr(&c.expr)?;
                let args = self.args(&c.args)?;
                self.call_value(&callee, args)
            }
        }
    }

    fn binop(&mut self, b: &'s ast::BinOp<'s>) -> Result<Value> {
        let left = self.expr(&b.left)?;
        match b.op {
            ast::BinOpKind::ScAnd => {
                return if left.truthy() {
                    self.expr(&b.right)
                } else {
                    Ok(left)
                };
            }
            ast::BinOpKind::ScOr => {
                return if left.truthy() {
                    Ok(left)
                } else {
                    self.expr(&b.right)
                };
            }
            _ => {}
        }
        let right = self.expr(&b.right)?;
        let symbol = match b.op {
            ast::BinOpKind::Add => return ops::add(&left, &right),
            ast::BinOpKind::Sub => return ops::sub(&left, &right),
            ast::BinOpKind::Mul => return ops::mul(&left, &right),
            ast::BinOpKind::Div => return ops::div(&left, &right),
            ast::BinOpKind::FloorDiv => return ops::floordiv(&left, &right),
            ast::BinOpKind::Rem => return ops::rem(&left, &right),
            ast::BinOpKind::Pow => return ops::pow(&left, &right),
            ast::BinOpKind::Concat => return Ok(ops::concat(&left, &right)),
            ast::BinOpKind::Eq => "==",
            ast::BinOpKind::Ne => "!=",
            ast::BinOpKind::Lt => "<",
            ast::BinOpKind::Lte => "<=",
            ast::BinOpKind::Gt => ">",
            ast::BinOpKind::Gte => ">=",
            ast::BinOpKind::In => "in",
            ast::BinOpKind::ScAnd | ast::BinOpKind::ScOr => unreachable_and_or(),
        };
        ops::compare(symbol, &left, &right).map(Value::Bool)
    }

    fn args(&mut self, args: &'s [ast::CallArg<'s>]) -> Result<Args> {
        let mut out = Args::default();
        for arg in args {
            match arg {
                ast::CallArg::Pos(e) => {
                    let v = self.expr(e)?;
                    out.pos.push(v);
                }
                ast::CallArg::Kwarg(name, e) => {
                    let v = self.expr(e)?;
                    out.kw.push((name.to_string(), v));
                }
                ast::CallArg::PosSplat(e) => {
                    let v = self.expr(e)?;
                    out.pos.extend(v.iterate()?);
                }
                ast::CallArg::KwargSplat(e) => match self.expr(e)? {
                    Value::Dict(d) => {
                        for (k, v) in d.borrow().iter() {
                            out.kw.push((k.to_str(), v.clone()));
                        }
                    }
                    v => {
                        return Err(Error::type_error(format!(
                            "argument after ** must be a mapping, not {}",
                            v.type_name()
                        )))
                    }
                },
            }
        }
        Ok(out)
    }

    /// Calls a value: a macro, a global, a bound method, a joiner or a recursive loop.
    pub fn call_value(&mut self, callee: &Value, args: Args) -> Result<Value> {
        match callee {
            Value::Undefined(_) => Err(undefined_error(callee)),
            Value::Callable(c) => match &**c {
                Callable::Macro(id, _) => self.call_macro(*id, args),
                Callable::Global(name) => self.call_global(name, args),
                Callable::Method(recv, name) => methods::call(recv, name, args),
                Callable::Joiner(sep, used) => {
                    args.none("joiner")?;
                    Ok(Value::str(if used.replace(true) {
                        sep.to_string()
                    } else {
                        String::new()
                    }))
                }
                Callable::LoopRecurse(state) => {
                    let Some(id) = state.recursive else {
                        return Err(Error::type_error(
                            "Tried to call non recursive loop.  Maybe you forgot the 'recursive' modifier.",
                        ));
                    };
                    let [items] = args.pos.as_slice() else {
                        return Err(Error::type_error("loop() takes exactly one argument"));
                    };
                    let f = self.loops[id];
                    let mut buf = String::new();
                    let saved = std::mem::take(&mut self.frames);
                    self.frames = saved.clone();
                    let r = self.for_loop(f, items, state.depth0 + 1, &mut buf);
                    self.frames = saved;
                    r?;
                    Ok(Value::str(buf))
                }
            },
            Value::Loop(state) => {
                let recurse = Value::Callable(Rc::new(Callable::LoopRecurse(Rc::clone(state))));
                self.call_value(&recurse, args)
            }
            v => Err(Error::type_error(format!(
                "'{}' object is not callable",
                v.type_name()
            ))),
        }
    }

    fn call_macro(&mut self, id: usize, mut args: Args) -> Result<Value> {
        let (decl, closure, caller, uses_varargs, uses_kwargs) = {
            let m = &self.macros[id];
            (
                m.decl,
                m.closure.clone(),
                m.caller.clone(),
                m.uses_varargs,
                m.uses_kwargs,
            )
        };
        let name = decl.name;
        let mut frame = Frame::new();
        let caller_arg = args
            .kw
            .iter()
            .position(|(k, _)| k == "caller")
            .map(|i| args.kw.remove(i).1);
        if let Some(c) = caller_arg.or(caller) {
            frame.insert("caller".to_string(), c);
        }
        let params: Vec<&str> = decl
            .args
            .iter()
            .map(|a| match a {
                ast::Expr::Var(v) => v.id,
                _ => "",
            })
            .collect();
        if args.pos.len() > params.len() && !uses_varargs {
            return Err(Error::type_error(format!(
                "macro '{name}' takes not more than {} argument(s)",
                params.len()
            )));
        }
        let varargs: Vec<Value> = args.pos.iter().skip(params.len()).cloned().collect();
        let mut extra_kw: super::value::Dict = Vec::new();
        let mut given: Vec<Option<Value>> = (0..params.len())
            .map(|i| args.pos.get(i).cloned())
            .collect();
        for (k, v) in args.kw {
            match params.iter().position(|p| *p == k) {
                Some(i) if given[i].is_none() => given[i] = Some(v),
                Some(_) => {
                    return Err(Error::type_error(format!(
                        "macro '{name}' got multiple values for argument '{k}'"
                    )))
                }
                None if uses_kwargs => extra_kw.push((Value::str(k), v)),
                None => {
                    return Err(Error::type_error(format!(
                        "macro '{name}' takes no keyword argument '{k}'"
                    )))
                }
            }
        }
        let saved = std::mem::replace(&mut self.frames, closure);
        self.frames.push(frame);
        let first_default = params.len() - decl.defaults.len();
        let mut r: Result<()> = Ok(());
        for (i, p) in params.iter().enumerate() {
            let v = match given[i].take() {
                Some(v) => Ok(v),
                None if i >= first_default => self.expr(&decl.defaults[i - first_default]),
                None => Ok(Value::undefined(p)),
            };
            match v {
                Ok(v) => self.assign(p, v),
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        if uses_varargs {
            self.assign("varargs", Value::tuple(varargs));
        }
        if uses_kwargs {
            self.assign("kwargs", Value::dict(extra_kw));
        }
        let mut buf = String::new();
        let r = r.and_then(|()| self.render_body(&decl.body, &mut buf));
        self.frames = saved;
        r?;
        Ok(Value::str(buf))
    }

    fn call_global(&mut self, name: &str, args: Args) -> Result<Value> {
        match name {
            "range" => {
                if !args.kw.is_empty() {
                    return Err(Error::type_error("range() takes no keyword arguments"));
                }
                let ints: Vec<i64> = args.pos.iter().map(int_arg).collect::<Result<_>>()?;
                let (start, stop, step) = match ints.as_slice() {
                    [stop] => (0, *stop, 1),
                    [start, stop] => (*start, *stop, 1),
                    [start, stop, step] => (*start, *stop, *step),
                    [] => {
                        return Err(Error::type_error(
                            "range expected at least 1 argument, got 0",
                        ))
                    }
                    more => {
                        return Err(Error::type_error(format!(
                            "range expected at most 3 arguments, got {}",
                            more.len()
                        )))
                    }
                };
                if step == 0 {
                    return Err(Error::value_error("range() arg 3 must not be zero"));
                }
                if super::value::range_len(start, stop, step) > MAX_RANGE {
                    return Err(Error::new(
                        "OverflowError",
                        format!(
                            "Range too big. The sandbox blocks ranges larger than MAX_RANGE ({MAX_RANGE})."
                        ),
                    ));
                }
                Ok(Value::Range(start, stop, step))
            }
            "dict" => {
                let mut d: super::value::Dict = Vec::new();
                if let Some(first) = args.pos.first() {
                    for item in first.iterate()? {
                        let kv = item.iterate()?;
                        if let [k, v] = kv.as_slice() {
                            dict_set(&mut d, k.clone(), v.clone())?;
                        }
                    }
                }
                for (k, v) in args.kw {
                    dict_set(&mut d, Value::str(k), v)?;
                }
                Ok(Value::dict(d))
            }
            "namespace" => {
                let mut d: super::value::Dict = Vec::new();
                if let Some(Value::Dict(init)) = args.pos.first() {
                    d = init.borrow().clone();
                }
                for (k, v) in args.kw {
                    dict_set(&mut d, Value::str(k), v)?;
                }
                Ok(Value::Namespace(Rc::new(RefCell::new(d))))
            }
            "cycler" => Ok(Value::Cycler(Rc::new(RefCell::new((args.pos, 0))))),
            "joiner" => {
                let bound = args.bind("joiner", &["sep"], 0)?;
                let sep = match &bound[0] {
                    Some(v) => v.to_str(),
                    None => ", ".to_string(),
                };
                Ok(Value::Callable(Rc::new(Callable::Joiner(
                    sep.into(),
                    RefCell::new(false),
                ))))
            }
            "lipsum" => Err(Error::runtime(
                "lipsum() generates random text; canvasc does not reproduce Python's random stream",
            )),
            other => Err(Error::runtime(format!("unknown global {other}"))),
        }
    }

    /// A `{% filter a|b %}` / `{% set x | a %}` chain, applied to `v`.
    fn apply_filter_chain(&mut self, chain: &'s ast::Expr<'s>, v: Value) -> Result<Value> {
        match chain {
            ast::Expr::Filter(f) => {
                let input = match &f.expr {
                    Some(inner) => self.apply_filter_chain(inner, v)?,
                    None => v,
                };
                let args = self.args(&f.args)?;
                filters::apply(f.name, input, args)
            }
            _ => Ok(v),
        }
    }
}

fn unreachable_and_or() -> &'static str {
    "and/or"
}

fn global_name(name: &str) -> &'static str {
    match name {
        "range" => "range",
        "dict" => "dict",
        "namespace" => "namespace",
        "lipsum" => "lipsum",
        "cycler" => "cycler",
        _ => "joiner",
    }
}

fn compare_symbol(op: ast::CompareOpKind) -> &'static str {
    match op {
        ast::CompareOpKind::Eq => "==",
        ast::CompareOpKind::Ne => "!=",
        ast::CompareOpKind::Lt => "<",
        ast::CompareOpKind::Lte => "<=",
        ast::CompareOpKind::Gt => ">",
        ast::CompareOpKind::Gte => ">=",
        ast::CompareOpKind::In => "in",
        ast::CompareOpKind::NotIn => "not in",
    }
}

/// Whether a macro body refers to `name` (Jinja2 only collects `varargs`/`kwargs` when used).
fn uses_name(body: &[ast::Stmt<'_>], name: &str) -> bool {
    let mut found = false;
    super::compile::walk_stmts(body, &mut |e| {
        if let ast::Expr::Var(v) = e {
            found |= v.id == name;
        }
    });
    found
}
