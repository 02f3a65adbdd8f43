//! The seam through which the chat-completions endpoint runs a turn. The server owns
//! requests, sessions and storage; the host layer owns programs, models and services, and runs
//! a turn behind this trait (`canvasc_host::serve`). The server frames the events (SSE, JSON,
//! OpenAI), saves the returned state with the transcript and the run log in one transaction.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde_json::{Map, Value};

/// One turn of one session, as the server hands it over.
#[derive(Clone, Debug)]
pub struct TurnRequest {
    /// The agent's owner: files the run stores go under this tenant.
    pub tenant_id: String,
    pub agent_id: String,
    pub session_id: String,
    /// The canvas the session runs (its DSL reset as RAGFlow resets a new session's).
    pub canvas: TurnCanvas,
    /// The session's run state as its previous turns left it.
    pub state: SessionState,
    /// Whether the canvas is a released version's (a compiled program may run it).
    pub released: bool,
    /// Whether the session is new (RAGFlow's `Canvas.reset()` applies) rather than one that
    /// continues.
    pub fresh: bool,
    pub query: String,
    /// Begin (or paused UserFillUp) form values: `{"name": {"value": …}}`.
    pub inputs: Option<Value>,
    /// File contents as the run reads them (`sys.files`): text, or data URLs for images.
    pub files: Vec<Value>,
    /// `sys.user_id` of the run.
    pub user_id: String,
    /// Per-run HTTP headers for tools and MCP servers; never stored.
    pub custom_header: Map<String, Value>,
    pub chat_template_kwargs: Option<Value>,
    /// Where the run's checkpoints go (one at every batch boundary); `None`: none are taken.
    pub checkpoints: Option<CheckpointWriter>,
    /// A checkpoint the turn goes on from instead of starting (`resume_from`, or a run whose
    /// replica died): the run goes on with the canvas and state the checkpoint holds (`dsl`
    /// is then unused), compiled when the program that wrote it is carried; the runner
    /// refuses one another engine version wrote.
    pub resume: Option<Value>,
    /// The tenant's default chat model (`PATCH /models/default`): what an LLM that names no
    /// model (an empty `llm_id`) runs with; `None`: the configuration's `[llm] default`.
    pub default_llm: Option<String>,
    /// A webhook's request as Begin receives it in `Webhook` mode (`{"query", "headers",
    /// "body"}` validated by the webhook's schema, and the raw request under `input`); the run
    /// then has no `inputs` (RAGFlow's `canvas.run(query="", webhook_payload=…)`).
    pub webhook_payload: Option<Map<String, Value>>,
}

/// A session's canvas as a turn gets it: shared, and named by its content, so that a runner
/// builds what it needs of a canvas (its program, its fingerprint) once per id and not once
/// per turn.
#[derive(Clone, Debug)]
pub struct TurnCanvas {
    /// Names the DSL's content: one id, one DSL. Empty: a canvas nobody keeps (built per turn).
    pub id: String,
    pub dsl: Arc<Value>,
}

/// Where a session's run state comes from.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum SessionState {
    /// The canvas's own (a new session, or one whose turns left no state yet).
    Canvas,
    /// What the previous turn left ([`TurnEvent::Ended`]'s `state`), on the session's canvas.
    Document(Value),
    /// A whole session DSL holding its state (sessions stored before states were stored apart
    /// from their canvas).
    Dsl(Value),
}

/// Receives a run's checkpoints, on the run's task: it must not block (the server queues the
/// write to the coordinator). Each is handed over unwritten ([`PendingJson`]).
#[derive(Clone)]
pub struct CheckpointWriter(pub Arc<dyn Fn(PendingJson) + Send + Sync>);

/// The shortest time between two stored checkpoints of one run. A runner that builds them
/// elsewhere (a worker process) builds no more than that either.
pub const CHECKPOINT_GAP: std::time::Duration = std::time::Duration::from_millis(100);

/// Hands `each` the newest checkpoint `rx` received, at most once per [`CHECKPOINT_GAP`] (the
/// first one too: a run that ends sooner hands over none), until `rx` closes; returns the one
/// still waiting then. A fast run passes many batch boundaries in one gap, and only the newest
/// is built. The server's writer and a worker's (which sends them to the server) both pace so.
pub async fn newest_per_gap<F, Fut>(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<PendingJson>,
    mut each: F,
) -> Option<PendingJson>
where
    F: FnMut(PendingJson) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut last = tokio::time::Instant::now();
    let mut pending: Option<PendingJson> = None;
    loop {
        tokio::select! {
            newer = rx.recv() => match newer {
                Some(newer) => {
                    pending = Some(newer);
                    continue;
                }
                None => return pending,
            },
            () = tokio::time::sleep_until(last + CHECKPOINT_GAP), if pending.is_some() => {}
        }
        if let Some(due) = pending.take() {
            each(due).await;
            last = tokio::time::Instant::now();
        }
    }
}

/// A checkpoint as JSON (`{"dsl", "resume", "batch", "fingerprint", "engine_version",
/// "mode"}`), written when called. A run hands one over at every batch boundary and the server
/// stores a few a second (the newest wins), so only those it stores are ever written.
pub type PendingJson = Box<dyn FnOnce() -> Value + Send>;

