//! `serve`: RAGFlow's agent HTTP API (`canvasc-server`) with this process's engine, for
//! `canvasc serve` (no compiled programs: everything runs on the interpreter) and every binary
//! `canvasc build` produces (released versions whose fingerprint it carries run compiled).

use super::EXIT_USAGE;
use crate::builds::{BuildSettings, BuildTool, CargoBuilder};
use crate::program_choice::Compiled;
use crate::serve::{FindProgram, Programs};
use crate::services;
use crate::worker::bundles::Bundles;
use canvasc_server::{BuildConfig, Registration, ServeConfig};
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
    #[arg(long, env = "CANVASC_DATA_DIR", default_value = DATA_DIR)]
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
    /// Who may create an account: `closed` (only the first account, which becomes the
    /// administrator, and accounts an administrator creates), `invite` (also holders of an
    /// invitation code) or `open` (anyone who can reach the server).
    #[arg(long, env = "CANVASC_REGISTRATION", default_value = "closed")]
    pub registration: Registration,
    /// How long a login token works: seconds, or a number with `s`, `m`, `h` or `d`.
    #[arg(long, env = "CANVASC_TOKEN_TTL", default_value = "7d", value_parser = parse_ttl)]
    pub token_ttl: Duration,
    /// How long an upload no run used is kept (seconds, or with `s`, `m`, `h` or `d`);
    /// uploads a run used go with their session or agent.
    #[arg(long, env = "CANVASC_UPLOAD_TTL", default_value = "1d", value_parser = parse_ttl)]
    pub upload_ttl: Duration,
    /// How long a run's events are kept after it ended, for clients that reattach to its
    /// stream (`GET /agents/{id}/runs/{message_id}/stream`); same units as `--upload-ttl`.
    #[arg(long, env = "CANVASC_STREAM_RETENTION", default_value = "10m", value_parser = parse_ttl)]
    pub stream_retention: Duration,
    /// Without Redis: the memory (MiB) all runs' kept events may take together; finished
    /// runs' streams are dropped first, oldest first.
    #[arg(long, default_value_t = 256)]
    pub stream_memory_mib: usize,
    /// The RSA private key (PEM, unencrypted) that RAGFlow's web client's encrypted
    /// passwords are decrypted with; without it passwords are taken as sent.
    #[arg(long, env = "CANVASC_RSA_PRIVATE_KEY")]
    pub rsa_private_key: Option<PathBuf>,
    /// Connections served at once; more clients wait until one ends.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Seconds a client has to send a request's head (and a kept-alive connection to start
    /// its next request).
    #[arg(long, default_value_t = 20)]
    pub header_read_timeout_secs: u64,
    /// Seconds after which a connection on which nothing moves is closed, when it has no
    /// request running or its client stopped reading the answer.
    #[arg(long, default_value_t = 120)]
    pub idle_timeout_secs: u64,
    /// Behind a reverse proxy: the header it puts the client's address in (`X-Real-IP`,
    /// `X-Forwarded-For`), for the per-address login limit. The proxy must overwrite it.
    #[arg(long, env = "CANVASC_CLIENT_IP_HEADER")]
    pub client_ip_header: Option<String>,
    /// Program builds of released versions this server runs at once (at a lower CPU
    /// priority); 0 builds none here (another replica may).
    #[arg(long, env = "CANVASC_BUILD_JOBS", default_value_t = 1)]
    pub build_jobs: usize,
    /// Cargo profile of program builds: `release` (optimised) or `dev` (builds faster).
    #[arg(long, env = "CANVASC_BUILD_PROFILE", default_value = "release", value_parser = ["release", "dev"])]
    pub build_profile: String,
    /// The cargo target directory program builds share (default `<data dir>/builds/target`);
    /// where it persists, a new version compiles in seconds.
    #[arg(long, env = "CANVASC_BUILD_TARGET_DIR")]
    pub build_target_dir: Option<PathBuf>,
    /// Run only the programs compiled into this binary: drafts, and released versions it does
    /// not carry, are refused (no interpreter, no program bundles, no builds). The production
    /// lock-down of a binary `canvasc build --published` made: nothing unreviewed runs.
    #[arg(long)]
    pub compiled_only: bool,
    /// On SIGTERM or Ctrl-C: stop accepting, let streams in flight finish for at most this
    /// many seconds, then exit (a rolling deploy drops nothing).
    #[arg(long, env = "CANVASC_DRAIN_SECS", default_value_t = 30)]
    pub drain_secs: u64,
    /// Try it in 30 seconds: a scripted model (unless `--llm-script` names another), data in
    /// ./canvasc-demo-data (unless `--data-dir` names another), and a demo account, API key and
    /// two demo agents (one released) made at start and printed with lines to call them.
    #[arg(long)]
    pub demo: bool,
}

/// `--data-dir`'s default.
const DATA_DIR: &str = "canvasc-data";

/// `--demo`'s data dir and scripted model, where the flags name none. The script is written
/// into the data dir, so the workers that run compiled versions read it as the server does.
fn demo_defaults(args: &mut Args) -> Result<(), String> {
    if args.data_dir == std::path::Path::new(DATA_DIR) {
        args.data_dir = PathBuf::from(super::demo::DATA_DIR);
    }
    if args.llm_script.is_none() {
        let path = args.data_dir.join(super::demo::SCRIPT_FILE);
        std::fs::create_dir_all(&args.data_dir)
            .and_then(|()| std::fs::write(&path, super::demo::SCRIPT))
            .map_err(|e| format!("--demo: cannot write {}: {e}", path.display()))?;
        args.llm_script = Some(path);
    }
    Ok(())
}

