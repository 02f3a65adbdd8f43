//! Run-time errors, rendered the way Python's `str(exception)` renders RAGFlow's.

use std::fmt;

/// An error raised while a component runs or while the scheduler resolves something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Python `KeyError(key)`: `str()` gives the key's repr, e.g. `'sys.x'`.
    Key(String),
    /// Any other exception, with its message.
    Component(String),
    /// `TaskCanceledException` or a component noticing cancellation.
    Canceled(String),
}

impl RunError {
    pub fn key_error(key: &str) -> Self {
        RunError::Key(key.to_string())
    }

    pub fn msg(m: impl Into<String>) -> Self {
        RunError::Component(m.into())
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Key(k) => f.write_str(&crate::value::py::repr_of(
                &serde_json::Value::String(k.clone()),
            )),
            RunError::Component(m) | RunError::Canceled(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunError {}

/// The `_ERROR` text RAGFlow's components set when they notice cancellation.
pub const CANCELED: &str = "Task has been canceled";
