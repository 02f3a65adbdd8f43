//! `canvasc serve`: RAGFlow's agent HTTP API (`canvasc_host::cli::serve`, the one
//! implementation for `canvasc` and for the binaries `canvasc build` produces). `canvasc`
//! carries no compiled programs: drafts run on the interpreter, and released versions are
//! compiled while it serves (this executable's `build`, into program bundles in the data
//! dir), then run compiled.

use std::process::ExitCode;

use canvasc_host::builds::BuildTool;
pub use canvasc_host::cli::serve::Args;

pub fn run(args: Args) -> ExitCode {
    let build = std::env::current_exe().ok().map(|canvasc| BuildTool {
        canvasc,
        source: crate::build::canvasc_source(None),
    });
    canvasc_host::cli::serve::run(args, &[], None, build)
}
