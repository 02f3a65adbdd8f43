//! The canvasc compiler: diagnostics rendering, the command-line tool and (later) code
//! generation. Without the `cli` feature only the parts the `canvas!` macro needs are built.

pub mod build;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
pub mod plain;
#[cfg(feature = "cli")]
pub mod render;
#[cfg(feature = "cli")]
pub mod source_map;
