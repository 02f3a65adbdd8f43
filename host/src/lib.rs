//! The host of the canvasc engine: everything between a process and `canvasc-runtime`.
//!
//! The engine reads no file and no environment variable of its own. The host finds and reads
//! the configuration (`canvasc.toml`, environment variables: [`config`]), assembles the
//! [`Services`](canvasc_engine::Services) components call ([`services`]), and carries the
//! run command line that `canvasc run` and every binary `canvasc build` produces share, with the
//! choice between a compiled program and the interpreter ([`cli`]). Built binaries depend on
//! this crate and the runtime only, never on the compiler.

pub mod builds;
pub mod cli;
pub mod config;
pub mod datasets;
#[cfg(feature = "documents")]
pub mod documents;
pub mod interpreted;
mod lru;
pub mod program_choice;
pub mod quota_config;
pub mod serve;
pub mod services;
pub mod session_canvases;
pub mod source_map;
pub mod telemetry;
pub mod tenant_model;
pub mod worker;

/// The allocator of canvasc's binaries (`canvasc` and every `canvasc build` binary). A run
/// allocates many small, short-lived values (RAGFlow's state is dicts of dicts, mirrored
/// faithfully); mimalloc serves them markedly faster than the system allocator. Binaries
/// install it with `#[global_allocator] static A: canvasc_host::Allocator = canvasc_host::Allocator;`.
pub use mimalloc::MiMalloc as Allocator;
