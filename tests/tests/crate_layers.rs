//! The crate graph ARCHITECTURE.md draws is the one Cargo builds, and every dependency points
//! down the layers: a crate that starts importing a layer above it (the engine reaching into
//! the host, the front-end into the engine) fails here, not in a review.
//!
//! The table is the fenced block under ARCHITECTURE.md's `## Crate graph`: one line a crate,
//! `<layer> <crate> <dependency>…` (`-` for none), naming its normal and build dependencies
//! inside the workspace. Dev-dependencies are left out: a test may drive its crate from above
//! (the server's suite runs canvases through the host).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

struct Row {
    layer: u32,
    deps: BTreeSet<String>,
}

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits inside the workspace")
}

/// The table of ARCHITECTURE.md's `## Crate graph`.
fn documented() -> BTreeMap<String, Row> {
    let text = std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let section = text
        .split("\n## Crate graph\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Crate graph` section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the crate graph section has a fenced table");
    let mut rows = BTreeMap::new();
    for line in block.lines().skip(1) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [layer, name, deps @ ..] = words.as_slice() else {
            continue;
        };
        let Ok(layer) = layer.parse() else {
            continue; // the header line
        };
        let deps = deps
            .iter()
            .filter(|d| **d != "-")
            .map(|d| d.to_string())
            .collect();
        let previous = rows.insert(name.to_string(), Row { layer, deps });
        assert!(
            previous.is_none(),
            "{name} is listed twice in the crate graph"
        );
    }
    assert!(!rows.is_empty(), "the crate graph table has no rows");
    rows
}

/// Each workspace package's normal and build dependencies inside the workspace, as Cargo reads
/// the manifests (every optional dependency included: a feature may turn it on).
fn actual() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|d| names.contains(d))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect()
}

#[test]
fn architecture_lists_every_crate_with_its_dependencies() {
    let documented = documented();
    let actual = actual();
    let listed: BTreeSet<&String> = documented.keys().collect();
    let built: BTreeSet<&String> = actual.keys().collect();
    assert_eq!(
        listed, built,
        "ARCHITECTURE.md's crate graph lists other crates than the workspace has"
    );
    for (name, deps) in &actual {
        assert_eq!(
            &documented[name].deps, deps,
            "ARCHITECTURE.md's crate graph gives {name} other dependencies than its Cargo.toml"
        );
    }
}

#[test]
fn no_crate_depends_on_its_own_layer_or_one_above() {
    let documented = documented();
    for (name, row) in &documented {
        for dep in &row.deps {
            let Some(below) = documented.get(dep) else {
                panic!("{name} depends on {dep}, which the crate graph does not list");
            };
            assert!(
                below.layer < row.layer,
                "{name} (layer {}) depends on {dep} (layer {}): a dependency must sit on a lower layer",
                row.layer,
                below.layer
            );
        }
    }
}
