//! The canvasc compiler: code generation, diagnostics rendering and the command-line tool.
//! Without the `cli` feature only the parts the `canvas!` macro needs are built.

// The output macros of the command line (`outln!`, `errln!`, …), shared with built binaries.
#[cfg(feature = "cli")]
#[macro_use]
extern crate canvasc_host;

pub mod build;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
#[cfg(feature = "cli")]
pub mod excerpt;
#[cfg(feature = "cli")]
pub mod graph;
pub mod plain;
#[cfg(feature = "cli")]
pub mod report;
/// Moved to the host crate (the run command line locates script errors with it too).
#[cfg(feature = "cli")]
pub use canvasc_host::source_map;
