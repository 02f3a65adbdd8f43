//! Every reference a component reads is bound in a compiled program: the bindings the code
//! generator writes ([`binding::table`], from the front-end's references) cover every
//! expression each component asks for when it is built.

use canvasc_runtime::exec::components::{Component, Spec};
use canvasc_runtime::frontend::binding::{self, Bound, Resolve};
use canvasc_runtime::frontend::{analyze, NodeId, Severity};
use canvasc_tests::{corpus_files, display_path, fixture_files, shared_dir};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// A node's table that remembers what was asked and not found.
struct Recorder {
    table: Vec<(String, Bound)>,
    missing: RefCell<Vec<String>>,
}

impl Resolve for Recorder {
    fn resolve(&self, exp: &str) -> Option<Bound> {
        let found = self.table.resolve(exp);
        if found.is_none() {
            self.missing.borrow_mut().push(exp.to_string());
        }
        found
    }
}

/// Expressions asked for but not bound, per node, for a canvas without checker errors.
fn unbound(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let analysis = analyze(&text).ok()?;
    if analysis
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        return None;
    }
    let ir = &analysis.ir;
    let mut out = Vec::new();
    for (i, node) in ir.nodes.iter().enumerate() {
        let mut spec = Spec::build(
            node.kind,
            &node.params,
            node.parent.map(|p| &ir.node(p).params),
        );
        let recorder = Recorder {
            table: binding::table(ir, NodeId(i as u32)),
            missing: RefCell::new(Vec::new()),
        };
        spec.bind(&recorder);
        for exp in recorder.missing.into_inner() {
            out.push(format!("{}: `{exp}`", node.id));
        }
    }
    Some(out)
}

/// Fails with every reference of these canvases that does not bind.
fn assert_all_bound(paths: impl IntoIterator<Item = PathBuf>) {
    let mut failures = Vec::new();
    for path in paths {
        if let Some(missing) = unbound(&path) {
            failures.extend(
                missing
                    .iter()
                    .map(|m| format!("{}: {m}", display_path(&path))),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "unbound references:\n{}",
        failures.join("\n")
    );
}

#[test]
fn fixtures_bind_every_reference() {
    assert_all_bound(fixture_files("valid"));
}

#[test]
fn corpus_binds_every_reference() {
    let Some(shared) = shared_dir("corpus_binds_every_reference") else {
        return;
    };
    assert_all_bound(corpus_files(&shared));
}
