//! `canvasc dataset add|list|rm`: the local knowledge base that Retrieval nodes and tools
//! search when no RAGFlow server is configured (`canvasc_host::datasets`). Datasets live under
//! `<data dir>/datasets`, the data directory `canvasc serve` uses.

use super::EXIT_USAGE;
use clap::{Args as ClapArgs, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// The data directory (datasets are kept in its `datasets` folder).
    #[arg(
        long,
        global = true,
        env = "CANVASC_DATA_DIR",
        default_value = "canvasc-data"
    )]
    data_dir: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Index text, Markdown, HTML and PDF files (files or folders) as dataset NAME; with an
    /// `[embedding]` endpoint configured, its chunks are embedded too.
    Add {
        name: String,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The configuration with the `[embedding]` endpoint; default `$CANVASC_CONFIG`, else
        /// `./canvasc.toml` when present, else the environment alone.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// List the datasets: id, name, documents, chunks, embedding model.
    List,
    /// Remove dataset NAME (or the dataset with that id).
    Rm { name: String },
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        Command::Add {
            name,
            paths,
            config,
        } => {
            let mut progress = |line: &str| errln!("{line}");
            match canvasc_host::datasets::add(
                &args.data_dir,
                config.as_deref(),
                &name,
                &paths,
                &mut progress,
            ) {
                Ok(d) => {
                    outln!(
                        "added dataset {} ({}): {} documents, {} chunks{}",
                        d.name,
                        d.id,
                        d.documents,
                        d.chunks,
                        if d.embd_id.is_empty() {
                            ", full-text only (no [embedding] configured)".to_string()
                        } else {
                            format!(", embedded with {}", d.embd_id)
                        }
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Command::List => match canvasc_host::datasets::list(&args.data_dir) {
            Ok(all) => {
                for d in all {
                    let model = if d.embd_id.is_empty() {
                        "-"
                    } else {
                        &d.embd_id
                    };
                    outln!(
                        "{}\t{}\t{} documents\t{} chunks\t{model}",
                        d.id,
                        d.name,
                        d.documents,
                        d.chunks
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Command::Rm { name } => match canvasc_host::datasets::remove(&args.data_dir, &name) {
            Ok(d) => {
                outln!("removed dataset {} ({})", d.name, d.id);
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
    }
}

fn fail(e: &str) -> ExitCode {
    errln!("error: dataset: {e}");
    ExitCode::from(EXIT_USAGE)
}
