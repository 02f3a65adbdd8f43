//! The vocabulary every reader of `canvasc.toml` shares (the models here, MCP servers, the
//! tools' services, telemetry in the host): the error that names the file and the environment
//! lookup a reader is handed. The engine reads no file and no variable itself; the host hands
//! it the text and the lookup.

use std::fmt;
use std::path::{Path, PathBuf};

/// Environment lookup, injectable so tests need not touch the process environment.
pub type EnvFn<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A configuration file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => write!(f, "LLM configuration: {}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// The same error, naming the file it is in.
    pub fn at(mut self, path: &Path) -> ConfigError {
        self.path = Some(path.to_path_buf());
        self
    }
}
