//! `canvasc build`: broken canvases stop the build before any Rust is written (diagnostics
//! pinned per fixture); valid ones give a deterministic crate, and its binary runs compiled,
//! falls back to the interpreter, or refuses with `--require-compiled`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn canvasc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .output()
        .expect("canvasc runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-build-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fixture paths as the test passes them (relative to the repository root).
fn fixtures(sub: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join("fixtures").join(sub))
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            format!(
                "fixtures/{sub}/{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            )
        })
        .collect();
    files.sort();
    files
}

/// `fixtures/broken/`: how many there are, and how many have only warnings (and so build).
/// Update both when a broken fixture is added.
const BROKEN_FIXTURES: usize = 32;
const BROKEN_BUT_BUILDS: usize = 6;

#[test]
fn broken_fixtures_stop_the_build_with_their_diagnostics() {
    let mut built = 0;
    let mut stopped = 0;
    let broken = fixtures("broken");
    assert_eq!(broken.len(), BROKEN_FIXTURES, "fixtures/broken: {broken:?}");
    for rel in broken {
        let out = scratch("broken");
        let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
            .current_dir(root())
            .args(["build", &rel, "--emit-only", "--out"])
            .arg(&out)
            .output()
            .expect("canvasc runs");
        let err = stderr(&o);
        if o.status.code() == Some(0) {
            // Only warnings: the canvas builds.
            assert!(out.join("Cargo.toml").is_file(), "{rel}: crate written");
            built += 1;
            continue;
        }
        assert_eq!(o.status.code(), Some(1), "{rel}: {err}");
        assert!(err.contains("nothing was written"), "{rel}: {err}");
        assert!(!out.exists(), "{rel}: nothing may be written");
        let stem = rel
            .trim_start_matches("fixtures/broken/")
            .trim_end_matches(".json");
        insta::with_settings!({snapshot_suffix => stem, prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!("build", err);
        });
        stopped += 1;
    }
    assert_eq!(
        (built, stopped),
        (BROKEN_BUT_BUILDS, BROKEN_FIXTURES - BROKEN_BUT_BUILDS),
        "broken fixtures that build (only warnings) and that stop the build"
    );
}

#[test]
fn emitted_crate_is_deterministic_and_names_its_source() {
    let rel = "fixtures/valid/diamond-uneven.json";
    let read = |dir: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
            .current_dir(root())
            .args(["build", rel, "--emit-only", "--out"])
            .arg(dir)
            .output()
            .expect("canvasc runs");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        std::fs::read_to_string(dir.join("src/diamond_uneven.rs")).expect("module written")
    };
    let a = read(&scratch("det-a"));
    let b = read(&scratch("det-b"));
    assert_eq!(a, b, "same DSL, same bytes");
    assert!(a.contains("//! Canvas compiled from `fixtures/valid/diamond-uneven.json`"));
    assert!(a.contains("//! DSL fingerprint `sha256:"));
    assert!(a.contains("pub enum Node {"));
}

#[test]
fn built_binary_runs_compiled_or_falls_back() {
    // Named after the directory, even a keyword (once `crate-`).
    let out = scratch("binary").join("crate");
    let o = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .current_dir(root())
        // The generated crate's dependencies build apart from the workspace's (their own lock
        // and features) into the same target directory: without debug info they take a
        // fraction of the disk (CI once ran out of it here).
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .args([
            "build",
            "fixtures/valid/diamond-uneven.json",
            "--debug",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("canvasc runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let binary = PathBuf::from(stdout.lines().last().expect("binary path printed last"));
    assert!(binary.is_file(), "{}", binary.display());
    assert_eq!(
        binary.file_name(),
        Some(std::ffi::OsStr::new(&format!(
            "crate{}",
            std::env::consts::EXE_SUFFIX
        )))
    );

    let run = |canvas: &str, extra: &[&str]| {
        Command::new(&binary)
            .current_dir(root())
            .args(["run", canvas, "--query", "rust, python; go, zig"])
            .args(extra)
            .output()
            .expect("binary runs")
    };
    let compiled = run(
        "fixtures/valid/diamond-uneven.json",
        &["--require-compiled"],
    );
    assert_eq!(compiled.status.code(), Some(0), "{}", stderr(&compiled));
    assert!(stderr(&compiled).contains("running the compiled program"));
    let interpreted = canvasc(&[
        "run",
        &root()
            .join("fixtures/valid/diamond-uneven.json")
            .to_string_lossy(),
        "--query",
        "rust, python; go, zig",
    ]);
    let events = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("jsonl");
                format!("{} {}", v["event"], v["data"]["component_id"])
            })
            .collect()
    };
    assert_eq!(events(&compiled), events(&interpreted));

    let other = run("fixtures/valid/list-operations.json", &[]);
    assert_eq!(other.status.code(), Some(0), "{}", stderr(&other));
    assert!(stderr(&other).contains("running it with the interpreter"));
    let refused = run(
        "fixtures/valid/list-operations.json",
        &["--require-compiled"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("no compiled program"),
        "{}",
        stderr(&refused)
    );
}
