//! `canvasc`: check, convert and reset RAGFlow canvases.

// `out!`, `outln!`, `err!`, `errln!` come from `canvasc_host` (`#[macro_use]` in `lib.rs`).

mod build;
mod check;
mod convert;
mod dataset;
mod graph;
mod progress;
mod serve;

use canvasc_host::cli::run;
pub(crate) use canvasc_host::cli::{read_file, EXIT_USAGE};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "canvasc",
    version,
    about = "A dataflow compiler and runtime for RAGFlow agent canvases"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Type-check canvases: every reference, edge and parameter. Exit 1 when any has errors.
    Check(check::Args),
    /// Convert a canvas between the v1 form RAGFlow stores and the flat v2 form.
    Convert(convert::ConvertArgs),
    /// Apply RAGFlow's `Canvas.reset()` to a stored DSL: what a new session starts from.
    Reset(convert::ResetArgs),
    /// Run one turn of a canvas with the interpreter (drafts).
    Run(run::Args),
    /// Compile canvases into a Cargo crate with a `run` binary, and build it.
    Build(build::Args),
    /// Draw a canvas (SVG, PNG, Mermaid or DOT): components, branches, bodies, exception routes
    /// and the checker's findings.
    Graph(graph::Args),
    /// Serve RAGFlow's agent HTTP API: drafts on the interpreter, released versions compiled
    /// once built; SQLite by default, PostgreSQL/MySQL and Redis for several replicas.
    Serve(serve::Args),
    /// Manage the local knowledge base Retrieval searches: `add NAME PATH…`, `list`, `rm NAME`.
    Dataset(dataset::Args),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Convert(args) => convert::run_convert(args),
        Command::Reset(args) => convert::run_reset(args),
        Command::Run(args) => run::run(args),
        Command::Build(args) => build::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Dataset(args) => dataset::run(args),
    }
}
