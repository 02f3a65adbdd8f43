//! The seam through which the chat-completions endpoint will run a turn. The server owns
//! requests, sessions and storage; the host layer owns programs, models and services, and runs
//! a turn behind this trait. The server then frames the events (SSE, JSON, OpenAI), saves the
//! returned state with the transcript in one write, and records the run log.

use futures::stream::BoxStream;
use serde_json::{Map, Value};

/// One turn of one session, as the server hands it over.
#[derive(Clone, Debug)]
pub struct TurnRequest {
    pub agent_id: String,
    pub session_id: String,
    /// The id of this run's events and run log.
    pub message_id: String,
    /// The session's saved DSL, carrying the state of the previous turns.
    pub dsl: Value,
    /// Whether `dsl` comes from a released version (a compiled program may run it).
    pub released: bool,
    pub query: String,
    pub inputs: Map<String, Value>,
    /// Upload descriptors (`POST /agents/{id}/upload`).
    pub files: Vec<Value>,
    /// `sys.user_id` of the run.
    pub user_id: String,
    /// Per-run HTTP headers for tools and MCP servers; never stored.
    pub custom_header: Map<String, Value>,
    pub chat_template_kwargs: Option<Value>,
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

/// What a running turn reports.
#[derive(Clone, Debug)]
pub enum TurnEvent {
    /// Chosen before the first event.
    Program(ProgramKind),
    /// One RAGFlow event (`workflow_started`, `message`, …) without the envelope keys the
    /// server adds (`message_id`, `session_id`, `task_id`, `created_at`).
    Event { event: String, data: Value },
    /// The turn ended: the DSL to save as the session's state, and the component trace.
    Finished { dsl: Value, trace: Value },
    /// The turn failed; the text is RAGFlow's error message.
    Failed(String),
}

/// Runs turns. Dropping the returned stream cancels the run (a client that disconnects, or
/// `POST /tasks/{session_id}/cancel`), so the trait needs no cancel call of its own.
pub trait TurnRunner: Send + Sync + 'static {
    fn run(&self, turn: TurnRequest) -> BoxStream<'static, TurnEvent>;
}
