//! The base layer: JSON values and Python's semantics on them. It imports nothing else of the
//! crate; run-time values that can also be streams (`Val`) live in `exec::val`.

pub mod lit;
pub mod py;

pub use serde_json::{Map, Value as Json};
