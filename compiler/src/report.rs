//! Diagnostic reports: rustc-style reports with a source snippet and caret (miette), and
//! JSON.

use crate::excerpt::Excerpt;
use crate::source_map::SourceMap;
use canvasc_frontend::{Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic};
use serde::Serialize;

/// Render diagnostics for one file in the human format.
pub fn human(file: &str, source: &str, diags: &[Diagnostic], color: bool) -> String {
    let map = SourceMap::new(source);
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(110)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for d in diags {
        let mut md = MietteDiagnostic::new(format!("{}[{}]: {}", d.severity, d.code, d.message))
            .with_severity(match d.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
            });
        let located = map.locate(&d.pointer, d.span);
        let (start, end) = located.unwrap_or((0, 0));
        let excerpt = Excerpt::new(file, source, start, end);
        if located.is_some() {
            let label = match &d.component {
                Some(c) => format!("in `{c}` at {}", display_pointer(&d.pointer)),
                None => format!("at {}", display_pointer(&d.pointer)),
            };
            let (start, end) = excerpt.span;
            md = md.with_label(LabeledSpan::at(
                start..end.max(start + 1).min(excerpt.text().len().max(1)),
                label,
            ));
        }
        if let Some(help) = &d.help {
            md = md.with_help(help.clone());
        }
        let report = miette::Report::new(md).with_source_code(excerpt);
        if handler.render_report(&mut out, report.as_ref()).is_err() {
            out.push_str(&format!("{}[{}]: {}\n", d.severity, d.code, d.message));
        }
        out.push('\n');
    }
    out
}

fn display_pointer(p: &str) -> &str {
    if p.is_empty() {
        "the top level"
    } else {
        p
    }
}

/// One diagnostic in the JSON format, with the file it belongs to.
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: &'a str,
    #[serde(flatten)]
    diagnostic: &'a Diagnostic,
}

/// Render diagnostics of several files as one JSON array.
pub fn json(files: &[(String, Vec<Diagnostic>)]) -> String {
    let all: Vec<JsonDiagnostic> = files
        .iter()
        .flat_map(|(file, diags)| {
            diags.iter().map(move |d| JsonDiagnostic {
                file,
                diagnostic: d,
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&all).unwrap_or_else(|_| "[]".into());
    s.push('\n');
    s
}

/// One-line summary after a check: `2 errors, 1 warning`.
pub fn summary(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}
