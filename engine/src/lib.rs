//! Executing canvases: the scheduler (RAGFlow's `Canvas.run`), run state, components, and the
//! interpreter back-end.
//!
//! The scheduler is generic over a [`Program`]: the interpreter ([`interp::Interpreter`]) builds
//! one from the IR at run time; generated code supplies one per canvas. Both call the same
//! component implementations in [`components`].

mod cancel;
pub mod checkpoint;
mod clock;
pub mod components;
pub mod config;
mod context;
mod conversation;
mod error;
pub mod events;
pub mod external;
pub mod http;
mod identity;
pub mod interp;
pub mod interpolate;
pub mod jinja;
pub mod llm;
pub mod mcp;
pub mod outbound;
pub mod persist;
mod program;
pub mod random;
mod read_bound;
pub mod redact;
pub mod scheduler;
mod services;
mod settings;
pub mod sharing;
pub mod ssrf;
pub mod state;
pub mod telemetry;
pub mod val;

pub use cancel::CancelFlag;
pub use clock::{perf_counter, unix_seconds};
pub use context::{NodeCx, Shared, SharedRandom};
pub use conversation::{Published, Session};
pub use error::{RunError, CANCELED};
pub use events::{Envelope, EventSink};
pub use program::{Program, ProgramVisitor};
pub use read_bound::{FindGlobal, ReadBound, ReadOut};
pub use scheduler::{run, run_checkpointed, Checkpointing, RunInput, RunOutcome};
pub use services::Services;
pub use settings::Settings;
pub use state::RunState;