/// `--token-ttl`, `--upload-ttl`, `--stream-retention`: `3600`, `90s`, `30m`, `12h`, `7d`.
fn parse_ttl(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c),
        _ => (text, 's'),
    };
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        other => return Err(format!("unknown unit `{other}` (s, m, h or d)")),
    };
    let n: u64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 3600, 30m, 12h, 7d)"))?;
    match n.checked_mul(scale) {
        Some(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
        Some(_) => Err("a lifetime must be above zero".into()),
        None => Err(format!("`{text}` is too long")),
    }
}

/// Where in the data dir the program bundles are (`crate::worker`).
pub const BUNDLES_DIR: &str = "programs";

/// Serves until Ctrl-C; prints where it listens and which compiled programs it carries.
/// With `build`, released versions are compiled into program bundles while it serves.
pub fn run(
    mut args: Args,
    compiled: &'static [Compiled],
    find: Option<FindProgram>,
    build: Option<BuildTool>,
) -> ExitCode {
    if args.demo {
        if let Err(e) = demo_defaults(&mut args) {
            return super::run::fail(e);
        }
    }
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
    // The models `GET /api/v1/models` lists: the configuration's (none for a script, which
    // answers every llm_id).
    let models = match &args.llm_script {
        Some(_) => None,
        None => match crate::config::llm_config(args.config.as_deref()) {
            Ok(config) => Some(config),
            Err(e) => return super::run::fail(e.to_string()),
        },
    };
    let quotas =
        match crate::config::external_config(args.config.as_deref(), crate::quota_config::quotas) {
            Ok(quotas) => quotas,
            Err(e) => return super::run::fail(e.to_string()),
        };
    let worker = super::worker::Args {
        data_dir: args.data_dir.clone(),
        config: args.config.clone(),
        llm_script: args.llm_script.clone(),
        max_steps: args.max_steps,
    };
    let bundles_dir = args.data_dir.join(BUNDLES_DIR);
    let bundles = Bundles::new(bundles_dir.clone(), worker.command_line());
    let builder = match (build, args.build_jobs) {
        (Some(tool), jobs) if jobs > 0 && !args.compiled_only => Some(CargoBuilder::new(
            tool,
            BuildSettings {
                release: args.build_profile == "release",
                target_dir: args.build_target_dir.clone(),
            },
            &args.data_dir,
            bundles_dir.clone(),
            Arc::clone(&bundles),
        )),
        _ => None,
    };
    let engine = Programs::new(services, compiled, find).with_db_allowed_hosts(db_hosts);
    let engine = match args.compiled_only {
        true => engine.compiled_only(),
        false => engine.with_bundles(bundles),
    };
    let engine = Arc::new(engine);
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
    config.registration = args.registration;
    config.token_ttl = args.token_ttl;
    config.upload_ttl = args.upload_ttl;
    config.streams.retention = args.stream_retention;
    config.streams.memory_budget = args.stream_memory_mib.saturating_mul(1 << 20);
    config.rsa_private_key = args.rsa_private_key.clone();
    config.connections.max_connections = args.max_connections.max(1);
    config.connections.header_read_timeout =
        Duration::from_secs(args.header_read_timeout_secs.max(1));
    config.connections.idle_timeout = Duration::from_secs(args.idle_timeout_secs.max(1));
    config.quotas = quotas;
    config.drain = Duration::from_secs(args.drain_secs);
    config.builds = BuildConfig {
        builder: builder.map(|b| Arc::new(b) as Arc<dyn canvasc_server::ProgramBuilder>),
        jobs: args.build_jobs,
    };
    if let Some(models) = &models {
        config.models = crate::tenant_model::configured_models(models);
        config.default_model = models.default_model.clone();
    }
    config.client_ip_header = args
        .client_ip_header
        .clone()
        .filter(|h| !h.trim().is_empty());
    if args.demo && !args.addr.ip().is_loopback() {
        errln!(
            "warning: canvasc serve --demo on {}: the demo account's password is printed and \
             known; anyone who can reach this address can use it and this server's model",
            args.addr
        );
    }
    if args.registration == Registration::Open {
        errln!(
            "warning: canvasc serve: --registration open: anyone who can reach {} can create an \
             account and run agents with this server's model keys",
            args.addr
        );
    }
    let served = runtime.block_on(canvasc_server::serve(config, engine, |running| {
        outln!("canvasc serve: listening on http://{}", running.addr);
        outln!("canvasc serve: registration {}", args.registration);
        outln!(
            "canvasc serve: runs coordinated {}",
            match running.coordination {
                "redis" => "through Redis (REDIS_URL): several replicas may serve",
                _ => "in this process (no REDIS_URL): one replica",
            }
        );
        match args.compiled_only {
            true => outln!(
                "canvasc serve: --compiled-only: only the programs compiled into this binary run; drafts and other versions are refused"
            ),
            false => outln!(
                "canvasc serve: program bundles in {} run released versions compiled",
                bundles_dir.display()
            ),
        }
        if compiled.is_empty() {
            outln!("canvasc serve: no compiled programs carried; released versions no bundle carries run on the interpreter");
        } else {
            outln!(
                "canvasc serve: {} compiled program(s), run for released versions with these fingerprints:",
                compiled.len()
            );
            for (source, fp, _) in compiled {
                outln!("  {fp}  {source}");
            }
        }
        if args.demo {
            let addr = running.addr;
            tokio::spawn(async move {
                match super::demo::seed(addr).await {
                    Ok(demo) => outln!("{}", demo.instructions()),
                    Err(e) => errln!("error: canvasc serve --demo: {e}"),
                }
            });
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
