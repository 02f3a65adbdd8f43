//! `canvasc serve`: RAGFlow's agent HTTP API. `canvasc` carries no compiled programs, so every
//! agent runs on the interpreter; binaries `canvasc build` produces serve theirs compiled
//! (`canvasc_host::cli::serve`, the one implementation of both).

use std::process::ExitCode;

pub use canvasc_host::cli::serve::Args;

pub fn run(args: Args) -> ExitCode {
    canvasc_host::cli::serve::run(args, &[], None)
}
