//! `canvasc graph FILE --format svg|mermaid|dot [-o OUT]`: a picture of a canvas, with the
//! checker's findings marked on the components they concern.

use crate::graph::svg::{self, Renderer};
use crate::graph::{dot, mermaid, Picture};
use canvasc_frontend::analyze;
use clap::{Args as ClapArgs, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Svg,
    Mermaid,
    Dot,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Mermaid => "mermaid",
            Format::Dot => "dot",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Graphviz `dot` when installed, else the built-in layout.
    Auto,
    Graphviz,
    Builtin,
}

#[derive(ClapArgs)]
pub struct Args {
    /// The canvas (any form).
    file: PathBuf,
    /// The picture's form; default: the one `-o`'s extension names (`.svg`, `.mmd`, `.dot`),
    /// else SVG.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the picture here instead of to stdout.
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Who lays out the SVG.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

/// The form `-o`'s extension names, if it names one canvasc draws; `Err` for any other
/// extension (a `.png` must not silently hold SVG text).
fn format_of(out: &std::path::Path) -> Result<Option<Format>, String> {
    let extension = out.extension().map(|e| e.to_string_lossy().to_lowercase());
    Ok(match extension.as_deref() {
        None => None,
        Some("svg") => Some(Format::Svg),
        Some("mmd" | "mermaid") => Some(Format::Mermaid),
        Some("dot" | "gv") => Some(Format::Dot),
        Some(other) => {
            return Err(format!(
                "{}: canvasc graph draws SVG (.svg), Mermaid (.mmd) or DOT (.dot), not .{other}; \
                 for a raster image, convert the SVG (e.g. `rsvg-convert -o x.png x.svg`)",
                out.display()
            ))
        }
    })
}

pub fn run(args: Args) -> ExitCode {
    let named = match args.out.as_deref().map(format_of).transpose() {
        Ok(named) => named.flatten(),
        Err(e) => return usage(e),
    };
    let format = match (args.format, named) {
        (Some(asked), Some(named)) if asked != named => {
            return usage(format!(
                "--format {} does not match the file -o names ({})",
                asked.name(),
                args.out
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
        }
        (Some(asked), _) => asked,
        (None, Some(named)) => named,
        (None, None) => Format::Svg,
    };
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let analysis = match analyze(&text) {
        Ok(a) => a,
        Err(e) => return usage(format!("{name}: {e}")),
    };
    let picture = Picture::of(&analysis);
    let title = args
        .file
        .file_name()
        .map_or_else(|| name.clone(), |f| f.to_string_lossy().into_owned());
    let drawn = match format {
        Format::Dot => Ok(dot::write(&picture, &title, dot::Flavour::default())),
        Format::Mermaid => Ok(mermaid::write(&picture)),
        Format::Svg => {
            let engine = match args.engine {
                EngineArg::Auto => Renderer::Auto,
                EngineArg::Graphviz => Renderer::Graphviz,
                EngineArg::Builtin => Renderer::Builtin,
            };
            svg::render(&picture, &title, engine)
        }
    };
    let drawn = match drawn {
        Ok(d) => d,
        Err(e) => {
            errln!("error: {name}: {e}");
            return ExitCode::from(1);
        }
    };
    match &args.out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, drawn) {
                return usage(format!("cannot write {}: {e}", path.display()));
            }
        }
        None => out!("{drawn}"),
    }
    ExitCode::SUCCESS
}

fn usage(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}
