//! `canvasc serve`: RAGFlow's agent HTTP API (`shared/spec/http-api.md`) over one storage
//! interface (SQLite by default, PostgreSQL or MySQL/MariaDB when `DATABASE_URL` names one).
//!
//! This crate owns the HTTP surface, authentication, tenancy, storage and the framing of runs.
//! Running canvases comes in through [`turn::TurnRunner`], which the host layer implements
//! (`canvasc_host::serve::Programs`).

mod api;
mod app;
mod auth;
mod background;
mod buildable;
mod builds;
mod byte_lru;
mod client_addr;
mod clock;
mod connections;
pub mod coord;
mod envelope;
mod health;
mod login_limit;
mod model_catalog;
mod password;
mod password_rsa;
mod quota;
mod registration;
mod request;
mod run;
mod shared;
mod sse;
mod starting_canvas;
pub mod store;
pub mod telemetry;
pub mod turn;
mod upload_sweep;
pub mod webhook;

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower::Layer;
use tower_http::normalize_path::NormalizePathLayer;

pub use crate::builds::{BuildOutcome, ProgramBuilder};
pub use crate::connections::ConnectionLimits;
use crate::login_limit::LoginLimiter;
pub use crate::login_limit::LoginLimits;
pub use crate::model_catalog::ConfiguredModel;
use crate::password::PasswordWork;
pub use crate::password::{PasswordLimits, MAX_PASSWORD_BYTES};
use crate::password_rsa::PasswordKey;
pub use crate::quota::{QuotaConfig, QuotaLimits};
pub use crate::registration::Registration;
use crate::shared::App;
pub use crate::store::{Store, StoreError};
pub use crate::turn::TurnRunner;

/// How a server starts.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub addr: SocketAddr,
    /// Where the default SQLite database lives (created when missing).
    pub data_dir: PathBuf,
    /// A `sqlite:`, `postgres:` or `mysql:` URL; `None` uses the SQLite file under `data_dir`.
    pub database_url: Option<String>,
    /// Larger request bodies are refused with an envelope.
    pub max_body_bytes: usize,
    /// The models the configuration serves, which `GET /api/v1/models` lists and
    /// `PATCH /models/default` chooses from (none: the host gave none, e.g. a scripted model).
    pub models: Vec<ConfiguredModel>,
    /// The configuration's `[llm] default`: the model of a run whose LLM names none and whose
    /// tenant set no default.
    pub default_model: Option<String>,
    /// An idle SSE stream gets a keep-alive comment this often.
    pub keep_alive: Duration,
    /// A directory of agent templates (`*.json`, RAGFlow's `agent/templates/` form) that
    /// `GET /agents/templates` lists; none: the list is empty.
    pub templates_dir: Option<PathBuf>,
    /// `REDIS_URL`: runs are coordinated through Redis (several replicas); `None` keeps
    /// leases, cancel flags and run records in this process (one replica).
    pub redis_url: Option<String>,
    /// `CANVASC_REDIS_PREFIX`: put before every Redis key and channel name (empty: RAGFlow's
    /// own names), for deployments or tests sharing one Redis.
    pub redis_prefix: String,
    /// `CANVASC_CORS_ORIGINS` (comma-separated, e.g. `https://agents.example.com`): the web
    /// origins a browser may call the API from; empty: same-origin only.
    pub cors_origins: Vec<String>,
    /// Who may create an account (`--registration`); the first account of a database may
    /// always, and becomes the administrator.
    pub registration: Registration,
    /// How long a login token works (`--token-ttl`); API keys live until revoked.
    pub token_ttl: Duration,
    /// The private key RAGFlow's web client's password form is decrypted with
    /// (`--rsa-private-key`); without one, passwords are taken as sent.
    pub rsa_private_key: Option<PathBuf>,
    /// Connection cap, header and idle timeouts, `TCP_NODELAY`.
    pub connections: ConnectionLimits,
    /// Failed-login backoff per account and per address.
    pub login_limits: LoginLimits,
    /// Argon2 work at once and waiting.
    pub password_limits: PasswordLimits,
    /// A header a reverse proxy sets to the client's address (`X-Real-IP`,
    /// `X-Forwarded-For`: its last address is used); `None`: the peer's address. Only set
    /// it behind a proxy that overwrites the header, or clients can pick their address.
    pub client_ip_header: Option<String>,
    /// Per-tenant quotas (`[quotas]` of `canvasc.toml`): concurrent runs, runs per minute,
    /// model tokens per day; none by default.
    pub quotas: QuotaConfig,
    /// An upload no run attached to a session is deleted after this (`--upload-ttl`);
    /// attached ones go with their session or agent.
    pub upload_ttl: Duration,
    /// On Ctrl-C or SIGTERM the server stops accepting connections and lets the streams in
    /// flight finish for at most this long (`--drain-secs`), then stops.
    pub drain: Duration,
    /// What compiles released versions (none: they all run on the interpreter), and how
    /// many builds this replica runs at once (`--build-jobs`).
    pub builds: BuildConfig,
    /// How long and how much of runs' event streams is kept for clients that reattach
    /// (`--stream-retention`).
    pub streams: coord::StreamLimits,
}

