//! The canvasc compiler: code generation, diagnostics rendering and the command-line tool.
//! Without the `cli` feature only the parts the `canvas!` macro needs are built.

pub mod build;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
#[cfg(feature = "cli")]
pub mod excerpt;
pub mod plain;
#[cfg(feature = "cli")]
pub mod report;
#[cfg(feature = "cli")]
pub mod source_map;

/// The allocator of canvasc's binaries (`canvasc` and every `canvasc build` binary). A run
/// allocates many small, short-lived values (RAGFlow's state is dicts of dicts, mirrored
/// faithfully); mimalloc serves them markedly faster than the system allocator. Binaries
/// install it with `#[global_allocator] static A: canvasc::Allocator = canvasc::Allocator;`.
#[cfg(feature = "cli")]
pub use mimalloc::MiMalloc as Allocator;
