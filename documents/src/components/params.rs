//! Reading RAGFlow's parameters (defaults already merged) as Python reads them.

use canvasc_value::{py, Json, Map};

/// A text parameter (`""` when absent or null; `str()` of anything else).
pub fn text(params: &Map<String, Json>, key: &str) -> String {
    match params.get(key) {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// A flag parameter (Python truthiness), `default` when absent.
pub fn flag(params: &Map<String, Json>, key: &str, default: bool) -> bool {
    params.get(key).map_or(default, py::truthy)
}
