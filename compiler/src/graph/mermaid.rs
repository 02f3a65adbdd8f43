//! The picture as a Mermaid flowchart, which GitHub and most Markdown viewers draw inline.

use super::{Picture, Style};
use canvasc_frontend::Severity;
use std::fmt::Write as _;

pub fn write(picture: &Picture) -> String {
    let mut out = String::from("flowchart TD\n");
    nodes(picture, None, 1, &mut out);
    for e in &picture.edges {
        let arrow = match e.style {
            Style::Flow | Style::Branch => "-->",
            Style::Exception => "-.->",
            Style::Body => "-.->",
            Style::Tool => "-.-",
        };
        match &e.label {
            Some(l) => {
                let _ = writeln!(out, "  n{} {arrow}|{}| n{}", e.from, text(l), e.to);
            }
            None => {
                let _ = writeln!(out, "  n{} {arrow} n{}", e.from, e.to);
            }
        }
    }
    let _ = writeln!(out, "  classDef error fill:#f8d0d0,stroke:#c0392b");
    let _ = writeln!(out, "  classDef warning fill:#fdf0c8,stroke:#b7950b");
    for (i, n) in picture.nodes.iter().enumerate() {
        match n.worst {
            Some(Severity::Error) => {
                let _ = writeln!(out, "  class n{i} error");
            }
            Some(Severity::Warning) => {
                let _ = writeln!(out, "  class n{i} warning");
            }
            None => {}
        }
    }
    out
}

fn nodes(picture: &Picture, parent: Option<usize>, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for i in picture.children(parent) {
        let n = &picture.nodes[i];
        let mut label = format!(
            "{}<br/><small>{}</small>",
            text(n.title()),
            text(&n.subtitle())
        );
        let badge = n.badge();
        if !badge.is_empty() {
            label.push_str(&format!("<br/>{badge}"));
        }
        let _ = writeln!(out, "{pad}n{i}[\"{label}\"]");
        if n.is_container {
            let _ = writeln!(
                out,
                "{pad}subgraph c{i}[\"{}\"]",
                text(&format!("{} body: {}", n.kind, n.title()))
            );
            nodes(picture, Some(i), depth + 1, out);
            let _ = writeln!(out, "{pad}end");
        }
    }
}

/// Text inside a quoted Mermaid label or an edge label: Mermaid's entity codes for the
/// characters that end a label, HTML's for markup.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '|' => out.push_str("#124;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
