//! Every reference a component reads is bound in a compiled program: the bindings the code
//! generator writes ([`binding::table`], from the front-end's references) cover every
//! expression each component asks for when it is built.

use canvasc_runtime::exec::components::{Component, Spec};
use canvasc_runtime::frontend::binding::{self, Bound, Resolve};
use canvasc_runtime::frontend::{analyze, NodeId, Severity};
use canvasc_tests::{corpus_files, display_path, fixture_files, report_skip, shared_dir};
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

/// What examining one canvas gave.
enum Examined {
    /// The expressions asked for but not bound, per node.
    Unbound(Vec<String>),
    /// The canvas has checker errors, so no program is built for it.
    Skipped(String),
}

/// Expressions asked for but not bound, per node, for a canvas without checker errors. A file
/// that cannot be read or is no canvas fails the test.
fn unbound(path: &Path) -> Examined {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let analysis = analyze(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let errors = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        return Examined::Skipped(format!(
            "{errors} checker error(s): nothing is built from it"
        ));
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
    Examined::Unbound(out)
}

/// Fails with every reference of these canvases that does not bind; names each canvas it
/// skips, and checks how many it examined and skipped.
fn assert_all_bound(
    suite: &str,
    paths: impl IntoIterator<Item = PathBuf>,
    (want_examined, want_skipped): (usize, usize),
) {
    let mut failures = Vec::new();
    let (mut examined, mut skipped) = (0, 0);
    for path in paths {
        match unbound(&path) {
            Examined::Unbound(missing) => {
                examined += 1;
                failures.extend(
                    missing
                        .iter()
                        .map(|m| format!("{}: {m}", display_path(&path))),
                );
            }
            Examined::Skipped(reason) => {
                skipped += 1;
                report_skip(suite, &display_path(&path), &reason);
            }
        }
    }
    assert_eq!(
        (examined, skipped),
        (want_examined, want_skipped),
        "{suite}: canvases examined and skipped"
    );
    assert!(
        failures.is_empty(),
        "unbound references:\n{}",
        failures.join("\n")
    );
}

#[test]
fn fixtures_bind_every_reference() {
    assert_all_bound(
        "fixtures_bind_every_reference",
        fixture_files("valid"),
        (41, 0),
    );
}

/// The shared corpus: canvases without checker errors, and those with (skipped, each named).
const CORPUS_EXAMINED: usize = 22;
const CORPUS_SKIPPED: usize = 6;

#[test]
fn corpus_binds_every_reference() {
    let Some(shared) = shared_dir("corpus_binds_every_reference") else {
        return;
    };
    assert_all_bound(
        "corpus_binds_every_reference",
        corpus_files(&shared),
        (CORPUS_EXAMINED, CORPUS_SKIPPED),
    );
}
