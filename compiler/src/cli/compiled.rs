//! The command line of a crate `canvasc build` wrote: `run FILE` runs the compiled program when
//! FILE's canvas was compiled in (matched by fingerprint), otherwise the interpreter, exactly as
//! the server does; it says which on stderr.

use super::run::{self, execute, fail, prepare, Prepared};
use canvasc_runtime::exec::interp::Interpreter;
use canvasc_runtime::exec::{Program, ProgramVisitor};
use canvasc_runtime::frontend::fingerprint::fingerprint;
use canvasc_runtime::value::{Json, Map};
use clap::{Args as ClapArgs, Parser, Subcommand};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(about = "RAGFlow canvases compiled by canvasc")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one turn of a canvas: compiled when it was compiled in, else interpreted.
    Run(Box<RunArgs>),
    /// List the compiled canvases: source file and fingerprint.
    List,
}

#[derive(ClapArgs)]
struct RunArgs {
    #[command(flatten)]
    run: run::Args,
    /// Fail instead of interpreting a canvas that was not compiled in.
    #[arg(long)]
    require_compiled: bool,
    /// Run with the interpreter even when the canvas was compiled in (to compare).
    #[arg(long, conflicts_with = "require_compiled")]
    interpret: bool,
}

/// Runs one turn with whichever program the crate hands over.
pub struct Runner {
    args: run::Args,
    dsl: Map<String, Json>,
    prepared: Prepared,
    fingerprint: String,
}

impl ProgramVisitor for Runner {
    type Output = ExitCode;

    fn visit<P: Program>(self, program: Arc<P>) -> ExitCode {
        errln!(
            "{}: running the compiled program ({})",
            self.args.file.display(),
            self.fingerprint
        );
        execute(program, self.dsl, self.prepared, &self.args)
    }
}

/// `main` of a built crate: `canvases` lists what was compiled in; `find` hands a runner to
/// the program compiled for a fingerprint (generated `visit`).
pub fn main(
    canvases: &[(&str, &str)],
    find: impl FnOnce(&str, Runner) -> Option<ExitCode>,
) -> ExitCode {
    match Cli::parse().command {
        Command::List => {
            for (source, fp) in canvases {
                outln!("{fp}  {source}");
            }
            ExitCode::SUCCESS
        }
        Command::Run(args) => run_one(*args, find),
    }
}

fn run_one(args: RunArgs, find: impl FnOnce(&str, Runner) -> Option<ExitCode>) -> ExitCode {
    let analysis = match run::load(&args.run) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let fp = fingerprint(&analysis.document);
    let prepared = match prepare(&args.run) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let runner = Runner {
        args: args.run.clone(),
        dsl: analysis.document.dsl.clone(),
        prepared,
        fingerprint: fp.clone(),
    };
    let file = args.run.file.display();
    if args.interpret {
        errln!("{file}: running it with the interpreter (--interpret)");
        return execute(
            Arc::new(Interpreter::from_analysis(&analysis)),
            analysis.document.dsl.clone(),
            runner.prepared,
            &args.run,
        );
    }
    if let Some(code) = find(&fp, runner) {
        return code;
    }
    if args.require_compiled {
        return fail(format!(
            "{file}: no compiled program for this canvas ({fp}); rebuild with `canvasc build` or drop --require-compiled"
        ));
    }
    errln!("{file}: no compiled program for this canvas ({fp}); running it with the interpreter");
    let prepared = match prepare(&args.run) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let program = Arc::new(Interpreter::from_analysis(&analysis));
    execute(program, analysis.document.dsl.clone(), prepared, &args.run)
}
