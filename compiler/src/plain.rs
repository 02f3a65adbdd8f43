//! Diagnostics as plain text, where no terminal renderer fits: the `canvas!` macro's
//! `compile_error!` messages and warnings.

use canvasc_frontend::Diagnostic;
use serde_json::Value;

/// `[code] message`, then where (file, component, field pointer and the offending text) and
/// the checker's help. (rustc puts `error:` or `warning:` in front.)
pub fn diagnostic(file: &str, d: &Diagnostic, source: &Value) -> String {
    let mut out = format!("[{}] {}", d.code, d.message);
    let field = if d.pointer.is_empty() {
        "the top level".to_string()
    } else {
        format!("`{}`", d.pointer)
    };
    let place = match &d.component {
        Some(c) => format!("{file}: component `{c}`, field {field}"),
        None => format!("{file}: field {field}"),
    };
    out.push_str(&format!("\n  --> {place}"));
    if let Some(text) = offending_text(d, source) {
        out.push_str(&format!(": `{text}`"));
    }
    if let Some(help) = &d.help {
        out.push_str(&format!("\n  = help: {help}"));
    }
    out
}

/// The part of the string at the pointer the diagnostic is about (short strings only).
fn offending_text(d: &Diagnostic, source: &Value) -> Option<String> {
    let Value::String(s) = source.pointer(&d.pointer)? else {
        return None;
    };
    let text = match d.span {
        Some((start, end)) => s.get(start..end)?,
        None => s.as_str(),
    };
    (!text.is_empty() && text.chars().count() <= 120 && !text.contains('\n'))
        .then(|| text.to_string())
}
