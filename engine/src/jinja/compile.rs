//! Parsing with minijinja's parser (Jinja2's grammar and whitespace rules) and the checks
//! Jinja2 makes at compile time that minijinja's parser does not (unknown tags, filters and
//! tests).

use super::error::{Error, Result};
use super::value::Value;
use minijinja::machinery::{ast, parse, WhitespaceConfig};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::ValueKind;

/// Parses `source` with Jinja2's defaults: `{{ }}`, `{% %}`, `{# #}`, no `trim_blocks`, no
/// `lstrip_blocks`, and one trailing newline removed.
pub fn parse_template(source: &str) -> Result<ast::Stmt<'_>> {
    let whitespace = WhitespaceConfig {
        keep_trailing_newline: false,
        lstrip_blocks: false,
        trim_blocks: false,
    };
    // A unit struct unless minijinja's `custom_syntax` feature is on somewhere in the build.
    #[allow(clippy::default_constructed_unit_structs)]
    let syntax = SyntaxConfig::default();
    let stmt =
        parse(source, "<template>", syntax, whitespace).map_err(|e| syntax_error(source, &e))?;
    validate(source, &stmt)?;
    Ok(stmt)
}

fn syntax_error(source: &str, e: &minijinja::Error) -> Error {
    let detail = e
        .detail()
        .map(str::to_string)
        .unwrap_or_else(|| e.kind().to_string());
    let at = e
        .range()
        .map_or(source.len(), |r| r.start.min(source.len()));
    Error::new("TemplateSyntaxError", jinja_wording(source, at, &detail))
}

/// minijinja's wording of the syntax errors users hit most, in Jinja2's words.
fn jinja_wording(source: &str, at: usize, detail: &str) -> String {
    if let Some(tag) = detail.strip_prefix("unknown statement ") {
        return format!(
            "Encountered unknown tag '{tag}'.{}",
            looking_for(source, at)
        );
    }
    if detail.starts_with("unexpected `") && detail.contains(", expected `") {
        return detail.replace('`', "'");
    }
    match detail {
        "unexpected end of comment" => return "Missing end of comment tag".to_string(),
        "unexpected end of raw block" => return "Missing end of raw directive".to_string(),
        _ => {}
    }
    let (end_kind, opener) = if detail.starts_with("unexpected end of variable block") {
        ("end of print statement", "{{")
    } else if detail.starts_with("unexpected end of block") {
        ("end of statement block", "{%")
    } else if detail.starts_with("unexpected end of input") {
        let last_var = source.rfind("{{");
        let unclosed_var = last_var.is_some_and(|i| !source[i..].contains("}}"));
        if unclosed_var {
            return "unexpected end of template, expected 'end of print statement'.".to_string();
        }
        return format!(
            "Unexpected end of template.{}",
            looking_for(source, source.len())
        );
    } else {
        return detail.to_string();
    };
    // Nothing but the tag's keyword before the end: Jinja2 wanted an expression there.
    let before = &source[..at.min(source.len())];
    let inner = before.rfind(opener).map_or("", |i| &before[i + 2..]);
    let inner = inner.trim_start_matches(['-', '+']).trim();
    let empty = if opener == "{%" {
        inner.split_whitespace().nth(1).is_none()
    } else {
        inner.is_empty()
    };
    if empty {
        format!("Expected an expression, got '{end_kind}'")
    } else {
        format!("unexpected '{end_kind}'")
    }
}

/// Jinja2's ` Jinja was looking for the following tags: … The innermost block that needs to
/// be closed is '…'.` for the blocks still open at byte `at` (empty when none is).
fn looking_for(source: &str, at: usize) -> String {
    let mut stack: Vec<(&str, bool)> = Vec::new();
    let mut rest = &source[..at.min(source.len())];
    while let Some(i) = rest.find("{%") {
        let tag_text = rest[i + 2..].trim_start_matches(['-', '+']).trim_start();
        let name: String = tag_text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let tag_end = rest[i..].find("%}").map_or(rest.len(), |e| i + e + 2);
        let body = &rest[i..tag_end];
        match name.as_str() {
            "for" | "if" | "macro" | "call" | "filter" | "with" | "block" | "autoescape" => {
                stack.push((leak_name(&name), false))
            }
            "set" if !body.contains('=') => stack.push(("set", false)),
            "else" => {
                if let Some(top) = stack.last_mut() {
                    top.1 = true;
                }
            }
            n if n.starts_with("end") && stack.last().is_some_and(|(b, _)| *b == &n[3..]) => {
                stack.pop();
            }
            _ => {}
        }
        rest = &rest[tag_end.min(rest.len())..];
    }
    let Some((block, after_else)) = stack.last() else {
        return String::new();
    };
    let expected = match (*block, *after_else) {
        ("if", false) => "'elif' or 'else' or 'endif'".to_string(),
        ("for", false) => "'endfor' or 'else'".to_string(),
        (b, _) => format!("'end{b}'"),
    };
    format!(
        " Jinja was looking for the following tags: {expected}. The innermost block that needs to be closed is '{block}'."
    )
}

