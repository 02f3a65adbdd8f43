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
    #[arg(long, value_enum, default_value_t = Format::Svg)]
    format: Format,
    /// Write the picture here instead of to stdout.
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Who lays out the SVG.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

pub fn run(args: Args) -> ExitCode {
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
    let drawn = match args.format {
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
