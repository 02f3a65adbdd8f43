//! RAGFlow's parameter checks (placeholder until the data lands).

use super::Kind;
use serde_json::{Map, Value};

/// A failed `check()`: Python's exception text, and the parameter it is about when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    pub message: String,
    pub param: Option<String>,
}

/// Python `<Kind>Param.check()` on the merged params (defaults + DSL).
pub fn check_params(_kind: Kind, _params: &Map<String, Value>) -> Result<(), CheckFailure> {
    Ok(())
}
