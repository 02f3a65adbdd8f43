//! The picture in Graphviz's DOT language: what `dot -Tsvg` draws, and what the built-in SVG
//! renderer lays out.

use super::{Picture, Style};
use canvasc_frontend::Severity;
use std::fmt::Write as _;

/// Options the two DOT consumers need differently.
#[derive(Clone, Copy, Default)]
pub struct Flavour {
    /// Leave out what the built-in layout cannot read (clusters, tooltips, a caption): its
    /// bodies are marked in the node labels instead.
    pub plain: bool,
}

/// The DOT text of `picture`, titled `title`.
pub fn write(picture: &Picture, title: &str, flavour: Flavour) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph canvas {{");
    let _ = writeln!(out, "  rankdir=TB;");
    if flavour.plain {
        let _ = writeln!(out, "  node [shape=box, fillcolor=\"#eef3fb\"];");
        let _ = writeln!(out, "  edge [fontsize=11];");
    } else {
        let mut caption = title.to_string();
        for f in &picture.canvas_findings {
            caption.push('\n');
            caption.push_str(f);
        }
        let _ = writeln!(out, "  label={}; labelloc=t;", quote(&caption));
        let _ = writeln!(
            out,
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", fontname=\"sans-serif\"];"
        );
        let _ = writeln!(out, "  edge [fontname=\"sans-serif\", fontsize=10];");
    }
    nodes(picture, None, 1, flavour, &mut out);
    for e in &picture.edges {
        let mut attrs: Vec<String> = Vec::new();
        if let Some(l) = &e.label {
            attrs.push(format!("label={}", quote(l)));
        }
        match e.style {
            Style::Flow | Style::Branch => {}
            Style::Exception => {
                attrs.push("style=dashed".into());
                attrs.push("color=\"#c0392b\"".into());
            }
            Style::Body => attrs.push("style=dotted".into()),
            Style::Tool => {
                attrs.push("style=dotted".into());
                attrs.push("arrowhead=none".into());
                attrs.push("color=\"#7f8c8d\"".into());
            }
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(out, "  n{} -> n{}{attrs};", e.from, e.to);
    }
    out.push_str("}\n");
    out
}

/// The nodes inside `parent`, clusters for Loop and Iteration bodies (unless `plain`).
fn nodes(
    picture: &Picture,
    parent: Option<usize>,
    depth: usize,
    flavour: Flavour,
    out: &mut String,
) {
    let pad = "  ".repeat(depth);
    for i in picture.children(parent) {
        let n = &picture.nodes[i];
        let mut label = format!("{}\n{}", n.title(), n.subtitle());
        if flavour.plain {
            if let Some(p) = n.parent {
                label.push_str(&format!("\n(in {})", picture.nodes[p].title()));
            }
        }
        let badge = n.badge();
        if !badge.is_empty() {
            label.push_str(&format!("\n{badge}"));
        }
        let mut attrs = vec![format!("label={}", quote(&label))];
        let fill = match n.worst {
            Some(Severity::Error) => Some("#f8d0d0"),
            Some(Severity::Warning) => Some("#fdf0c8"),
            None => None,
        };
        if let Some(fill) = fill {
            attrs.push(format!("fillcolor=\"{fill}\""));
        }
        if !n.findings.is_empty() && !flavour.plain {
            attrs.push(format!("tooltip={}", quote(&n.findings.join("\n"))));
        }
        let _ = writeln!(out, "{pad}n{i} [{}];", attrs.join(", "));
        if n.is_container && !flavour.plain {
            let _ = writeln!(out, "{pad}subgraph cluster_{i} {{");
            let _ = writeln!(
                out,
                "{pad}  label={}; style=\"rounded,dashed\"; color=\"#7f8c8d\";",
                quote(&format!("{} body: {}", n.kind, n.title()))
            );
            nodes(picture, Some(i), depth + 1, flavour, out);
            let _ = writeln!(out, "{pad}}}");
        } else if n.is_container {
            nodes(picture, Some(i), depth, flavour, out);
        }
    }
}

/// A DOT double-quoted string; line breaks become `\n` (centred lines).
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
