//! Help that tells the truth (issue 43): every command's and subcommand's `--help` runs, and
//! none says it is unfinished, as `serve`'s once said "work in progress: no agent runs yet".

use std::process::Command;

/// Words that would mean a command is not what it says.
const UNFINISHED: &[&str] = &[
    "work in progress",
    "not yet",
    "todo",
    "unfinished",
    "unimplemented",
    "coming soon",
];

fn help(path: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(path)
        .arg("--help")
        .output()
        .expect("canvasc runs");
    assert_eq!(out.status.code(), Some(0), "{path:?} --help failed");
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The subcommands a help text lists (its `Commands:` section), `help` left out.
fn commands(text: &str) -> Vec<String> {
    text.split("Commands:")
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_help_runs_and_none_says_it_is_unfinished() {
    let mut pending = vec![Vec::<String>::new()];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        seen += 1;
        let lower = text.to_lowercase();
        for word in UNFINISHED {
            assert!(
                !lower.contains(word),
                "`canvasc {} --help` says {word:?}:\n{text}",
                path.join(" ")
            );
        }
        for sub in commands(&text) {
            let mut next = path.clone();
            next.push(sub);
            pending.push(next);
        }
    }
    // canvasc, its eight commands and dataset's three.
    assert!(seen >= 12, "only {seen} help texts");
}
