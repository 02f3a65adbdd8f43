//! Executing canvases: the scheduler (RAGFlow's `Canvas.run`), run state, components, and the
//! interpreter back-end.
//!
//! The scheduler is generic over a [`Program`]: the interpreter ([`interp::Interpreter`]) builds
//! one from the IR at run time; generated code supplies one per canvas. Both call the same
//! component implementations in [`components`].

pub mod binding;
pub mod components;
mod error;
pub mod events;
pub mod http;
mod identity;
pub mod interp;
pub mod jinja;
pub mod llm;
pub mod mcp;
pub mod persist;
pub mod random;
pub mod render;
pub mod scheduler;
pub mod sharing;
pub mod ssrf;
pub mod state;
pub mod val;

pub use crate::meta::{self, CanvasMeta, NodeMeta, Target};
pub use error::{RunError, CANCELED};
pub use events::{Envelope, EventSink};
pub use scheduler::{run, RunInput, RunOutcome};
pub use state::RunState;

use crate::frontend::ir::NodeId;
use crate::value::{Json, Map};
use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A canvas-specific program the scheduler drives: per node, the component to run.
///
/// Every method has RAGFlow's semantics for the node's component (see
/// [`components::Component`], which the interpreter and generated programs delegate to).
pub trait Program: Send + Sync + 'static {
    fn meta(&self) -> &Arc<CanvasMeta>;

    /// The component body (`_invoke`).
    fn body<'a>(
        &'a self,
        cx: &'a NodeCx<'a>,
    ) -> impl Future<Output = Result<(), RunError>> + Send + 'a;

    /// The body run at once under the caller's state lock, when it has nothing to wait for
    /// ([`components::Component::body_now`]); `None`: run [`Program::body`].
    fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>>;

    /// `thoughts()`, shown in `node_started`.
    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError>;

    /// The components the node's input elements reference (`_cpn_id`).
    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError>;

    /// `get_input()`: the keyword arguments the body receives, resolved when scheduled.
    fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError>;

    /// Which `get_input_values()` keys `node_finished` reports.
    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> events::InputKeys<'a>;

    /// `IterationItem.end()` / `LoopItem.end()`, evaluated after the item ran.
    fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError>;
}

/// Something to do with a program whose type only generated code names: a compiled crate
/// hands its program for a fingerprint to a visitor (the `run` command, a server, a test).
pub trait ProgramVisitor {
    type Output;
    fn visit<P: Program>(self, program: Arc<P>) -> Self::Output;
}

/// Cancellation of one run, checked where RAGFlow checks `is_canceled()`.
#[derive(Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_canceled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Process-wide settings read from the environment, as RAGFlow reads them.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `ENABLE_TIMEOUT_ASSERTION`: component timeouts are enforced only when set.
    pub enforce_timeouts: bool,
    /// `COMPONENT_EXEC_TIMEOUT`: overrides every per-class default.
    pub component_exec_timeout: Option<u64>,
    /// `ALLOW_ANY_HOST`: disables the SSRF guard's address check (local stubs in tests).
    pub allow_any_host: bool,
}

impl Settings {
    pub fn from_env() -> Self {
        let truthy =
            |v: &str| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on");
        Settings {
            enforce_timeouts: std::env::var("ENABLE_TIMEOUT_ASSERTION")
                .is_ok_and(|v| !v.is_empty()),
            component_exec_timeout: std::env::var("COMPONENT_EXEC_TIMEOUT")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
            allow_any_host: std::env::var("ALLOW_ANY_HOST").is_ok_and(|v| truthy(&v)),
        }
    }
}

/// Services components call: the model provider, HTTP, MCP servers, settings.
#[derive(Clone)]
pub struct Services {
    pub llm: Option<Arc<dyn llm::ChatProvider>>,
    pub http: reqwest::Client,
    /// The MCP servers Agents may name in `mcp`.
    pub mcp: Arc<mcp::Registry>,
    /// The run's `custom_header` (HTTP API): sent to MCP servers, never stored.
    pub custom_header: Arc<[(String, String)]>,
    pub settings: Settings,
}

/// One HTTP client per process (connection pools and TLS set-up are shared), built on first use.
static HTTP: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
    http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
});

impl Default for Services {
    fn default() -> Self {
        Services {
            llm: None,
            http: HTTP.clone(),
            mcp: Arc::default(),
            custom_header: Arc::new([]),
            settings: Settings::from_env(),
        }
    }
}

