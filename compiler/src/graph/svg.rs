//! The picture as SVG: drawn by Graphviz's `dot` when it is installed (clusters, tooltips,
//! colours), else laid out by the `layout-rs` crate, which reads the same DOT text without
//! clusters (a body's components then say which Loop or Iteration holds them).

use super::dot::{self, Flavour};
use super::Picture;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// Which renderer draws the SVG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renderer {
    /// Graphviz when `dot` runs, else the built-in layout.
    Auto,
    /// Graphviz's `dot` (an error when it is not installed).
    Graphviz,
    /// The built-in layout (`layout-rs`), the same on every machine.
    Builtin,
}

/// The SVG of `picture`, titled `title`.
pub fn render(picture: &Picture, title: &str, renderer: Renderer) -> Result<String, String> {
    match renderer {
        Renderer::Builtin => builtin(picture),
        Renderer::Graphviz => graphviz(&dot::write(picture, title, Flavour::default())),
        Renderer::Auto => match graphviz(&dot::write(picture, title, Flavour::default())) {
            Ok(svg) => Ok(svg),
            Err(_) => builtin(picture),
        },
    }
}

/// `dot -Tsvg`, fed the DOT text on stdin.
fn graphviz(dot_text: &str) -> Result<String, String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run Graphviz `dot`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot_text.as_bytes())
            .map_err(|e| format!("cannot feed Graphviz `dot`: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("Graphviz `dot` failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "Graphviz `dot` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("Graphviz `dot` wrote no UTF-8: {e}"))
}

/// The built-in layout: `layout-rs` parses the plain DOT text and writes SVG. A panic inside
/// the layout crate becomes an error, never a crash of `canvasc`.
fn builtin(picture: &Picture) -> Result<String, String> {
    use layout::backends::svg::SVGWriter;
    use layout::gv::{DotParser, GraphBuilder};
    let text = dot::write(picture, "", Flavour { plain: true });
    let drawn = std::panic::catch_unwind(move || {
        let mut parser = DotParser::new(&text);
        let graph = parser.process()?;
        let mut builder = GraphBuilder::new();
        builder.visit_graph(&graph);
        let mut visual = builder.get();
        let mut svg = SVGWriter::new();
        visual.do_it(false, false, false, &mut svg);
        Ok::<String, String>(svg.finalize())
    });
    match drawn {
        Ok(Ok(svg)) => Ok(svg),
        Ok(Err(e)) => Err(format!("the built-in layout cannot read the graph: {e}")),
        Err(_) => Err(
            "the built-in layout failed on this graph (install Graphviz `dot` to draw it)".into(),
        ),
    }
}
