//! The newcomer path: the commands README's "Set up" section tells a new user to run (the
//! main job, and a templated agent answered by a scripted model) are read out of README and run
//! through the real binary, so this test fails the moment README and canvasc drift apart.
//! `cargo run --release -p canvasc --` stands for the binary cargo built for this test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// How README invokes canvasc in its set-up commands.
const CARGO_RUN: &str = "cargo run --release -p canvasc --";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .expect("the workspace root")
}

/// The shell lines of the ```sh blocks in README's `## Set up` section that run canvasc.
fn set_up_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README.md");
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Set up"))
        .expect("README has a `## Set up` section");
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in section.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            // A server (`serve`) runs until stopped: no set-up step to replay here.
            l if in_sh && l.contains(CARGO_RUN) && !l.contains("-- serve") => {
                commands.push(l.to_string())
            }
            _ => {}
        }
    }
    commands
}

#[test]
#[cfg(unix)]
fn readme_set_up_commands_run_as_written() {
    let commands = set_up_commands();
    assert!(
        commands.len() >= 2,
        "README's Set up names the main job and a scripted template run: {commands:?}"
    );
    assert!(
        commands.iter().any(|c| c.contains("--llm-script")),
        "README's Set up shows a run with a scripted model: {commands:?}"
    );
    let binary = env!("CARGO_BIN_EXE_canvasc");
    // A scratch directory that sees the repository's fixtures, so files README's commands
    // write (a picture) land there, not in the checkout.
    let scratch = std::env::temp_dir().join(format!("canvasc-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    std::os::unix::fs::symlink(workspace().join("fixtures"), scratch.join("fixtures"))
        .expect("link fixtures");
    for command in &commands {
        let line = command.replace(CARGO_RUN, binary);
        let o = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&scratch)
            .env_remove("CANVASC_CONFIG")
            .env_remove("OPENAI_API_KEY")
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(0),
            "README command failed: {command}\nstdout: {stdout}\nstderr: {stderr}"
        );
        if command.contains("-- run ") {
            assert!(
                stdout.contains("■ run finished"),
                "README's run did not finish: {command}\n{stdout}\n{stderr}"
            );
        }
        if let Some(out) = command.split(" -o ").nth(1) {
            let path = scratch.join(out.split_whitespace().next().unwrap_or_default());
            let svg = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{command} wrote no {}: {e}", path.display()));
            roxmltree::Document::parse(&svg).expect("README's picture is well-formed SVG");
        }
    }
}