/// Python's process-wide `random` state: one per process in RAGFlow, so it carries across
/// turns even when a session is reloaded from its saved DSL.
pub type SharedRandom = Arc<Mutex<random::PyRandom>>;

/// Everything of a session that components may touch while it runs.
pub struct Shared {
    pub meta: Arc<CanvasMeta>,
    state: Mutex<RunState>,
    pub services: Services,
    pub cancel: CancelFlag,
    rng: SharedRandom,
}

impl Shared {
    pub fn new(
        meta: Arc<CanvasMeta>,
        state: RunState,
        services: Services,
        rng: SharedRandom,
    ) -> Self {
        Shared {
            meta,
            state: Mutex::new(state),
            services,
            cancel: CancelFlag::default(),
            rng,
        }
    }

    /// Lock the run state. Never hold the guard across an `.await`.
    pub fn state(&self) -> MutexGuard<'_, RunState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn random_below(&self, n: usize) -> usize {
        self.rng.lock().unwrap_or_else(|p| p.into_inner()).below(n)
    }

    pub fn is_canceled(&self) -> bool {
        self.cancel.is_canceled()
    }
}

/// The context of one node invocation.
pub struct NodeCx<'a> {
    pub node: NodeId,
    pub shared: &'a Arc<Shared>,
    /// `get_input()` results, or `{"inputs": …}` for Begin/UserFillUp. Borrowed (empty) for
    /// the scheduler's many short-lived contexts that pass no arguments, which then make no map.
    pub kwargs: Cow<'a, Map<String, Json>>,
}

/// The keyword arguments of a context that passes none.
static NO_KWARGS: std::sync::LazyLock<Map<String, Json>> = std::sync::LazyLock::new(Map::new);

impl<'a> NodeCx<'a> {
    pub fn new(node: NodeId, shared: &'a Arc<Shared>) -> Self {
        Self::with_kwargs(node, shared, Cow::Borrowed(&NO_KWARGS))
    }

    pub fn with_kwargs(
        node: NodeId,
        shared: &'a Arc<Shared>,
        kwargs: Cow<'a, Map<String, Json>>,
    ) -> Self {
        NodeCx {
            node,
            shared,
            kwargs,
        }
    }

    pub fn meta(&self) -> &NodeMeta {
        self.shared.meta.node(self.node)
    }

    pub fn state(&self) -> MutexGuard<'_, RunState> {
        self.shared.state()
    }

    /// `get_variable_value(exp)`.
    pub fn value(&self, exp: &str) -> Result<val::Val, RunError> {
        self.state().get_variable_value(&self.shared.meta, exp)
    }

    /// `get_variable_value(exp)` through the binding the program was built with, if any.
    pub fn read(&self, bound: Option<&binding::Bound>, exp: &str) -> Result<val::Val, RunError> {
        self.read_in(&self.state(), bound, exp)
    }

    /// [`NodeCx::read`] in a state the caller has locked.
    pub fn read_in(
        &self,
        s: &RunState,
        bound: Option<&binding::Bound>,
        exp: &str,
    ) -> Result<val::Val, RunError> {
        match bound {
            Some(b) => b.read(s),
            None => s.get_variable_value(&self.shared.meta, exp),
        }
    }

    pub fn set_output(&self, key: &str, value: impl Into<val::Val>) {
        self.state()
            .node_mut(self.node)
            .set_output(key, value.into());
    }

    pub fn output(&self, key: &str) -> val::Val {
        self.state().node(self.node).output(key)
    }

    pub fn set_input_value(&self, key: &str, value: Json) {
        self.state().node_mut(self.node).set_input_value(key, value);
    }

    /// [`NodeCx::set_input_value`] of a key the caller shares (a template's element names).
    pub fn set_input_value_shared(&self, key: &Arc<str>, value: Json) {
        self.state()
            .node_mut(self.node)
            .set_input_value_shared(key, value);
    }

    /// RAGFlow's `check_if_canceled`: sets `_ERROR` and says so.
    pub fn check_canceled(&self) -> bool {
        self.shared.is_canceled() && self.check_canceled_in(&mut self.state())
    }

    /// [`NodeCx::check_canceled`] in a state the caller has locked.
    pub fn check_canceled_in(&self, s: &mut RunState) -> bool {
        let canceled = self.shared.is_canceled();
        if canceled {
            s.node_mut(self.node)
                .set_output("_ERROR", Json::String(CANCELED.into()).into());
        }
        canceled
    }

    /// A parameter of this node.
    pub fn param(&self, key: &str) -> Option<&Json> {
        self.meta().params.get(key)
    }
}

