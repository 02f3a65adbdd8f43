//! The macro stays light: `canvas!` runs inside rustc, so nothing the macro crate builds may
//! depend on tokio, reqwest or axum (the engine's dependencies). `cargo tree` resolves the
//! crate's features as a build of it alone would, offline.

use std::process::Command;

/// Crates only a running canvas needs.
const HEAVY: &[&str] = &["tokio", "reqwest", "axum"];

#[test]
fn the_macro_crate_depends_on_no_tokio_reqwest_or_axum() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let o = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--package",
            "canvasc-macros",
            "--edges",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("cargo runs");
    let tree = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        tree.lines().any(|l| l.starts_with("canvasc-frontend ")),
        "the tree lists the macro's dependencies:\n{tree}"
    );
    let heavy: Vec<&str> = tree
        .lines()
        .filter(|l| {
            let name = l.split_whitespace().next().unwrap_or_default();
            HEAVY.contains(&name)
        })
        .collect();
    assert!(
        heavy.is_empty(),
        "canvasc-macros depends on {heavy:?}; it must reach the front-end only, never the engine"
    );
}