impl std::fmt::Debug for CheckpointWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CheckpointWriter")
    }
}

/// Which program ran a turn; recorded in the run log and sent as a response header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramKind {
    Compiled,
    Interpreted,
}

impl ProgramKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProgramKind::Compiled => "compiled",
            ProgramKind::Interpreted => "interpreted",
        }
    }
}

/// How a turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum TurnEnd {
    /// `workflow_finished` was emitted.
    Finished,
    /// `user_inputs` was emitted; the next turn resumes.
    Paused,
    /// Canceled (`workflow_finished` with `Task has been canceled`).
    Canceled,
    /// A component failed with no exception route: RAGFlow's `canvas.error`, saved with the
    /// session; the stream carries no error frame.
    Failed(String),
    /// An error escaped the run: RAGFlow's host sends `{"code":500,…}` and keeps no state.
    Aborted(String),
}

/// What a running turn reports.
#[derive(Clone, Debug)]
pub enum TurnEvent {
    /// One RAGFlow event (`workflow_started`, `message`, …) without the envelope keys the
    /// server adds (`message_id`, `session_id`, `task_id`, `created_at`).
    Event { event: String, data: Value },
    /// The last item: how the turn ended and the session's run state to save, apart from
    /// its canvas (`null` when the run left none: an aborted run keeps the one it started
    /// from).
    Ended { end: TurnEnd, state: Value },
}

/// Stops a running turn at its next scheduling point; the turn then ends with RAGFlow's
/// cancel events and its state, as any other turn does.
pub type CancelHandle = Arc<dyn Fn() + Send + Sync>;

/// A started turn.
pub struct RunningTurn {
    /// The program chosen for this turn, before its first event.
    pub program: ProgramKind,
    pub events: BoxStream<'static, TurnEvent>,
    pub cancel: CancelHandle,
}

/// A database the agent editor asks to test (`POST /agents/test_db_connection`).
#[derive(Clone, Debug)]
pub struct DbConnection {
    pub db_type: String,
    pub host: String,
    pub port: u16,
    pub database: String,
    pub username: String,
    pub password: String,
}

/// Why a webhook delivery got no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Retrying cannot help: the guard refused the URL, or the receiver answered with a
    /// redirect or a body too large to read.
    Refused(String),
    /// Connecting, sending or waiting failed: a later try may succeed.
    Failed(String),
}

/// Why a database test failed, in RAGFlow's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbTestFailure {
    /// The host check refused the host (RAGFlow answers code 102 with the reason).
    Host(String),
    /// Any other failure, RAGFlow's exception text (code 100).
    Failed(String),
}

/// Runs turns, and answers what else of the host the API needs (the editor's prompts and
/// database test).
pub trait TurnRunner: Send + Sync + 'static {
    /// Starts a turn; an error is a DSL that cannot run at all (RAGFlow's error text).
    fn start(&self, turn: TurnRequest) -> Result<RunningTurn, String>;

    /// The session's DSL as RAGFlow stores it (`str(canvas)`): `canvas` with the run state
    /// `state` written into it (the session objects of the API show it).
    fn session_dsl(&self, canvas: &TurnCanvas, state: &SessionState) -> Result<Value, String>;

    /// Tokens in `text` for the OpenAI mode's usage (the host counts with cl100k_base, as
    /// RAGFlow does; this default counts words).
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }

    /// The compiled programs this process carries: `(source, fingerprint)`.
    fn compiled(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The agent editor's default prompts by RAGFlow's keys (`task_analysis`,
    /// `plan_generation`, `reflection`, `citation_guidelines`).
    fn editor_prompts(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// A file a run of `tenant` stored (DocGenerator's documents, ExcelProcessor's sheets):
    /// its bytes, or `None` when that tenant has none by that id.
    fn generated_file(
        &self,
        tenant: &str,
        id: &str,
    ) -> BoxFuture<'static, Result<Option<Vec<u8>>, String>> {
        let _ = (tenant, id);
        Box::pin(async { Ok(None) })
    }

    /// Whether the SSRF guard admits `url` now (a background run's webhook is checked when
    /// the run is asked for, and again when it is called): why not, if it does not.
    fn check_url(&self, url: &str) -> BoxFuture<'static, Result<(), String>> {
        let _ = url;
        Box::pin(async { Err("this server sends no webhooks (built without the host)".into()) })
    }

    /// POSTs `body` to `url`, a URL a user gave (a background run's completion webhook),
    /// through the SSRF guard every canvas-controlled URL passes: the answer's status, or why
    /// there was none (`Refused:` when the guard refused the URL, which no retry changes).
    fn deliver(
        &self,
        url: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> BoxFuture<'static, Result<u16, Delivery>> {
        let _ = (url, headers, body);
        Box::pin(async {
            Err(Delivery::Refused(
                "this server sends no webhooks (built without the host)".into(),
            ))
        })
    }

    /// Connects to `db` as ExeSQL would and runs `SELECT 1`.
    fn test_db_connection(
        &self,
        db: DbConnection,
    ) -> BoxFuture<'static, Result<(), DbTestFailure>> {
        let _ = db;
        Box::pin(async {
            Err(DbTestFailure::Failed(
                "this server has no database drivers (built without the tools)".into(),
            ))
        })
    }
}