/// Python's `time.perf_counter()`: seconds on a monotonic clock with an arbitrary origin. On
/// Unix it is the clock Python reads (`CLOCK_MONOTONIC`), read directly: the scheduler reads
/// it several times per component.
#[cfg(unix)]
pub fn perf_counter() -> f64 {
    let ts = clock(libc::CLOCK_MONOTONIC);
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Read a clock the platform always has (the callers name `CLOCK_MONOTONIC` and, on Linux,
/// `CLOCK_REALTIME_COARSE`).
#[cfg(unix)]
fn clock(id: libc::clockid_t) -> libc::timespec {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and `id` a clock the platform provides.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts
}

#[cfg(not(unix))]
pub fn perf_counter() -> f64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// `int(time.time())`: whole seconds since the Unix epoch. On Linux the coarse clock (the
/// last tick, a few milliseconds old) serves: only whole seconds are reported, and reading it
/// costs no clock-source access.
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)] // `time_t` is 32 bits wide on some targets
pub fn unix_seconds() -> i64 {
    clock(libc::CLOCK_REALTIME_COARSE).tv_sec as i64
}

/// `int(time.time())`: whole seconds since the Unix epoch.
#[cfg(not(target_os = "linux"))]
pub fn unix_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A canvas as a server keeps it between conversations: its program, its stored DSL, and the
/// state every new session starts from (`Canvas(dsl)`, then `reset()`), built once rather than
/// per session. The records' written keys are shared, so a session's copy costs little.
pub struct Published<P: Program> {
    program: Arc<P>,
    dsl: Arc<Map<String, Json>>,
    fresh: RunState,
    /// The DSL names its task id; otherwise each session gets its own.
    task_id_written: bool,
}

impl<P: Program> Published<P> {
    pub fn new(program: Arc<P>, dsl: impl Into<Arc<Map<String, Json>>>) -> Self {
        let dsl = dsl.into();
        let fresh = persist::fresh_state(program.meta(), &dsl);
        Published {
            task_id_written: persist::written_task_id(&dsl).is_some(),
            program,
            dsl,
            fresh,
        }
    }

    /// A new session: what `Session::new(program, dsl, services, rng, true)` makes.
    pub fn session(&self, services: Services, rng: SharedRandom) -> Session<P> {
        let mut state = self.fresh.clone();
        if !self.task_id_written {
            state.task_id = persist::new_task_id();
        }
        Session::with_state(
            Arc::clone(&self.program),
            Arc::clone(&self.dsl),
            state,
            services,
            rng,
        )
    }
}

/// One conversation with a canvas: the program, its live state, and the DSL it saves into.
pub struct Session<P: Program> {
    pub program: Arc<P>,
    pub shared: Arc<Shared>,
    /// The DSL the session started from (its top-level keys other than components are written
    /// back on save); shared, since every new session of a published canvas starts from the
    /// same one.
    dsl: Arc<Map<String, Json>>,
}

impl<P: Program> Session<P> {
    /// Start from a DSL. `fresh` applies RAGFlow's `Canvas.reset()` (a new session); otherwise
    /// the DSL is a saved session and continues where it stopped.
    pub fn new(
        program: Arc<P>,
        dsl: impl Into<Arc<Map<String, Json>>>,
        services: Services,
        rng: SharedRandom,
        fresh: bool,
    ) -> Self {
        let dsl = dsl.into();
        let state = if fresh {
            persist::fresh_state(program.meta(), &dsl)
        } else {
            persist::state_from_dsl(program.meta(), &dsl)
        };
        Self::with_state(program, dsl, state, services, rng)
    }

    fn with_state(
        program: Arc<P>,
        dsl: Arc<Map<String, Json>>,
        state: RunState,
        services: Services,
        rng: SharedRandom,
    ) -> Self {
        let meta = Arc::clone(program.meta());
        Session {
            shared: Arc::new(Shared::new(meta, state, services, rng)),
            program,
            dsl,
        }
    }

    /// Run one turn, sending events to `sink`.
    pub async fn run(&self, input: RunInput, sink: &mut dyn EventSink) -> RunOutcome {
        scheduler::run(self.program.as_ref(), &self.shared, input, sink).await
    }

    /// The session as RAGFlow persists it (`str(canvas)`).
    pub fn save(&self) -> Json {
        persist::state_to_dsl(&self.shared.meta, &self.shared.state(), &self.dsl)
    }

    pub fn cancel_flag(&self) -> CancelFlag {
        self.shared.cancel.clone()
    }
}

