//! `canvasc build`'s progress on a terminal: a bar over the canvases being generated, then one
//! over cargo's compile units. Off a terminal nothing changes: no bar, and cargo's own stderr.

use crate::build;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A bar of `len` steps on stderr, drawn only when stderr is a terminal.
pub fn bar(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {wide_msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(what.to_string());
    bar
}

/// `cargo build` the crate's binary, with a bar over the compile units when stderr is a
/// terminal (cargo's JSON messages count them; its rendered diagnostics still reach stderr).
pub fn cargo_build(dir: &Path, package: &str, release: bool) -> Result<PathBuf, String> {
    if !std::io::stderr().is_terminal() {
        return build::cargo_build(dir, package, release);
    }
    let target_dir = build::target_dir(dir);
    let units = bar(dependency_count(dir).unwrap_or(0), "compiling");
    let mut cmd = build::cargo_command(dir, package, release, &target_dir);
    let mut child = cmd
        .arg("--quiet")
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if message["reason"] == "compiler-artifact" {
                if units.position() >= units.length().unwrap_or(0) {
                    units.inc_length(1);
                }
                units.inc(1);
                if let Some(name) = message["target"]["name"].as_str() {
                    units.set_message(name.to_string());
                }
            }
        }
    }
    let status = child.wait().map_err(|e| format!("cannot run cargo: {e}"))?;
    units.finish_and_clear();
    if !status.success() {
        return Err("cargo build failed".into());
    }
    Ok(build::binary_path(package, release, &target_dir))
}

/// How many packages the crate's build resolves (`cargo metadata`), the bar's first length;
/// build scripts add units beyond it, and the bar grows then.
fn dependency_count(dir: &Path) -> Option<usize> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    Some(metadata["resolve"]["nodes"].as_array()?.len())
}
