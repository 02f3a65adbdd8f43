//! A run's event stream, kept so a client can reattach (issue 42, "streams you can reattach
//! to"): every frame of a run in order, each with its id (its position in the run's native SSE
//! stream, from 1), kept while the run goes on and for a retention window after it ended.
//! `GET /agents/{id}/runs/{message_id}/stream` replays what a client missed after its
//! `Last-Event-ID` and follows the run live, on any replica.
//!
//! What is kept is exactly what the native stream sends: each event frame, then the closing
//! frames (RAGFlow's error frame or the session-only frame) and the terminator
//! [`TERMINATOR`], which is how a reader knows the run's stream is whole.
//!
//! Two stores behind one interface, chosen with the coordinator: Redis streams with a TTL
//! (`agent:run-events:{run_id}`, every replica reads them), or memory on the embedded default
//! (bounded by a byte budget, finished runs evicted oldest first).

mod memory;
mod redis;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

pub(crate) use self::memory::MemoryStreams;
pub(crate) use self::redis::RedisStreams;
use super::CoordResult;

/// The native stream's last frame's data.
pub const TERMINATOR: &str = "[DONE]";

/// How long and how much of runs' streams is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// A run's events are kept this long after it ended (`--stream-retention`).
    pub retention: Duration,
    /// A run keeps at most this many events; beyond, its oldest go first (a client that
    /// reattaches after them is told what it missed is gone).
    pub max_events: usize,
    /// In process: all runs' events together take at most about this many bytes; finished
    /// runs are dropped oldest first, then running runs lose their oldest events.
    pub memory_budget: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            retention: Duration::from_secs(600),
            max_events: 100_000,
            memory_budget: 256 << 20,
        }
    }
}

/// One kept frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its position in the run's stream, from 1 (the SSE `id`).
    pub id: u64,
    /// The frame's SSE data (a JSON text, or [`TERMINATOR`]).
    pub data: Arc<str>,
}

impl Entry {
    pub fn ends_stream(&self) -> bool {
        &*self.data == TERMINATOR
    }
}

/// What a read found.
#[derive(Debug)]
pub enum Read {
    /// The entries after the asked id (none: nothing new within the wait).
    Entries(Vec<Entry>),
    /// The run's stream is not kept (never written here, or its retention is over).
    NotKept,
    /// The run was resumed (`resume_from`) since this reader began: its new attempt's stream
    /// replaced the one being read, and numbers its events from 1 again.
    Replaced,
}

/// Where runs' streams are kept.
pub trait RunStreams: Send + Sync + 'static {
    /// Starts keeping the stream of `run_id` (a resumed run starts a new one).
    fn writer(&self, run_id: &str) -> Box<dyn StreamWriter>;
    /// A reader of `run_id`'s stream.
    fn reader(&self, run_id: &str) -> Box<dyn StreamReader>;
    /// Bytes kept in this process (memory only; 0 for Redis).
    fn kept_bytes(&self) -> usize;
}

/// Appends one run's frames in order. Appending never waits for the store: a slow or
/// unreachable store loses kept frames (logged), never the run's progress.
pub trait StreamWriter: Send + Sync {
    fn push(&mut self, data: Arc<str>);
    /// The run's stream is whole (its terminator pushed): it is kept for the retention
    /// window from now. Waits (boundedly) until what was pushed is stored, so a run's record
    /// never says it ended before its stream does.
    fn end(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// Reads one run's stream.
pub trait StreamReader: Send {
    /// The entries after `after`, waiting up to `wait` for one when there are none yet.
    fn read<'a>(&'a mut self, after: u64, wait: Duration) -> BoxFuture<'a, CoordResult<Read>>;
}
