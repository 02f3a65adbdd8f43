//! References between components: the grammar, and extraction of every reference and route a
//! component's parameters contain, with exact locations.

mod extract;
mod grammar;

pub use extract::{
    extract, Extraction, Inert, InertWhy, Reference, Route, RouteKind, Slot, Syntax,
};
pub use grammar::{
    alias_refs, inert_refs, strip_like_python, template_refs, template_refs_exact_case, Alias,
    Expr, TemplateMatch, ALIAS_REF, TEMPLATE_REF,
};
