//! `serve`: RAGFlow's agent HTTP API (`canvasc-server`) with this process's engine, for
//! `canvasc serve` (no compiled programs: everything runs on the interpreter) and every binary
//! `canvasc build` produces (released versions whose fingerprint it carries run compiled).

use super::EXIT_USAGE;
use crate::program_choice::Compiled;
use crate::serve::{Engine, FindProgram};
use crate::services;
use canvasc_server::ServeConfig;
use clap::Args as ClapArgs;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(ClapArgs, Clone)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9380")]
    pub addr: SocketAddr,
    /// Where the SQLite database lives when `DATABASE_URL` names no PostgreSQL or MySQL server,
    /// and the local knowledge base's datasets (`<data dir>/datasets`, `canvasc dataset`).
    #[arg(long, env = "CANVASC_DATA_DIR", default_value = "canvasc-data")]
    pub data_dir: PathBuf,
    /// The host configuration (`llm_id` → endpoint, MCP servers); default `$CANVASC_CONFIG`,
    /// else `./canvasc.toml` when present, else the environment alone.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Answer every LLM call from this script (scripted-llm.md) instead of the configured models.
    #[arg(long)]
    pub llm_script: Option<PathBuf>,
    /// Seconds between keep-alive comments on an idle event stream.
    #[arg(long, default_value_t = 15)]
    pub keep_alive_secs: u64,
    /// Request bodies over this many bytes are refused with an error envelope.
    #[arg(long, default_value_t = 16 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// A directory of agent templates (`*.json`, as RAGFlow's `agent/templates/`) that
    /// `GET /api/v1/agents/templates` lists.
    #[arg(long, env = "CANVASC_AGENT_TEMPLATES")]
    pub templates_dir: Option<PathBuf>,
    /// End a turn with an error after this many component invocations (0: no limit).
    #[arg(long, env = "CANVASC_MAX_STEPS", default_value_t = super::run::DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
}

/// Serves until Ctrl-C; prints where it listens and which compiled programs it carries.
pub fn run(args: Args, compiled: &'static [Compiled], find: Option<FindProgram>) -> ExitCode {
    // Flushed when the server stops (Ctrl-C ends it gracefully, then this function returns).
    let _telemetry = crate::telemetry::init_from(args.config.as_deref());
    let script = match &args.llm_script {
        Some(path) => match super::llm_script::load(path) {
            Ok(script) => Some(script),
            Err(e) => return super::run::fail(e),
        },
        None => None,
    };
    let mut services = match services::assemble_in(script, args.config.as_deref(), &args.data_dir) {
        Ok(services) => services,
        Err(e) => return super::run::fail(e.to_string()),
    };
    services.settings.step_limit = (args.max_steps > 0).then_some(args.max_steps);
    let db_hosts = match db_allowed_hosts(args.config.as_deref()) {
        Ok(hosts) => hosts,
        Err(e) => return super::run::fail(e.to_string()),
    };
    let engine = Arc::new(Engine::new(services, compiled, find).with_db_allowed_hosts(db_hosts));
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
    let mut config = ServeConfig::new(args.addr, args.data_dir);
    config.keep_alive = Duration::from_secs(args.keep_alive_secs.max(1));
    config.max_body_bytes = args.max_body_bytes;
    config.templates_dir = args.templates_dir.clone();
    let served = runtime.block_on(canvasc_server::serve(config, engine, |running| {
        outln!("canvasc serve: listening on http://{}", running.addr);
        outln!(
            "canvasc serve: runs coordinated {}",
            match running.coordination {
                "redis" => "through Redis (REDIS_URL): several replicas may serve",
                _ => "in this process (no REDIS_URL): one replica",
            }
        );
        if compiled.is_empty() {
            outln!("canvasc serve: no compiled programs; every agent runs on the interpreter");
        } else {
            outln!(
                "canvasc serve: {} compiled program(s), run for released versions with these fingerprints:",
                compiled.len()
            );
            for (source, fp, _) in compiled {
                outln!("  {fp}  {source}");
            }
        }
    }));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// ExeSQL's allowed private hosts (`[tools.exesql] allowed_hosts` and its environment
/// override), which the editor's database test honours too.
#[cfg(feature = "tools")]
fn db_allowed_hosts(
    config: Option<&std::path::Path>,
) -> Result<Vec<String>, canvasc_engine::config::ConfigError> {
    crate::config::external_config(config, |text| {
        let tools =
            canvasc_tools::config::ToolsConfig::from_toml_str(text, &crate::config::process_env)?;
        Ok(tools.allowed_hosts(canvasc_tools::exesql::SERVICE).to_vec())
    })
}

#[cfg(not(feature = "tools"))]
fn db_allowed_hosts(
    _config: Option<&std::path::Path>,
) -> Result<Vec<String>, canvasc_engine::config::ConfigError> {
    Ok(Vec::new())
}
