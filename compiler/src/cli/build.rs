//! `canvasc build FILE... --out DIR`: check, lower each canvas to Rust, write a Cargo crate
//! (the compiled canvases, a registry by fingerprint, a `main` with `run`), and build it.
//! `canvasc build --published --out DIR` takes a deployment's released versions instead.

use super::progress;
use crate::codegen::{self, UniqueNames};
use crate::{build, report};
use canvasc_frontend::{analyze, Grading, Severity};
use clap::Args as ClapArgs;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// Canvas files (v1, template, editor graph or v2 JSON).
    #[arg(required_unless_present = "published")]
    files: Vec<PathBuf>,
    /// Build every released version a deployment stores instead of files (the CI/CD path:
    /// the binary then serves them with `serve --compiled-only`). The database is
    /// `DATABASE_URL`, else the SQLite file under `--data-dir`.
    #[arg(long, conflicts_with = "files")]
    published: bool,
    /// With `--published`: the data directory of `canvasc serve`.
    #[arg(long, env = "CANVASC_DATA_DIR", default_value = "canvasc-data")]
    data_dir: PathBuf,
    /// Directory of the crate to write (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Write the crate without building it.
    #[arg(long)]
    emit_only: bool,
    /// Package and binary name (default: the output directory's name).
    #[arg(long)]
    name: Option<String>,
    /// Build with the dev profile instead of release.
    #[arg(long)]
    debug: bool,
    /// Leave out canvases with checker errors (reported) instead of writing nothing.
    #[arg(long)]
    skip_invalid: bool,
    /// Draft mode: compile canvases despite checker errors (reported as warnings); the
    /// program then fails at run time exactly where RAGFlow's engine would.
    #[arg(long, conflicts_with = "skip_invalid")]
    draft: bool,
    /// The canvasc source tree whose `runtime/` and `host/` crates the generated crate
    /// depends on (default: `$CANVASC_SOURCE`, else the tree this canvasc was built from).
    #[arg(long)]
    canvasc_source: Option<PathBuf>,
}

/// A canvas to compile: what reports call it, the name its module is made from, and where
/// its DSL comes from.
struct Source {
    name: String,
    stem: String,
    text: Text,
}

enum Text {
    File(PathBuf),
    Stored(String),
}

/// The canvases `args` names: its files, or a deployment's released versions.
fn sources(args: &Args) -> Result<Vec<Source>, String> {
    if !args.published {
        return Ok(args
            .files
            .iter()
            .map(|path| Source {
                name: path.display().to_string(),
                stem: path.display().to_string(),
                text: Text::File(path.clone()),
            })
            .collect());
    }
    let url = match std::env::var("DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => {
            let file = args.data_dir.join("canvasc.db");
            if !file.is_file() {
                return Err(format!(
                    "--published: {} holds no database (set DATABASE_URL or --data-dir)",
                    file.display()
                ));
            }
            canvasc_server::Store::sqlite_url(&args.data_dir)
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let versions = runtime.block_on(async {
        let store = canvasc_server::Store::open(&url).await?;
        store.released_versions().await
    });
    let versions = versions.map_err(|e| format!("--published: {e}"))?;
    if versions.is_empty() {
        return Err("--published: the deployment has no released version".into());
    }
    Ok(versions
        .into_iter()
        .map(|(version, dsl)| Source {
            name: format!(
                "agent {} version {} ({})",
                version.agent_id, version.id, version.title
            ),
            stem: format!("agent_{}_{}", version.agent_id, version.id),
            text: Text::Stored(dsl),
        })
        .collect())
}

pub fn run(args: Args) -> ExitCode {
    let color = std::io::stderr().is_terminal();
    let mut modules: Vec<(String, String)> = Vec::new();
    let mut seen_fingerprints: Vec<String> = Vec::new();
    let mut taken = UniqueNames::default();
    let mut failed = false;
    let sources = match sources(&args) {
        Ok(sources) => sources,
        Err(e) => return usage(e),
    };
    let bar = progress::bar(sources.len(), "generating");
    for Source { name, stem, text } in sources {
        bar.set_message(name.clone());
        bar.inc(1);
        let text = match text {
            Text::Stored(text) => text,
            Text::File(path) => match super::read_file(&path) {
                Ok(t) => t,
                Err(e) => {
                    bar.finish_and_clear();
                    return usage(e);
                }
            },
        };
        let analysis = match analyze(&text) {
            Ok(a) => a,
            Err(e) => {
                bar.finish_and_clear();
                return usage(format!("{name}: {e}"));
            }
        };
        let errors: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if !errors.is_empty() && args.draft {
            let mut warnings = errors.clone();
            Grading {
                draft: true,
                deny_warnings: false,
            }
            .apply(&mut warnings);
            bar.suspend(|| err!("{}", report::human(&name, &text, &warnings, color)));
        } else if !errors.is_empty() {
            if args.skip_invalid {
                bar.suspend(|| {
                    errln!(
                        "note: {name}: {}; left out",
                        report::summary(errors.len(), 0)
                    )
                });
            } else {
                bar.suspend(|| {
                    err!("{}", report::human(&name, &text, &errors, color));
                    errln!("{name}: {}", report::summary(errors.len(), 0));
                });
                failed = true;
            }
            continue;
        }
        let fp = canvasc_frontend::fingerprint::fingerprint(&analysis.document);
        if seen_fingerprints.contains(&fp) {
            bar.suspend(|| {
                errln!("note: {name} is the same canvas as an earlier one; compiled once")
            });
            continue;
        }
        seen_fingerprints.push(fp);
        let module = codegen::module_name(&stem, &mut taken);
        let tokens = codegen::canvas_module(&name, &analysis);
        match codegen::format(tokens) {
            Ok(code) => modules.push((module, code)),
            Err(e) => {
                bar.finish_and_clear();
                errln!("error: {name}: generated code does not parse ({e}); this is a canvasc bug");
                return ExitCode::from(1);
            }
        }
    }
    bar.finish_and_clear();
    if failed {
        errln!("error: reference errors: nothing was written");
        return ExitCode::from(1);
    }
    let package = args
        .name
        .clone()
        .unwrap_or_else(|| build::package_for(&args.out));
    let source = match build::canvasc_source(args.canvasc_source.as_deref()) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    if let Err(e) = build::write_crate(&args.out, &package, &source, &modules) {
        return usage(format!("cannot write {}: {e}", args.out.display()));
    }
    errln!(
        "wrote {} ({} canvas{})",
        args.out.display(),
        modules.len(),
        if modules.len() == 1 { "" } else { "es" }
    );
    if args.emit_only {
        return ExitCode::SUCCESS;
    }
    match progress::cargo_build(&args.out, &package, !args.debug) {
        Ok(binary) => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", binary.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            errln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}