fn leak_name(name: &str) -> &'static str {
    [
        "for",
        "if",
        "macro",
        "call",
        "filter",
        "with",
        "block",
        "autoescape",
    ]
    .into_iter()
    .find(|n| *n == name)
    .unwrap_or("block")
}

/// Jinja2's compile-time errors for a tree minijinja accepted.
fn validate(source: &str, stmt: &ast::Stmt<'_>) -> Result<()> {
    let mut tag_err: Option<Error> = None;
    let mut expr_err: Option<Error> = None;
    visit_stmt(
        stmt,
        &mut |s| {
            if let ast::Stmt::Do(_) = s {
                tag_err.get_or_insert_with(|| {
                    Error::new("TemplateSyntaxError", "Encountered unknown tag 'do'.")
                });
            }
        },
        &mut |e| match e {
            ast::Expr::Filter(f) if !super::names::is_filter(f.name) => {
                expr_err.get_or_insert_with(|| {
                    Error::new(
                        "TemplateAssertionError",
                        format!("No filter named '{}'.", f.name),
                    )
                });
            }
            ast::Expr::Test(t) if !super::names::is_test(t.name) => {
                expr_err.get_or_insert_with(|| {
                    Error::new(
                        "TemplateAssertionError",
                        format!("No test named '{}'.", t.name),
                    )
                });
            }
            // Jinja2's lexer reads `007` as `0` then `07`: two integers in a row.
            ast::Expr::Const(c) if c.value.is_integer() && leading_zero(source, e) => {
                expr_err.get_or_insert_with(|| {
                    Error::new(
                        "TemplateSyntaxError",
                        "expected token 'end of print statement', got 'integer'",
                    )
                });
            }
            ast::Expr::Call(_) | ast::Expr::Filter(_) | ast::Expr::Test(_) => {
                if let Some(name) = repeated_keyword(e) {
                    expr_err.get_or_insert_with(|| {
                        Error::new("SyntaxError", format!("keyword argument repeated: {name}"))
                    });
                }
            }
            _ => {}
        },
    );
    match tag_err.or(expr_err) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn leading_zero(source: &str, e: &ast::Expr<'_>) -> bool {
    let span = e.span();
    let text = source
        .get(span.start_offset as usize..span.end_offset as usize)
        .unwrap_or_default();
    text.len() > 1
        && text.starts_with('0')
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && text.bytes().any(|b| (b'1'..=b'9').contains(&b))
}

/// A keyword passed twice in one call (Python's compile-time `SyntaxError`).
fn repeated_keyword<'a>(e: &ast::Expr<'a>) -> Option<&'a str> {
    let args = match e {
        ast::Expr::Call(c) => &c.args,
        ast::Expr::Filter(f) => &f.args,
        ast::Expr::Test(t) => &t.args,
        _ => return None,
    };
    let mut seen: Vec<&str> = Vec::new();
    for a in args {
        if let ast::CallArg::Kwarg(name, _) = a {
            if seen.contains(name) {
                return Some(name);
            }
            seen.push(name);
        }
    }
    None
}

