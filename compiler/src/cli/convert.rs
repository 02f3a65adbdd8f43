//! `canvasc convert FILE --to v1|v2` and `canvasc reset FILE`.

use canvasc_runtime::frontend::convert::{to_pretty, to_v1, to_v2};
use canvasc_runtime::frontend::{load_str, reset::reset};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Version {
    V1,
    V2,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// Canvas file in any form.
    file: PathBuf,
    /// Target form.
    #[arg(long)]
    to: Version,
}

#[derive(Args)]
pub struct ResetArgs {
    /// Stored canvas DSL.
    file: PathBuf,
}

fn fail(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}

pub fn run_convert(args: ConvertArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let loaded = match load_str(&text) {
        Ok(l) => l,
        Err(e) => return fail(format!("{name}: {e}")),
    };
    let converted = match args.to {
        Version::V1 => to_v1(&loaded.document),
        Version::V2 => to_v2(&loaded.document),
    };
    match converted {
        Ok(v) => {
            out!("{}", to_pretty(&v));
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("{name}: cannot convert: {e}")),
    }
}

pub fn run_reset(args: ResetArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    // Validate it is a canvas first, so a random JSON file is refused with a clear message.
    if let Err(e) = load_str(&text) {
        return fail(format!("{name}: {e}"));
    }
    let mut value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return fail(format!("{name}: not JSON: {e}")),
    };
    reset(&mut value);
    out!("{}", to_pretty(&value));
    ExitCode::SUCCESS
}
