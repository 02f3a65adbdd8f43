//! The paths generated programs and users' `canvas!` crates name (`canvasc_runtime::exec::…`,
//! `canvasc_runtime::value::lit::…`), kept stable over the crates that implement them: the
//! Python-compatibility values (`canvasc-value`), the front-end (`canvasc-frontend`) and, with
//! the `exec` feature, the engine (`canvasc-engine`). Nothing is defined here.

#[cfg(feature = "exec")]
pub use canvasc_engine as exec;
pub use canvasc_frontend as frontend;
pub use canvasc_frontend::meta;
pub use canvasc_value as value;

/// Re-exported for generated programs.
pub use serde_json;
