//! Short constructors for JSON values, for generated programs: a canvas's parameters are
//! written out as nested calls (`obj([("method", s("merge")), …])`) that rustc compiles into
//! straight-line construction code, with no parsing at start-up.

use super::{Json, Map};

pub const NULL: Json = Json::Null;

pub fn s(v: &str) -> Json {
    Json::String(v.to_string())
}

pub fn i(v: i64) -> Json {
    Json::from(v)
}

pub fn u(v: u64) -> Json {
    Json::from(v)
}

/// A float (generated programs only write finite ones: JSON has no others).
pub fn f(v: f64) -> Json {
    serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number)
}

pub fn b(v: bool) -> Json {
    Json::Bool(v)
}

pub fn arr<const N: usize>(items: [Json; N]) -> Json {
    Json::Array(Vec::from(items))
}

pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    Json::Object(map(pairs))
}

/// An object's entries as a map, in order.
pub fn map<const N: usize>(pairs: [(&str, Json); N]) -> Map<String, Json> {
    let mut m = Map::with_capacity(N);
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    m
}
