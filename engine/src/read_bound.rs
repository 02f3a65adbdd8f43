//! Reading bound references at run time: the run-time half of [`canvasc_frontend::binding`],
//! which defines the bindings and builds them without the engine. The readers are traits
//! because the bindings are the front-end's types and reading them needs the engine's state,
//! which the front-end never names.

use super::error::RunError;
use super::state::{walk_path_parts, Globals, RunState};
use crate::val::Val;
use canvasc_frontend::binding::{Bound, GlobalName, Out};
use canvasc_frontend::catalog::Kind;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::CanvasMeta;
use canvasc_value::Json;
use std::borrow::Cow;

/// Reading a [`Bound`] reference from a run's state.
pub trait ReadBound {
    /// `get_variable_value(exp)` for the expression this binding was made from.
    fn read(&self, state: &RunState) -> Result<Val, RunError>;

    /// [`ReadBound::read`] that lends the value instead of copying it (`None` for a stream),
    /// as [`RunState::with_variable_value`] does.
    fn with_value<R>(
        &self,
        state: &RunState,
        f: impl FnOnce(Option<&Json>) -> R,
    ) -> Result<R, RunError> {
        Ok(f(self.peek(state)?.as_deref()))
    }

    /// [`ReadBound::read`] borrowing the value where the state holds it (`None` for a
    /// stream); a path walk makes a new value.
    fn peek<'s>(&self, state: &'s RunState) -> Result<Option<Cow<'s, Json>>, RunError>;
}

impl ReadBound for Bound {
    fn read(&self, state: &RunState) -> Result<Val, RunError> {
        match self {
            Bound::Output { node, slot, path } => {
                let root = state.node(*node).output_slot(*slot);
                if path.is_empty() {
                    Ok(root)
                } else {
                    Ok(Val::Json(walk_path_parts(root, path)))
                }
            }
            Bound::Global(g) => match g.find(&state.globals) {
                Some(v) => Ok(Val::Json(v.clone())),
                None => Err(RunError::key_error(&g.name)),
            },
        }
    }

    fn peek<'s>(&self, state: &'s RunState) -> Result<Option<Cow<'s, Json>>, RunError> {
        static EMPTY: Json = Json::String(String::new());
        match self {
            Bound::Output { node, slot, path } if path.is_empty() => {
                Ok(match state.node(*node).record_at(*slot) {
                    Some(r) if r.stream.is_some() => None,
                    Some(r) => Some(Cow::Borrowed(r.json().unwrap_or(&EMPTY))),
                    None => Some(Cow::Borrowed(&EMPTY)),
                })
            }
            Bound::Global(g) => match g.find(&state.globals) {
                Some(v) => Ok(Some(Cow::Borrowed(v))),
                None => Err(RunError::key_error(&g.name)),
            },
            _ => match self.read(state)? {
                Val::Json(j) => Ok(Some(Cow::Owned(j))),
                Val::Stream(_) => Ok(None),
            },
        }
    }
}

/// Finding a [`GlobalName`] among a run's globals.
pub trait FindGlobal {
    /// The global's value: at the remembered position when the name is still there, otherwise
    /// looked up by name (and the position remembered).
    fn find<'g>(&self, globals: &'g Globals) -> Option<&'g Json>;
}

impl FindGlobal for GlobalName {
    fn find<'g>(&self, globals: &'g Globals) -> Option<&'g Json> {
        if let Some((name, value)) = globals.get_index(self.last_at()) {
            if *name == self.name {
                return Some(value);
            }
        }
        let (at, _, value) = globals.get_full(&self.name)?;
        self.found_at(at);
        Some(value)
    }
}

/// Reading a typed output handle ([`Out`]) from a run's state.
pub trait ReadOut {
    fn read(self, state: &RunState) -> Val;
}

impl<T> ReadOut for Out<T> {
    fn read(self, state: &RunState) -> Val {
        state.node(NodeId(self.node)).output_slot(self.slot)
    }
}

/// The IterationItem whose aliases a node's text may use: the node's parent is an Iteration.
pub fn iteration_item_of(meta: &CanvasMeta, node: NodeId) -> Option<NodeId> {
    let parent = meta.node(node).parent?;
    let p = meta.node(parent);
    if p.kind != Kind::Iteration {
        return None;
    }
    // `start` is the Iteration's first IterationItem child (`get_start()`).
    p.start
        .filter(|&item| meta.node(item).kind == Kind::IterationItem)
}

#[cfg(test)]
mod tests {
    use super::{FindGlobal, GlobalName, Globals};
    use canvasc_value::Json;

    /// The remembered position is only a hint: a read after the globals changed order (a
    /// session saved with other globals first) or lost the name still answers by name.
    #[test]
    fn a_global_is_found_wherever_it_sits() {
        let name = GlobalName::new("sys.query");
        let mut first = Globals::default();
        first.insert("sys.query".into(), Json::from("a"));
        assert_eq!(name.find(&first), Some(&Json::from("a")));
        let mut second = Globals::default();
        second.insert("env.x".into(), Json::from(1));
        second.insert("sys.user_id".into(), Json::from(""));
        second.insert("sys.query".into(), Json::from("b"));
        assert_eq!(name.find(&second), Some(&Json::from("b")));
        assert_eq!(name.last_at(), 2);
        assert_eq!(name.find(&first), Some(&Json::from("a")));
        assert_eq!(name.find(&Globals::default()), None);
        assert_eq!(GlobalName::new("env.nope").find(&second), None);
    }
}
