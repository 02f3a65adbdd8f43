//! A binary `canvasc build` produces depends on the runtime and the host only: the compiler
//! crate (and with it the code generator's syn and prettyplease) is not in its dependency
//! tree. `generated/` is such a crate, written by the same code. proc-macro2 and quote are
//! allowed: the Browser's DevTools protocol crate (chromiumoxide_cdp) takes them as normal
//! dependencies through its protocol-definition crate; they are small, and no code generator
//! comes with them.

use std::process::Command;

/// Crates a built binary must not compile: the compiler and the code generator's own.
const FORBIDDEN: &[&str] = &["canvasc", "syn", "prettyplease"];

/// The package names of `package`'s dependency tree: normal and build dependencies, without
/// procedural macros (serde's and tokio's derive macros need syn whatever the binary is).
fn tree(package: &str) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(canvasc_tests::workspace_root())
        .args(["tree", "--offline", "--prefix", "none", "--format", "{p}"])
        .args(["--edges", "normal,build,no-proc-macro", "-p", package])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn a_built_binary_depends_on_runtime_and_host_but_not_on_the_compiler() {
    let names = tree("canvasc-generated");
    for needed in ["canvasc-runtime", "canvasc-host"] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} missing: {names:?}"
        );
    }
    let found: Vec<&String> = names
        .iter()
        .filter(|n| FORBIDDEN.contains(&n.as_str()))
        .collect();
    assert!(found.is_empty(), "a built binary compiles {found:?}");
    // The check can fail: the compiler's own tree has them.
    let compiler = tree("canvasc");
    assert!(
        ["syn", "quote", "prettyplease"]
            .iter()
            .all(|c| compiler.iter().any(|n| n == c)),
        "{compiler:?}"
    );
}
