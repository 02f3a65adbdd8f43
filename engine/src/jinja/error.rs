//! The Python exception a render raises: its class and `str(exception)`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub class: &'static str,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(class: &'static str, message: impl Into<String>) -> Self {
        Error {
            class,
            message: message.into(),
        }
    }

    pub fn type_error(message: impl Into<String>) -> Self {
        Error::new("TypeError", message)
    }

    pub fn value_error(message: impl Into<String>) -> Self {
        Error::new("ValueError", message)
    }

    pub fn runtime(message: impl Into<String>) -> Self {
        Error::new("TemplateRuntimeError", message)
    }

    pub fn overflow() -> Self {
        Error::new(
            "OverflowError",
            "integer result too large (Python ints are unbounded; canvasc's are 64-bit)",
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.message)
    }
}
