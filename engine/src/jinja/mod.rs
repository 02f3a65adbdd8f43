//! Jinja2 as RAGFlow renders canvas text: `jinja2.sandbox.SandboxedEnvironment().from_string(
//! text).render(kwargs)` (Jinja2 3.1.6), used by StringTransform's merge and by Message.
//!
//! Why not plain minijinja (a hand-written replacement of a maintained library needs a reason):
//! minijinja's value semantics are not hookable and differ from Python's where templates
//! notice. `Value` ordering compares across types where Python raises `TypeError`, `~` and
//! printing use minijinja's Display (`["a"]`, `none`, `true`) where Jinja2 uses `str()`
//! (`['a']`, `None`, `True`), `//` is Euclidean, `in` coerces to string, and Python's `str`
//! methods (`x.split('-')`, `x.strip()`) do not exist. RAGFlow keeps the un-rendered text when
//! rendering raises, so every such difference changes the output. We therefore keep
//! minijinja's *parser* (Jinja2's grammar, whitespace control, raw blocks, comments) and
//! evaluate its tree here with Python's data model (`value.rs`, `ops.rs`), Python's `str`,
//! `list` and `dict` methods (`methods.rs`), Jinja2's filters (`filters.rs`) and tests
//! (`predicates.rs`), and the sandbox's attribute rules and `range` cap (`attr.rs`,
//! `eval.rs`). Templates are user input: nesting depth, loop work and output size are bounded
//! (`limits.rs`).

mod args;
mod attr;
mod codecs;
mod compile;
mod error;
mod eval;
mod filters;
mod format;
mod limits;
mod methods;
mod names;
mod ops;
mod predicates;
mod urlize;
mod value;

pub use error::Error;

use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The stack of the thread a template renders on (reserved, touched only as used): debug
/// builds spend ~24 KiB per macro call level, and components run on 2 MiB tokio stacks.
const RENDER_STACK: usize = 64 << 20;
/// Stack the evaluator may use below its entry on that thread (bytes).
const MAX_STACK: usize = 56 << 20;
/// The budget when no thread could be started and the render runs on the caller's stack.
const INLINE_STACK: usize = 512 << 10;

static JINJA_BLOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{%.*%\}").expect("valid pattern"));

/// RAGFlow's `_is_jinjia2`: `{%…%}` within one line (`.` does not match `\n`), `{{`, or `}}`.
pub fn is_jinja(s: &str) -> bool {
    s.contains("{{") || s.contains("}}") || JINJA_BLOCK.is_match(s)
}

/// Why a render produced no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenderError {
    /// `from_string` raised (`TemplateSyntaxError`, `TemplateAssertionError`): RAGFlow calls it
    /// outside its `try`, so the component fails.
    Compile(Error),
    /// `render` raised: RAGFlow catches it and keeps the un-rendered text.
    Render(Error),
}

/// Renders `template` with every kwarg bound to its string value.
pub fn render(template: &str, kwargs: &[(&str, String)]) -> Result<String, RenderError> {
    // Jinja2's lexer splits the source on `\r\n|\r|\n` and joins with `\n` (dropping one
    // trailing newline), so the template's own newlines all come out as `\n`.
    let source = normalize_newlines(template);
    if !["{{", "{%", "{#"].iter().any(|open| source.contains(open)) {
        let mut text = source.into_owned();
        if text.ends_with('\n') {
            text.pop();
        }
        return Ok(text);
    }
    let run = |budget: usize| render_source(&source, kwargs, budget);
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("jinja-render".to_string())
            .stack_size(RENDER_STACK)
            .spawn_scoped(scope, || run(MAX_STACK))
        {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(RenderError::Render(Error::new(
                    "RuntimeError",
                    "template render panicked",
                )))
            }),
            Err(_) => run(INLINE_STACK),
        }
    })
}

fn render_source(
    source: &str,
    kwargs: &[(&str, String)],
    stack_budget: usize,
) -> Result<String, RenderError> {
    let stmt = compile::parse_template(source).map_err(RenderError::Compile)?;
    let context: HashMap<&str, value::Value> = kwargs
        .iter()
        .map(|(k, v)| (*k, value::Value::str(v.as_str())))
        .collect();
    let mut evaluator = eval::Evaluator::new(source, context, stack_budget);
    let mut out = String::new();
    evaluator
        .render_body(std::slice::from_ref(&stmt), &mut out)
        .map_err(RenderError::Render)?;
    Ok(out)
}

fn normalize_newlines(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('\r') {
        std::borrow::Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}
