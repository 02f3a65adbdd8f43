//! `worker` and `manifest`, the commands of a built binary a server runs as a program bundle
//! (`crate::worker`): `manifest` prints what the binary carries, `worker` runs the turns the
//! server sends it.

mod turns;

use super::EXIT_USAGE;
use crate::program_choice::Compiled;
use crate::serve::{FindProgram, Programs};
use crate::worker::bundles::Manifest;
use clap::Args as ClapArgs;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The server's configuration a worker runs turns with.
#[derive(ClapArgs, Clone)]
pub struct Args {
    /// The server's data dir (the local knowledge base, the files runs store).
    #[arg(long)]
    pub data_dir: PathBuf,
    /// The host configuration the server reads.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The server's LLM script, when it answers every LLM call from one.
    #[arg(long)]
    pub llm_script: Option<PathBuf>,
    /// The server's step limit (0: none).
    #[arg(long, default_value_t = 0)]
    pub max_steps: usize,
}

impl Args {
    /// The command line (after `worker`) of a worker that runs turns as `serve` with these
    /// settings would.
    pub fn command_line(&self) -> Vec<OsString> {
        let mut line: Vec<OsString> = vec!["--data-dir".into(), self.data_dir.clone().into()];
        if let Some(config) = &self.config {
            line.extend(["--config".into(), config.clone().into()]);
        }
        if let Some(script) = &self.llm_script {
            line.extend(["--llm-script".into(), script.clone().into()]);
        }
        line.extend(["--max-steps".into(), self.max_steps.to_string().into()]);
        line
    }
}

/// `manifest`: what this binary carries, as JSON on stdout.
pub fn manifest(canvases: &[Compiled]) -> ExitCode {
    match serde_json::to_string(&Manifest::of(canvases)) {
        Ok(text) => {
            outln!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => super::run::fail(e.to_string()),
    }
}

/// `worker`: runs the server's turns until it closes stdin.
pub fn run(args: Args, canvases: &'static [Compiled], find: FindProgram) -> ExitCode {
    let script = match &args.llm_script {
        Some(path) => match super::llm_script::load(path) {
            Ok(script) => Some(script),
            Err(e) => return super::run::fail(e),
        },
        None => None,
    };
    let config = args.config.as_deref();
    let mut services = match crate::services::assemble_in(script, config, &args.data_dir) {
        Ok(services) => services,
        Err(e) => return super::run::fail(e.to_string()),
    };
    services.settings.step_limit = (args.max_steps > 0).then_some(args.max_steps);
    // A worker never runs a turn on the interpreter: the server would report it compiled.
    let programs = Programs::new(services, canvases, Some(find)).compiled_only();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            errln!("error: worker: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match runtime.block_on(turns::serve(programs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
