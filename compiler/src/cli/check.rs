//! `canvasc check FILE...`

use crate::report;
use canvasc_frontend::{analyze, Diagnostic, Grading, Severity};
use clap::{Args as ClapArgs, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Canvas files (v1, template, editor graph or v2 JSON).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Draft mode: report errors as warnings and exit 0 (what the interpreter tolerates).
    #[arg(long)]
    draft: bool,
    /// Treat warnings (lints) as errors.
    #[arg(long)]
    deny_warnings: bool,
}

pub fn run(args: Args) -> ExitCode {
    let grading = Grading {
        draft: args.draft,
        deny_warnings: args.deny_warnings,
    };
    let color = std::io::stderr().is_terminal();
    let mut results: Vec<(String, Vec<Diagnostic>)> = Vec::new();
    let mut fatal = false;
    let mut human = String::new();
    for path in &args.files {
        let name = path.display().to_string();
        let text = match super::read_file(path) {
            Ok(t) => t,
            Err(e) => {
                errln!("error: {e}");
                fatal = true;
                continue;
            }
        };
        match analyze(&text) {
            Ok(analysis) => {
                let mut diags = analysis.diagnostics;
                grading.apply(&mut diags);
                if args.format == Format::Human {
                    human.push_str(&report::human(&name, &text, &diags, color));
                }
                results.push((name, diags));
            }
            Err(e) => {
                errln!("error: {name}: {e}");
                fatal = true;
            }
        }
    }
    let errors: usize = results
        .iter()
        .flat_map(|(_, d)| d)
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings: usize = results
        .iter()
        .flat_map(|(_, d)| d)
        .filter(|d| d.severity == Severity::Warning)
        .count();
    match args.format {
        Format::Json => {
            out!("{}", report::json(&results));
        }
        Format::Human => {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(human.as_bytes());
            if !results.is_empty() {
                let _ = writeln!(
                    stderr,
                    "{}: {}",
                    if results.len() == 1 {
                        results[0].0.clone()
                    } else {
                        format!("{} files", results.len())
                    },
                    report::summary(errors, warnings)
                );
            }
        }
    }
    if fatal {
        ExitCode::from(super::EXIT_USAGE)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
