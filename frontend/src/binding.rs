//! References bound when a program is built.
//!
//! RAGFlow resolves every `{component@output}` by parsing the text and looking the component up
//! each time a component runs; the interpreter does the same. A compiled program resolves each
//! reference once, at build time, into a [`Bound`]: the node, the index of the output among the
//! node's declared outputs (its slot), and the path walked into the value. Reading one is two
//! array indexings, with the same result as the by-name read.
//!
//! Components keep their parameters as RAGFlow holds them and take their bindings through
//! [`Resolve`] when the program is built; a reference without a binding is read by name.

use super::catalog::Kind;
use super::ir::{Ir, NodeId, RefTarget};
use super::refs::strip_like_python;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

/// Where a reference reads from.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// A declared output of a node (`slot` indexes the node's outputs), then a path.
    Output {
        node: NodeId,
        slot: u16,
        path: Vec<String>,
    },
    /// A global (`sys.*`, `env.*`): globals are added at run time, so this stays a lookup by
    /// name, which first tries where it last found the name.
    Global(GlobalName),
}

/// A bound global's name, and the position among the globals where a read last found it.
/// Globals are only ever added, so the position holds from one read to the next; a read checks
/// the name there before it hashes the name. The position is a hint, shared by every session
/// of the program: a wrong one costs one comparison.
#[derive(Debug)]
pub struct GlobalName {
    pub name: String,
    at: AtomicU32,
}

impl GlobalName {
    pub fn new(name: &str) -> Self {
        GlobalName {
            name: name.to_string(),
            at: AtomicU32::new(0),
        }
    }

    /// Where the last read found the name.
    pub fn last_at(&self) -> usize {
        self.at.load(Ordering::Relaxed) as usize
    }

    /// Remember where a read found the name.
    pub fn found_at(&self, at: usize) {
        if let Ok(at) = u32::try_from(at) {
            self.at.store(at, Ordering::Relaxed);
        }
    }
}

impl Clone for GlobalName {
    fn clone(&self) -> Self {
        GlobalName {
            name: self.name.clone(),
            at: AtomicU32::new(self.at.load(Ordering::Relaxed)),
        }
    }
}

impl PartialEq for GlobalName {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Bound {
    /// The component a read depends on (RAGFlow's `_cpn_id` of an input element).
    pub fn node(&self) -> Option<NodeId> {
        match self {
            Bound::Output { node, .. } => Some(*node),
            Bound::Global(_) => None,
        }
    }

    /// The same output with a path walked into it.
    pub fn at(self, parts: &[&str]) -> Bound {
        match self {
            Bound::Output { node, slot, .. } => Bound::Output {
                node,
                slot,
                path: parts.iter().map(|p| p.to_string()).collect(),
            },
            other => other,
        }
    }

    pub fn global(name: &str) -> Bound {
        Bound::Global(GlobalName::new(name))
    }
}

/// Gives the binding of an expression when a program is built (`None`: read by name).
pub trait Resolve {
    fn resolve(&self, exp: &str) -> Option<Bound>;
}

/// Bindings listed by expression, as generated programs write them.
impl<const N: usize> Resolve for [(&str, Bound); N] {
    fn resolve(&self, exp: &str) -> Option<Bound> {
        let exp = strip_like_python(exp);
        self.iter().find(|(e, _)| *e == exp).map(|(_, b)| b.clone())
    }
}

/// A node's [`table`].
impl Resolve for Vec<(String, Bound)> {
    fn resolve(&self, exp: &str) -> Option<Bound> {
        let exp = strip_like_python(exp);
        self.iter().find(|(e, _)| e == exp).map(|(_, b)| b.clone())
    }
}

/// The bindings of one node's references: every expression the front-end found in its
/// parameters that names a declared output, a global or an iteration alias, in extraction
/// order. The key is the expression as RAGFlow looks it up (`strip`ped). An IterationItem or
/// LoopItem reads its parent's parameters, so it takes its parent's references.
pub fn table(ir: &Ir, node: NodeId) -> Vec<(String, Bound)> {
    let n = ir.node(node);
    let source = match n.kind {
        Kind::IterationItem | Kind::LoopItem => n.parent.unwrap_or(node),
        _ => node,
    };
    let mut out: Vec<(String, Bound)> = Vec::new();
    for &i in &ir.node(source).refs {
        let r = &ir.refs[i];
        let key = match r.target {
            RefTarget::Alias { alias, .. } => alias.output().to_string(),
            _ => strip_like_python(&r.at.raw).to_string(),
        };
        if out.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let bound = match &r.target {
            RefTarget::Output { node, output, path } => {
                let Some(slot) = ir.node(*node).output_index(output) else {
                    continue;
                };
                let Ok(slot) = u16::try_from(slot) else {
                    continue;
                };
                Bound::Output {
                    node: *node,
                    slot,
                    path: path.clone(),
                }
            }
            RefTarget::Global(name) => Bound::global(name),
            RefTarget::Alias { item, alias } => {
                match ir
                    .node(*item)
                    .output_index(alias.output())
                    .map(u16::try_from)
                {
                    Some(Ok(slot)) => Bound::Output {
                        node: *item,
                        slot,
                        path: Vec::new(),
                    },
                    _ => continue,
                }
            }
            RefTarget::MissingComponent { .. } | RefTarget::DanglingAlias(_) => continue,
        };
        out.push((key, bound));
    }
    out
}

/// A typed handle on a declared output, as generated programs name them
/// (`outputs::BEGIN.city`): the type parameter is the catalogue's type of the output.
pub struct Out<T> {
    pub node: u32,
    pub slot: u16,
    _ty: PhantomData<fn() -> T>,
}

impl<T> Clone for Out<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Out<T> {}

impl<T> Out<T> {
    pub const fn new(node: u32, slot: u16) -> Self {
        Out {
            node,
            slot,
            _ty: PhantomData,
        }
    }

    pub fn bound(self) -> Bound {
        Bound::Output {
            node: NodeId(self.node),
            slot: self.slot,
            path: Vec::new(),
        }
    }

    /// The output with a path walked into it (`{X@data.items.0}`).
    pub fn at(self, parts: &[&str]) -> Bound {
        self.bound().at(parts)
    }
}

/// The catalogue's output types, as marker types for [`Out`].
pub mod ty {
    use std::marker::PhantomData;

    pub struct Any;
    pub struct Text;
    pub struct Number;
    pub struct Boolean;
    pub struct Object;
    pub struct File;
    pub struct List<T>(PhantomData<T>);
}
