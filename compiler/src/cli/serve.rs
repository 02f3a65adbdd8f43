//! `canvasc serve`: RAGFlow's agent HTTP API (work in progress: accounts, agents, versions,
//! sessions, uploads and run logs; running agents comes with the host layer).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use canvasc_server::ServeConfig;

use super::EXIT_USAGE;

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9380")]
    pub addr: SocketAddr,
    /// Where the SQLite database lives when `DATABASE_URL` names no PostgreSQL or MySQL server.
    #[arg(long, default_value = "canvasc-data")]
    pub data_dir: PathBuf,
}

pub fn run(args: Args) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            errln!("error: serve: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let config = ServeConfig::new(args.addr, args.data_dir);
    let served = runtime.block_on(canvasc_server::serve(config, |running| {
        outln!("canvasc serve: listening on http://{}", running.addr);
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
