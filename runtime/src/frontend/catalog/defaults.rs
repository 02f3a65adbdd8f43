//! RAGFlow's parameter defaults per kind (placeholder until the data lands).

use super::Kind;
use serde_json::{Map, Value};

/// RAGFlow's parameter-class attributes for `kind`, in `__init__` order, as JSON text.
pub fn param_defaults(_kind: Kind) -> &'static [(&'static str, &'static str)] {
    &[]
}

/// Defaults merged with the DSL's params the way Python's `ComponentParamBase.update` does.
pub fn merged_params(kind: Kind, dsl_params: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in param_defaults(kind) {
        out.insert(
            (*k).to_string(),
            serde_json::from_str(v).unwrap_or(Value::Null),
        );
    }
    for (k, v) in dsl_params {
        out.insert(k.clone(), v.clone());
    }
    out
}
