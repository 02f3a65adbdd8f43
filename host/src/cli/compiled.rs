//! The command line of a crate `canvasc build` wrote: `run FILE` runs the compiled program when
//! FILE's canvas was compiled in (matched by fingerprint), otherwise the interpreter, exactly as
//! the server does; it says which on stderr. Matching needs the loaded DSL only: lowering and
//! checking happen when the interpreter runs.

use super::run::{self, execute, fail, prepare, Prepared};
use crate::program_choice::{choose, Choice, Compiled, Wanted};
use crate::serve::FindProgram;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::{Program, ProgramVisitor};
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::{Analysis, Loaded};
use canvasc_value::{Json, Map};
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
    /// Serve RAGFlow's agent HTTP API: released versions whose fingerprint matches a compiled
    /// canvas run compiled, everything else on the interpreter.
    Serve(Box<super::serve::Args>),
    /// Print what this binary carries (engine version, programs) as JSON: what a server
    /// reads of a program bundle.
    Manifest,
    /// Run the turns a server sends on stdin with the compiled programs (a server starts
    /// this for a program bundle in its data dir); answers go to stdout.
    Worker(Box<super::worker::Args>),
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
/// the program compiled for a fingerprint, `find_turn` a server's turn (both the generated
/// `visit`).
pub fn main(
    canvases: &'static [Compiled],
    find: impl FnOnce(&str, Runner) -> Option<ExitCode>,
    find_turn: FindProgram,
) -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => super::serve::run(*args, canvases, Some(find_turn), None),
        Command::List => {
            for (source, fp, _) in canvases {
                outln!("{fp}  {source}");
            }
            ExitCode::SUCCESS
        }
        Command::Run(args) => run_one(*args, canvases, find),
        Command::Manifest => super::worker::manifest(canvases),
        Command::Worker(args) => super::worker::run(*args, canvases, find_turn),
    }
}

/// The canvas to run: loaded only, when a compiled program will run it, or lowered and
/// checked for the interpreter.
enum Canvas {
    Loaded(Box<Loaded>),
    Analysed(Box<Analysis>),
}

impl Canvas {
    fn dsl(&self) -> &Map<String, Json> {
        match self {
            Canvas::Loaded(l) => &l.document.dsl,
            Canvas::Analysed(a) => &a.document.dsl,
        }
    }

    fn analysis(self, args: &run::Args) -> Analysis {
        match self {
            Canvas::Loaded(l) => run::analyse(args, *l),
            Canvas::Analysed(a) => *a,
        }
    }
}

/// Picking the program needs only the loaded document: its fingerprint names the compiled
/// program, which was lowered and checked when it was built. Only the interpreter (a canvas
/// not compiled in, or `--interpret`) lowers and checks the DSL here.
fn run_one(
    args: RunArgs,
    canvases: &[Compiled],
    find: impl FnOnce(&str, Runner) -> Option<ExitCode>,
) -> ExitCode {
    let loaded = match run::read(&args.run) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let fp = fingerprint(&loaded.document);
    let wanted = match args.interpret {
        true => Wanted::Interpreter,
        false => Wanted::Compiled,
    };
    let choice = choose(canvases, &fp, wanted);
    let canvas = match choice {
        Choice::Compiled { build_errors } => {
            run::warn_draft(&args.run, build_errors);
            Canvas::Loaded(Box::new(loaded))
        }
        Choice::InterpreterWanted | Choice::NotCompiled => {
            Canvas::Analysed(Box::new(run::analyse(&args.run, loaded)))
        }
    };
    let prepared = match prepare(&args.run) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let runner = Runner {
        args: args.run.clone(),
        dsl: canvas.dsl().clone(),
        prepared,
        fingerprint: fp.clone(),
    };
    let file = args.run.file.display();
    if choice == Choice::InterpreterWanted {
        errln!("{file}: running it with the interpreter (--interpret)");
        let analysis = canvas.analysis(&args.run);
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
    let analysis = canvas.analysis(&args.run);
    let program = Arc::new(Interpreter::from_analysis(&analysis));
    execute(program, analysis.document.dsl.clone(), prepared, &args.run)
}