#[cfg(test)]
mod published_tests {
    use super::interp::Interpreter;
    use super::{random::PyRandom, Published, RunInput, Services, Session};
    use crate::frontend::analyze;
    use crate::value::Json;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    /// Written record keys, form fields, globals and a saved run's values: everything a new
    /// session inherits from its DSL.
    fn dsl(task_id: Option<&str>) -> Json {
        let mut d = json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {
                    "inputs": {"name": {"type": "line", "name": "Name", "optional": false, "value": "stale"}},
                    "outputs": {"name": {"type": "string", "value": "stale"}}}},
                    "downstream": ["Message:Say"], "upstream": []},
                "Message:Say": {"obj": {"component_name": "Message", "params": {
                    "content": ["hi {begin@name} {env.greeting}"],
                    "outputs": {"content": {"type": "string", "value": "old answer"}}}},
                    "downstream": [], "upstream": ["begin"]}
            },
            "history": [["user", "before"]], "path": ["begin", "Message:Say"], "retrieval": [],
            "globals": {"sys.query": "before", "sys.user_id": "", "sys.conversation_turns": 3,
                "sys.files": [], "sys.history": ["user: before"], "env.greeting": "stale"},
            "variables": {"greeting": {"name": "greeting", "type": "string", "value": "hello"}}
        });
        if let Some(id) = task_id {
            d["task_id"] = json!(id);
        }
        d
    }

    async fn turn<P: super::Program>(session: &Session<P>) -> (Json, Json) {
        let mut events: Vec<Json> = Vec::new();
        let input = RunInput {
            query: Some(json!("now")),
            inputs: Some(json!({"name": {"type": "line", "value": "Ada"}})),
            ..RunInput::default()
        };
        session.run(input, &mut events).await;
        let mut got = (Json::Array(events), session.save());
        blank_clock_readings(&mut got.0);
        blank_clock_readings(&mut got.1);
        got
    }

    /// Nulls every value that reads a clock or is random per run (`sys.history` quotes the
    /// last outputs, timings included).
    fn blank_clock_readings(v: &mut Json) {
        const KEYS: [&str; 7] = [
            "message_id",
            "created_at",
            "elapsed_time",
            "_created_time",
            "_elapsed_time",
            "sys.date",
            "sys.history",
        ];
        match v {
            Json::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if KEYS.contains(&k.as_str()) {
                        *x = Json::Null;
                    } else {
                        blank_clock_readings(x);
                    }
                }
            }
            Json::Array(items) => items.iter_mut().for_each(blank_clock_readings),
            _ => {}
        }
    }

    #[tokio::test]
    async fn a_published_session_is_a_fresh_session() {
        let text = dsl(Some("task-1")).to_string();
        let analysis = analyze(&text).expect("a canvas");
        let program = Arc::new(Interpreter::from_analysis(&analysis));
        let stored = analysis.document.dsl.clone();
        let rng = || Arc::new(Mutex::new(PyRandom::seeded(0)));
        let published = Published::new(Arc::clone(&program), stored.clone());
        let fresh = Session::new(program, stored, Services::default(), rng(), true);
        let copy = published.session(Services::default(), rng());
        let initial = copy.save();
        assert_eq!(initial, fresh.save());
        let (expected, saved) = turn(&fresh).await;
        assert!(saved["history"].as_array().is_some_and(|h| h.len() == 2));
        assert_eq!(turn(&copy).await, (expected, saved));
        // A later session starts over: the first one's run left the shared state untouched.
        assert_eq!(fresh_save(&published), initial);
    }

    fn fresh_save<P: super::Program>(p: &Published<P>) -> Json {
        p.session(
            Services::default(),
            Arc::new(Mutex::new(PyRandom::seeded(0))),
        )
        .save()
    }

    #[test]
    fn each_session_gets_its_own_task_id_unless_the_dsl_names_one() {
        let task = |d: Json| {
            let analysis = analyze(&d.to_string()).expect("a canvas");
            let program = Arc::new(Interpreter::from_analysis(&analysis));
            let p = Published::new(program, analysis.document.dsl.clone());
            (
                fresh_save(&p)["task_id"].clone(),
                fresh_save(&p)["task_id"].clone(),
            )
        };
        let (a, b) = task(dsl(None));
        assert!(a.as_str().is_some_and(|t| t.len() == 32), "{a}");
        assert_ne!(a, b);
        assert_eq!(
            task(dsl(Some("task-9"))),
            (json!("task-9"), json!("task-9"))
        );
    }
}
