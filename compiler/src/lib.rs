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
pub mod plain;
#[cfg(feature = "cli")]
pub mod render;
#[cfg(feature = "cli")]
pub mod source_map;
