//! Run-time errors, rendered the way Python's `str(exception)` renders RAGFlow's.

use std::fmt;

/// An error raised while a component runs or while the scheduler resolves something: the
/// Python exception RAGFlow would raise, by class and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Python `KeyError(key)`: `str()` gives the key's repr, e.g. `'sys.x'`.
    Key(String),
    /// Any other exception: its Python class name and message.
    Raised {
        class: &'static str,
        message: String,
    },
    /// `TaskCanceledException`.
    Canceled(String),
}

impl RunError {
    pub fn key_error(key: &str) -> Self {
        RunError::Key(key.to_string())
    }

    /// A plain `Exception(message)`.
    pub fn msg(m: impl Into<String>) -> Self {
        RunError::raised("Exception", m)
    }

    pub fn type_error(m: impl Into<String>) -> Self {
        RunError::raised("TypeError", m)
    }

    pub fn value_error(m: impl Into<String>) -> Self {
        RunError::raised("ValueError", m)
    }

    pub fn raised(class: &'static str, m: impl Into<String>) -> Self {
        RunError::Raised {
            class,
            message: m.into(),
        }
    }

    /// The Python class name of the exception.
    pub fn class(&self) -> &'static str {
        match self {
            RunError::Key(_) => "KeyError",
            RunError::Raised { class, .. } => class,
            RunError::Canceled(_) => "TaskCanceledException",
        }
    }
}

/// The exceptions of Python's dict and list access (`canvasc_value::py::access`).
impl From<canvasc_value::py::access::AccessError> for RunError {
    fn from(e: canvasc_value::py::access::AccessError) -> Self {
        use canvasc_value::py::access::AccessError;
        match e {
            AccessError::Key(key) => RunError::Key(key),
            AccessError::Type(m) => RunError::type_error(m),
            AccessError::Attribute(m) => RunError::raised("AttributeError", m),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Key(k) => f.write_str(&canvasc_value::py::repr_str(k)),
            RunError::Raised { message, .. } | RunError::Canceled(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for RunError {}

/// The `_ERROR` text RAGFlow's components set when they notice cancellation.
pub const CANCELED: &str = "Task has been canceled";
