//! `canvasc`: check, convert and reset RAGFlow canvases.

mod build;
mod check;
pub mod compiled;
mod convert;
pub mod run;

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
}

/// Exit code for usage, I/O and not-a-canvas errors.
pub(crate) const EXIT_USAGE: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Convert(args) => convert::run_convert(args),
        Command::Reset(args) => convert::run_reset(args),
        Command::Run(args) => run::run(args),
        Command::Build(args) => build::run(args),
    }
}

/// Read a file, or explain in one line why it cannot be read.
pub(crate) fn read_file(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
