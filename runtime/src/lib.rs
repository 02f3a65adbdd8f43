//! canvasc runtime: the front-end every back-end shares, and (with the `exec` feature) the
//! runtime that executes canvases.

#[cfg(feature = "exec")]
pub mod exec;
pub mod frontend;
pub mod meta;
pub mod value;

/// Re-exported for generated programs.
pub use serde_json;