/// A literal from the parse tree as a template value. String literals are re-read from the
/// source with Python's escapes (`\\a`, `\\v`, `\\U…`, unknown escapes keep their backslash),
/// which minijinja's unescaping does not follow.
pub fn constant(source: &str, e: &ast::Expr<'_>, v: &minijinja::Value) -> Value {
    if v.kind() == ValueKind::String {
        let span = e.span();
        let text = source.get(span.start_offset as usize..span.end_offset as usize);
        if let Some(s) = text.and_then(python_string_literals) {
            return Value::str(s);
        }
    }
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => Value::None,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::String => Value::str(v.as_str().unwrap_or_default()),
        ValueKind::Number if v.is_integer() => match v.as_i64() {
            Some(i) => Value::Int(i),
            // Wider than i64: Python would keep it exact; the closest we hold is a float.
            None => Value::Float(f64::try_from(v.clone()).unwrap_or(f64::INFINITY)),
        },
        ValueKind::Number => Value::Float(f64::try_from(v.clone()).unwrap_or(f64::NAN)),
        _ => Value::str(v.to_string()),
    }
}

/// One or more adjacent Python string literals (`'a' "b"`), unescaped and concatenated.
fn python_string_literals(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(quote) = chars.next() else {
            return Some(out);
        };
        if quote != '\'' && quote != '"' {
            return None;
        }
        loop {
            match chars.next()? {
                c if c == quote => break,
                '\\' => unescape_one(&mut chars, &mut out)?,
                c => out.push(c),
            }
        }
    }
}

/// The escape after a backslash, as Python's `unicode-escape` codec reads it.
fn unescape_one(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    out: &mut String,
) -> Option<()> {
    let c = chars.next()?;
    let hex = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| -> Option<char> {
        let digits: String = (0..n).map(|_| chars.next()).collect::<Option<String>>()?;
        char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
    };
    match c {
        '\n' => {}
        '\\' | '\'' | '"' => out.push(c),
        'a' => out.push('\u{7}'),
        'b' => out.push('\u{8}'),
        'f' => out.push('\u{c}'),
        'n' => out.push('\n'),
        'r' => out.push('\r'),
        't' => out.push('\t'),
        'v' => out.push('\u{b}'),
        'x' => out.push(hex(chars, 2)?),
        'u' => out.push(hex(chars, 4)?),
        'U' => out.push(hex(chars, 8)?),
        '0'..='7' => {
            let mut n = c.to_digit(8)?;
            for _ in 0..2 {
                match chars.peek().and_then(|d| d.to_digit(8)) {
                    Some(d) => {
                        n = n * 8 + d;
                        chars.next();
                    }
                    None => break,
                }
            }
            out.push(char::from_u32(n)?);
        }
        other => {
            out.push('\\');
            out.push(other);
        }
    }
    Some(())
}

/// Whether a sequence literal is a tuple: minijinja parses `(a, b)` and the bare `a, b` of
/// `{% set %}` as lists, so the source text decides (only `[` opens a list).
pub fn is_tuple_literal(source: &str, e: &ast::Expr<'_>) -> bool {
    let start = e.span().start_offset as usize;
    source.as_bytes().get(start) != Some(&b'[')
}

/// Visits every expression under `body`.
pub fn walk_stmts(body: &[ast::Stmt<'_>], f: &mut dyn FnMut(&ast::Expr<'_>)) {
    for s in body {
        visit_stmt(s, &mut |_| {}, f);
    }
}

