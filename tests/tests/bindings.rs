//! Every reference a component reads is bound in a compiled program: the bindings the code
//! generator writes ([`binding::table`], from the front-end's references) cover every
//! expression each component asks for when it is built. Each canvas is its own test
//! (`cargo test -p canvasc-tests --test bindings -- <file>`).

use canvasc_engine::components::{Component, Spec};
use canvasc_frontend::binding::{self, Bound, Resolve};
use canvasc_frontend::{analyze, Analysis, NodeId, Severity};
use canvasc_tests::harness::Suite;
use canvasc_tests::{corpus_files, display_path, fixture_files, shared_dir};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

/// A canvas of the suite; a file that cannot be read or is no canvas fails the test.
fn load(path: &Path) -> Analysis {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    analyze(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Why a canvas is not examined: it has checker errors, so no program is built for it.
fn not_built(analysis: &Analysis) -> Option<String> {
    let errors = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    (errors > 0).then(|| format!("{errors} checker error(s): nothing is built from it"))
}

/// Expressions asked for but not bound, per node, for a canvas without checker errors.
fn unbound(analysis: &Analysis) -> Vec<String> {
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
    out
}

/// Adds a test per canvas (named `name`), failing with every reference of the canvas that
/// does not bind; a canvas with checker errors is an ignored test. Checks how many canvases it
/// examines and skips.
fn add_canvases(
    suite: &mut Suite,
    group: &str,
    canvases: impl IntoIterator<Item = (String, PathBuf)>,
    (want_examined, want_skipped): (usize, usize),
) {
    let (mut examined, mut skipped) = (0, 0);
    for (name, path) in canvases {
        if let Some(reason) = not_built(&load(&path)) {
            skipped += 1;
            let why = reason.clone();
            suite.skip(&name, &reason, move || Err(why));
            continue;
        }
        examined += 1;
        suite.case(&name, move || {
            let missing = unbound(&load(&path));
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!("unbound references:\n{}", missing.join("\n")))
            }
        });
    }
    assert_eq!(
        (examined, skipped),
        (want_examined, want_skipped),
        "{group}: canvases examined and skipped"
    );
}

/// The valid fixtures: every one is examined.
const FIXTURES_EXAMINED: usize = 41;

/// The shared corpus: canvases without checker errors, and those with (skipped, each named).
const CORPUS_EXAMINED: usize = 22;
const CORPUS_SKIPPED: usize = 6;

fn main() -> ExitCode {
    let mut suite = Suite::from_args();
    let fixtures = fixture_files("valid")
        .into_iter()
        .map(|p| (display_path(&p), p));
    add_canvases(
        &mut suite,
        "fixtures_bind_every_reference",
        fixtures,
        (FIXTURES_EXAMINED, 0),
    );
    const CORPUS: &str = "corpus_binds_every_reference";
    match shared_dir(CORPUS) {
        Some(shared) => {
            let corpus = corpus_files(&shared).into_iter().map(|p| {
                let name = p.strip_prefix(&shared).unwrap_or(&p).to_string_lossy();
                (name.replace('\\', "/"), p)
            });
            add_canvases(
                &mut suite,
                CORPUS,
                corpus,
                (CORPUS_EXAMINED, CORPUS_SKIPPED),
            );
        }
        None => suite.not_run(
            CORPUS,
            "no shared corpus (set CANVASC_SHARED to its location)",
        ),
    }
    suite.run()
}
