//! Run-time values: JSON-like data, plus the lazy text stream an LLM or a streaming Message
//! produces and a downstream Message consumes.

pub mod lit;
pub mod py;
pub mod py_time;

pub use serde_json::{Map, Value as Json};

#[cfg(feature = "exec")]
mod stream;
#[cfg(feature = "exec")]
pub use stream::{LazyStream, TextStream};

/// The value of a component output or of a resolved reference.
#[cfg(feature = "exec")]
#[derive(Clone)]
pub enum Val {
    Json(Json),
    /// Not yet consumed: RAGFlow holds a `functools.partial` here until a Message (or a consumer
    /// that needs the text) runs it.
    Stream(LazyStream),
}

#[cfg(feature = "exec")]
impl Val {
    pub const NULL: Val = Val::Json(Json::Null);

    pub fn json(&self) -> Option<&Json> {
        match self {
            Val::Json(j) => Some(j),
            Val::Stream(_) => None,
        }
    }

    pub fn is_stream(&self) -> bool {
        matches!(self, Val::Stream(_))
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Val::Json(Json::Null))
    }

    /// The value as it appears in events and saved state. An unconsumed stream has no JSON
    /// form: RAGFlow's serialiser writes `null` in events (callables) and `{}` in `str(canvas)`.
    pub fn to_event_json(&self) -> Json {
        match self {
            Val::Json(j) => j.clone(),
            Val::Stream(_) => Json::Null,
        }
    }
}

#[cfg(feature = "exec")]
impl From<Json> for Val {
    fn from(j: Json) -> Self {
        Val::Json(j)
    }
}

#[cfg(feature = "exec")]
impl std::fmt::Debug for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Json(j) => write!(f, "{j}"),
            Val::Stream(_) => f.write_str("<stream>"),
        }
    }
}