fn visit_stmt(
    s: &ast::Stmt<'_>,
    on_stmt: &mut dyn FnMut(&ast::Stmt<'_>),
    f: &mut dyn FnMut(&ast::Expr<'_>),
) {
    on_stmt(s);
    let body = |stmts: &[ast::Stmt<'_>],
                on_stmt: &mut dyn FnMut(&ast::Stmt<'_>),
                f: &mut dyn FnMut(&ast::Expr<'_>)| {
        for s in stmts {
            visit_stmt(s, on_stmt, f);
        }
    };
    match s {
        ast::Stmt::Template(t) => body(&t.children, on_stmt, f),
        ast::Stmt::EmitExpr(e) => visit_expr(&e.expr, f),
        ast::Stmt::EmitRaw(_) => {}
        ast::Stmt::ForLoop(l) => {
            visit_expr(&l.target, f);
            visit_expr(&l.iter, f);
            if let Some(e) = &l.filter_expr {
                visit_expr(e, f);
            }
            body(&l.body, on_stmt, f);
            body(&l.else_body, on_stmt, f);
        }
        ast::Stmt::IfCond(c) => {
            visit_expr(&c.expr, f);
            body(&c.true_body, on_stmt, f);
            body(&c.false_body, on_stmt, f);
        }
        ast::Stmt::WithBlock(w) => {
            for (t, v) in &w.assignments {
                visit_expr(t, f);
                visit_expr(v, f);
            }
            body(&w.body, on_stmt, f);
        }
        ast::Stmt::Set(s) => {
            visit_expr(&s.target, f);
            visit_expr(&s.expr, f);
        }
        ast::Stmt::SetBlock(s) => {
            visit_expr(&s.target, f);
            if let Some(e) = &s.filter {
                visit_expr(e, f);
            }
            body(&s.body, on_stmt, f);
        }
        ast::Stmt::AutoEscape(a) => {
            visit_expr(&a.enabled, f);
            body(&a.body, on_stmt, f);
        }
        ast::Stmt::FilterBlock(b) => {
            visit_expr(&b.filter, f);
            body(&b.body, on_stmt, f);
        }
        ast::Stmt::Block(b) => body(&b.body, on_stmt, f),
        ast::Stmt::Import(i) => visit_expr(&i.expr, f),
        ast::Stmt::FromImport(i) => visit_expr(&i.expr, f),
        ast::Stmt::Extends(e) => visit_expr(&e.name, f),
        ast::Stmt::Include(i) => visit_expr(&i.name, f),
        ast::Stmt::Macro(m) => {
            for e in m.args.iter().chain(&m.defaults) {
                visit_expr(e, f);
            }
            body(&m.body, on_stmt, f);
        }
        ast::Stmt::CallBlock(c) => {
            visit_expr(&c.call.expr, f);
            visit_args(&c.call.args, f);
            for e in c.macro_decl.args.iter().chain(&c.macro_decl.defaults) {
                visit_expr(e, f);
            }
            body(&c.macro_decl.body, on_stmt, f);
        }
        ast::Stmt::Do(d) => {
            visit_expr(&d.call.expr, f);
            visit_args(&d.call.args, f);
        }
    }
}

fn visit_args(args: &[ast::CallArg<'_>], f: &mut dyn FnMut(&ast::Expr<'_>)) {
    for a in args {
        match a {
            ast::CallArg::Pos(e)
            | ast::CallArg::Kwarg(_, e)
            | ast::CallArg::PosSplat(e)
            | ast::CallArg::KwargSplat(e) => visit_expr(e, f),
        }
    }
}

fn visit_expr(e: &ast::Expr<'_>, f: &mut dyn FnMut(&ast::Expr<'_>)) {
    f(e);
    match e {
        ast::Expr::Var(_) | ast::Expr::Const(_) => {}
        ast::Expr::Slice(s) => {
            visit_expr(&s.expr, f);
            for e in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                visit_expr(e, f);
            }
        }
        ast::Expr::UnaryOp(u) => visit_expr(&u.expr, f),
        ast::Expr::BinOp(b) => {
            visit_expr(&b.left, f);
            visit_expr(&b.right, f);
        }
        ast::Expr::Compare(c) => {
            visit_expr(&c.expr, f);
            for op in &c.ops {
                visit_expr(&op.expr, f);
            }
        }
        ast::Expr::IfExpr(i) => {
            visit_expr(&i.test_expr, f);
            visit_expr(&i.true_expr, f);
            if let Some(e) = &i.false_expr {
                visit_expr(e, f);
            }
        }
        ast::Expr::Filter(x) => {
            if let Some(e) = &x.expr {
                visit_expr(e, f);
            }
            visit_args(&x.args, f);
        }
        ast::Expr::Test(t) => {
            visit_expr(&t.expr, f);
            visit_args(&t.args, f);
        }
        ast::Expr::GetAttr(g) => visit_expr(&g.expr, f),
        ast::Expr::GetItem(g) => {
            visit_expr(&g.expr, f);
            visit_expr(&g.subscript_expr, f);
        }
        ast::Expr::Call(c) => {
            visit_expr(&c.expr, f);
            visit_args(&c.args, f);
        }
        ast::Expr::List(l) => {
            for e in &l.items {
                visit_expr(e, f);
            }
        }
        ast::Expr::Map(m) => {
            for e in m.keys.iter().chain(&m.values) {
                visit_expr(e, f);
            }
        }
    }
}