/// Publishing's builds, as a server is started with them.
#[derive(Clone, Default)]
pub struct BuildConfig {
    pub builder: Option<Arc<dyn ProgramBuilder>>,
    pub jobs: usize,
}

impl fmt::Debug for BuildConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildConfig")
            .field("builder", &self.builder.as_ref().map(|b| b.unavailable()))
            .field("jobs", &self.jobs)
            .finish()
    }
}

/// Uploads a run never used are kept a day unless configured otherwise.
pub const DEFAULT_UPLOAD_TTL: Duration = Duration::from_secs(24 * 3600);

/// Streams in flight get half a minute to finish when the server stops.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(30);

/// Login tokens work a week unless configured otherwise.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

impl ServeConfig {
    /// The embedded defaults, with `DATABASE_URL` from the environment when it is set.
    pub fn new(addr: SocketAddr, data_dir: PathBuf) -> ServeConfig {
        ServeConfig {
            addr,
            data_dir,
            database_url: std::env::var("DATABASE_URL")
                .ok()
                .filter(|u| !u.trim().is_empty()),
            max_body_bytes: 16 * 1024 * 1024,
            models: Vec::new(),
            default_model: None,
            keep_alive: Duration::from_secs(15),
            templates_dir: None,
            redis_url: std::env::var("REDIS_URL")
                .ok()
                .filter(|u| !u.trim().is_empty()),
            redis_prefix: std::env::var("CANVASC_REDIS_PREFIX").unwrap_or_default(),
            cors_origins: std::env::var("CANVASC_CORS_ORIGINS")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .map(String::from)
                .collect(),
            registration: Registration::Closed,
            token_ttl: DEFAULT_TOKEN_TTL,
            rsa_private_key: None,
            connections: ConnectionLimits::default(),
            login_limits: LoginLimits::default(),
            password_limits: PasswordLimits::default(),
            client_ip_header: None,
            quotas: QuotaConfig::default(),
            upload_ttl: DEFAULT_UPLOAD_TTL,
            builds: BuildConfig::default(),
            drain: DEFAULT_DRAIN,
            streams: coord::StreamLimits::default(),
        }
    }
}

