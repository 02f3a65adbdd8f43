//! The front-end shared by the checker, the interpreter and the code generator: loading every
//! DSL form, normalisation, the component catalogue, reference extraction, the IR, control-flow
//! facts and the checker.
//!
//! "Parsing never fails": [`analyze`] returns a result *and* its diagnostics for any canvas;
//! only text that is not a canvas at all is an error.

pub mod binding;
pub mod catalog;
pub mod check;
mod component_parts;
pub mod construct;
pub mod convert;
pub mod diagnostic;
pub mod document;
pub mod fingerprint;
pub mod flow;
mod graph_form;
pub mod input_form;
pub mod ir;
pub mod load;
pub mod meta;
mod migrate;
pub mod refs;
pub mod rename;
pub mod reset;

pub use diagnostic::{Code, Diagnostic, Grading, Severity};
pub use document::{Document, DslComponent, Form};
pub use ir::{Ir, Node, NodeId};
pub use load::{load_str, load_value, LoadError, Loaded};

use flow::Flow;

/// A loaded, lowered and checked canvas.
pub struct Analysis {
    pub document: Document,
    pub ir: Ir,
    pub flow: Flow,
    pub diagnostics: Vec<Diagnostic>,
}

impl Analysis {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Load, lower and check a canvas from JSON text.
pub fn analyze(text: &str) -> Result<Analysis, LoadError> {
    load_str(text).map(analyze_loaded)
}

/// Lower and check an already loaded document.
pub fn analyze_loaded(loaded: Loaded) -> Analysis {
    let Loaded {
        document,
        diagnostics,
    } = loaded;
    let ir = ir::lower(&document);
    let flow = Flow::new(&ir);
    let diagnostics = check::check(&document, &ir, &flow, diagnostics);
    Analysis {
        document,
        ir,
        flow,
        diagnostics,
    }
}
