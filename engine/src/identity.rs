//! The places that may hold one Python object, and the table of which do (see `sharing.rs`,
//! which keeps the table up to date). Kept apart from `sharing.rs` so that the run state can hold
//! the table without importing the code that edits the state.

use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::CanvasMeta;
use canvasc_value::Json;

/// Which places share an object: identity numbers (0 = shares nothing) of the places that are
/// not output records (a record keeps its own number).
#[derive(Clone, Debug, Default)]
pub struct Sharing {
    /// The last identity handed out; 0 while nothing was ever shared.
    pub(super) last: u32,
    pub(super) globals: Vec<(String, u32)>,
    /// A Loop's constant: (Loop, index in `loop_variables`, identity).
    pub(super) constants: Vec<(NodeId, usize, u32)>,
    /// Objects held as list elements: (identity of the list, index, identity of the element).
    pub(super) elements: Vec<(u32, usize, u32)>,
}

/// A place that holds a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place<'a> {
    /// A component output (`X@key`).
    Output(NodeId, &'a str),
    /// A global (`sys.*`, `env.*`).
    Global(&'a str),
    /// The `value` of a Loop's constant loop variable, in its params.
    LoopConstant(NodeId, usize),
}

/// The parameter a Loop's constants live in; edited constants are saved with it.
pub const LOOP_VARIABLES: &str = "loop_variables";

impl<'a> Place<'a> {
    /// The place a whole-value reference names (`X@key`, or a global); `None` for a reference
    /// into a value (`X@key.path`) or to an unknown component.
    pub fn of_reference(meta: &CanvasMeta, exp: &'a str) -> Option<Place<'a>> {
        let exp = canvasc_frontend::refs::strip_like_python(exp);
        match exp.split_once('@') {
            None => Some(Place::Global(exp)),
            Some((_, var)) if var.contains('.') => None,
            Some((cpn, var)) => meta.find(cpn).map(|n| Place::Output(n, var)),
        }
    }
}

/// Whether a value is an object Python could edit in place.
pub fn mutable(v: &Json) -> bool {
    matches!(v, Json::Array(_) | Json::Object(_))
}