/// Why a server did not start or stopped.
#[derive(Debug)]
pub enum ServeError {
    DataDir(PathBuf, std::io::Error),
    Templates(String),
    Cors(String),
    RsaKey(String),
    Store(StoreError),
    Coord(coord::CoordError),
    Bind(SocketAddr, std::io::Error),
    Serve(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::DataDir(dir, e) => {
                write!(
                    f,
                    "serve: cannot create the data directory {}: {e}",
                    dir.display()
                )
            }
            ServeError::Templates(e) => write!(f, "serve: {e}"),
            ServeError::Cors(origin) => write!(
                f,
                "serve: CANVASC_CORS_ORIGINS: `{origin}` is not an origin (scheme://host[:port], no path)"
            ),
            ServeError::RsaKey(e) => write!(f, "serve: {e}"),
            ServeError::Store(e) => write!(f, "serve: {e}"),
            ServeError::Coord(e) => write!(f, "serve: REDIS_URL: {e}"),
            ServeError::Bind(addr, e) => write!(f, "serve: cannot listen on {addr}: {e}"),
            ServeError::Serve(e) => write!(f, "serve: {e}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// A server accepting connections.
pub struct Running {
    /// Where it listens (the real port when the configured one was 0).
    pub addr: SocketAddr,
    pub store: Store,
    /// `in-process` or `redis`.
    pub coordination: &'static str,
    /// The run coordinator: leases, cancels, run records (what an operator or a test reads
    /// a run's status from).
    pub coord: coord::Coordinator,
    task: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Serves until Ctrl-C or a fatal I/O error.
    pub async fn wait(self) -> Result<(), ServeError> {
        match self.task.await {
            Ok(result) => result.map_err(ServeError::Serve),
            Err(join) => Err(ServeError::Serve(std::io::Error::other(join))),
        }
    }
}

/// Opens the storage (applying migrations), binds the address and starts serving; `runner`
/// runs the agents' turns.
pub async fn start(
    config: ServeConfig,
    runner: Arc<dyn TurnRunner>,
) -> Result<Running, ServeError> {
    let url = match &config.database_url {
        Some(url) => url.clone(),
        None => {
            std::fs::create_dir_all(&config.data_dir)
                .map_err(|e| ServeError::DataDir(config.data_dir.clone(), e))?;
            Store::sqlite_url(&config.data_dir)
        }
    };
    let templates = match &config.templates_dir {
        Some(dir) => {
            api::editor::load_templates(dir, clock::now_ms()).map_err(ServeError::Templates)?
        }
        None => Vec::new(),
    };
    let cors_origins = config
        .cors_origins
        .iter()
        .map(|o| cors_origin(o).ok_or_else(|| ServeError::Cors(o.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    let password_key = match &config.rsa_private_key {
        Some(path) => Some(PasswordKey::from_pem_file(path).map_err(ServeError::RsaKey)?),
        None => None,
    };
    let store = Store::open(&url).await.map_err(ServeError::Store)?;
    let coord = match &config.redis_url {
        Some(url) => coord::Coordinator::redis(url, &config.redis_prefix, config.streams)
            .await
            .map_err(ServeError::Coord)?,
        None => coord::Coordinator::in_process(store.clone(), config.streams),
    };
    // Leases and cancels in this process's memory cover this process only.
    let sole = match &config.redis_url {
        Some(_) => None,
        None => Some(store.claim_sole(&url).await.map_err(ServeError::Store)?),
    };
    if sole.is_some() {
        let interrupted = run::resume::recover_interrupted(&store, &coord)
            .await
            .map_err(|e| ServeError::Store(StoreError::recovery(e.message())))?;
        if interrupted > 0 {
            eprintln!(
                "canvasc serve: {interrupted} run(s) of the previous process were interrupted; their sessions record it and go on"
            );
        }
    }
    let coordination = coord.backend_name();
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|e| ServeError::Bind(config.addr, e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServeError::Bind(config.addr, e))?;
    let running_coord = coord.clone();
    let app = Arc::new(App {
        store: store.clone(),
        max_body_bytes: config.max_body_bytes,
        cors_origins,
        models: config.models,
        default_model: config.default_model,
        templates,
        runner,
        keep_alive: config.keep_alive,
        coord,
        metrics: Arc::default(),
        registration: config.registration,
        token_ttl: config.token_ttl,
        passwords: PasswordWork::new(config.password_limits, password_key),
        login_limiter: LoginLimiter::new(config.login_limits),
        client_ip_header: config.client_ip_header,
        quotas: quota::Quotas::new(config.quotas),
        starting_canvases: Default::default(),
        builds: config.builds.builder.clone().map(builds::Builds::new),
        draining: Arc::default(),
    });
    let builder_loop = app
        .builds
        .as_ref()
        .and_then(|b| b.spawn_loop(store.clone(), Arc::clone(&app.metrics), config.builds.jobs));
    // The trailing slash goes before routing (`/agents/` is `/agents`), so this wraps the router.
    let (draining, drain) = (Arc::clone(&app.draining), config.drain);
    let service = NormalizePathLayer::trim_trailing_slash().layer(app::router(app));
    let limits = config.connections;
    let sweep = tokio::spawn(upload_sweep::sweep(store.clone(), config.upload_ttl));
    let task = tokio::spawn(async move {
        // The database stays claimed until the server stops, and its uploads swept.
        let _sole = sole;
        let _sweep = AbortOnDrop(sweep);
        let _builds = builder_loop.map(AbortOnDrop);
        let stop = async move {
            stop_signal().await;
            draining.store(true, std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "canvasc serve: stopping: no new connections; streams in flight get up to {} s",
                drain.as_secs()
            );
        };
        connections::serve(listener, service, limits, stop, drain).await
    });
    Ok(Running {
        addr,
        store,
        coordination,
        coord: running_coord,
        task,
    })
}

/// Ctrl-C, or SIGTERM (what an orchestrator sends for a rolling deploy). Without a signal
/// handler the server runs until the process ends.
async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// Stops a background task when the server's task ends.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An origin as browsers send it: `scheme://host[:port]`, nothing after.
fn cors_origin(text: &str) -> Option<axum::http::HeaderValue> {
    let (scheme, rest) = text.split_once("://")?;
    let well_formed = matches!(scheme, "http" | "https")
        && !rest.is_empty()
        && !rest.contains(['/', '?', '#', ' ']);
    well_formed
        .then(|| axum::http::HeaderValue::from_str(text).ok())
        .flatten()
}

/// Starts a server and serves until Ctrl-C; `on_ready` is told where it listens.
pub async fn serve(
    config: ServeConfig,
    runner: Arc<dyn TurnRunner>,
    on_ready: impl FnOnce(&Running),
) -> Result<(), ServeError> {
    let running = start(config, runner).await?;
    on_ready(&running);
    running.wait().await
}
