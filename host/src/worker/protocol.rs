//! What a server and a program bundle's worker process say to each other over the worker's
//! stdin and stdout: one JSON object per line (compact JSON holds no raw newline), each naming
//! the turn it is about, so that one worker runs many turns at once.

use canvasc_server::turn::{SessionState, TurnCanvas, TurnEnd, TurnRequest};
use canvasc_value::Json;
use serde::{Deserialize, Serialize};
use serde_json::Map;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line either side reads: a turn's request carries the session's canvas and its
/// files, an event or the end carries a component's outputs (a spreadsheet within the sheet
/// budget, documents as data URLs). A longer line ends the worker's conversation.
pub const LINE_BUDGET: usize = 512 << 20;

/// The server to a worker.
#[derive(Serialize, Deserialize)]
pub enum ToWorker {
    /// Run a turn of a canvas the worker carries.
    Start { id: u64, turn: Box<WireTurn> },
    /// Stop turn `id` at its next scheduling point (it then ends as any turn does).
    Cancel { id: u64 },
}

/// A worker to the server.
#[derive(Serialize, Deserialize)]
pub enum FromWorker {
    /// The turn cannot run at all (RAGFlow's error text).
    Refused {
        id: u64,
        error: String,
    },
    Event {
        id: u64,
        event: String,
        data: Json,
    },
    /// A checkpoint of the turn, built (the worker stores no more than the server would).
    Checkpoint {
        id: u64,
        checkpoint: Json,
    },
    /// The last message of a turn, with the session's run state it leaves.
    Ended {
        id: u64,
        end: WireEnd,
        state: Json,
    },
}

/// [`TurnRequest`] as a worker receives it: the checkpoint writer becomes a flag (the worker
/// sends its checkpoints back), the turn is always a released version's, and the canvas comes
/// once per worker (`canvas` is `None` when an earlier turn brought the canvas `canvas_id`).
#[derive(Serialize, Deserialize)]
pub struct WireTurn {
    pub tenant_id: String,
    pub agent_id: String,
    pub session_id: String,
    pub canvas_id: String,
    pub canvas: Option<Json>,
    pub state: SessionState,
    pub fresh: bool,
    pub query: String,
    pub inputs: Option<Json>,
    pub files: Vec<Json>,
    pub user_id: String,
    pub custom_header: Map<String, Json>,
    pub chat_template_kwargs: Option<Json>,
    pub checkpoints: bool,
    pub resume: Option<Json>,
    pub default_llm: Option<String>,
    #[serde(default)]
    pub webhook_payload: Option<Map<String, Json>>,
}

impl WireTurn {
    /// The wire form of `turn`, with its canvas unless the worker has it (`canvas_sent`).
    pub fn new(turn: TurnRequest, canvas_sent: bool) -> WireTurn {
        WireTurn {
            tenant_id: turn.tenant_id,
            agent_id: turn.agent_id,
            session_id: turn.session_id,
            canvas: (!canvas_sent).then(|| (*turn.canvas.dsl).clone()),
            canvas_id: turn.canvas.id,
            state: turn.state,
            fresh: turn.fresh,
            query: turn.query,
            inputs: turn.inputs,
            files: turn.files,
            user_id: turn.user_id,
            custom_header: turn.custom_header,
            chat_template_kwargs: turn.chat_template_kwargs,
            checkpoints: turn.checkpoints.is_some(),
            resume: turn.resume,
            default_llm: turn.default_llm,
            webhook_payload: turn.webhook_payload,
        }
    }

    /// The request the worker's runner starts, on `canvas` (this turn's, or the one an
    /// earlier turn brought), with `checkpoints` as its writer.
    pub fn into_request(
        self,
        canvas: Arc<Json>,
        checkpoints: Option<canvasc_server::turn::CheckpointWriter>,
    ) -> TurnRequest {
        TurnRequest {
            tenant_id: self.tenant_id,
            agent_id: self.agent_id,
            session_id: self.session_id,
            canvas: TurnCanvas {
                id: self.canvas_id,
                dsl: canvas,
            },
            state: self.state,
            released: true,
            fresh: self.fresh,
            query: self.query,
            inputs: self.inputs,
            files: self.files,
            user_id: self.user_id,
            custom_header: self.custom_header,
            chat_template_kwargs: self.chat_template_kwargs,
            checkpoints,
            resume: self.resume,
            default_llm: self.default_llm,
            webhook_payload: self.webhook_payload,
        }
    }
}

/// [`TurnEnd`] on the wire.
#[derive(Serialize, Deserialize)]
pub enum WireEnd {
    Finished,
    Paused,
    Canceled,
    Failed(String),
    Aborted(String),
}

impl From<TurnEnd> for WireEnd {
    fn from(end: TurnEnd) -> WireEnd {
        match end {
            TurnEnd::Finished => WireEnd::Finished,
            TurnEnd::Paused => WireEnd::Paused,
            TurnEnd::Canceled => WireEnd::Canceled,
            TurnEnd::Failed(e) => WireEnd::Failed(e),
            TurnEnd::Aborted(e) => WireEnd::Aborted(e),
        }
    }
}

impl From<WireEnd> for TurnEnd {
    fn from(end: WireEnd) -> TurnEnd {
        match end {
            WireEnd::Finished => TurnEnd::Finished,
            WireEnd::Paused => TurnEnd::Paused,
            WireEnd::Canceled => TurnEnd::Canceled,
            WireEnd::Failed(e) => TurnEnd::Failed(e),
            WireEnd::Aborted(e) => TurnEnd::Aborted(e),
        }
    }
}

/// One message as its line (with the newline).
pub fn line<T: Serialize>(message: &T) -> Result<Vec<u8>, String> {
    let mut line = serde_json::to_vec(message).map_err(|e| e.to_string())?;
    line.push(b'\n');
    Ok(line)
}

/// Reads the next line into `buf` (cleared first): `Ok(false)` at the end of the input, an
/// error for a line over [`LINE_BUDGET`].
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<bool> {
    buf.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (taken, done) = take_line(buf, available)?;
        reader.consume(taken);
        if done {
            return Ok(true);
        }
    }
}

/// [`read_line`] on a blocking reader (the worker's stdin, read on a thread of its own).
pub fn read_line_blocking<R: std::io::BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<bool> {
    buf.clear();
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (taken, done) = take_line(buf, available)?;
        reader.consume(taken);
        if done {
            return Ok(true);
        }
    }
}

/// Moves what of `available` belongs to the current line into `buf`: how much was taken, and
/// whether the line is complete.
fn take_line(buf: &mut Vec<u8>, available: &[u8]) -> std::io::Result<(usize, bool)> {
    let (taken, done) = match available.iter().position(|&b| b == b'\n') {
        Some(at) => (at + 1, true),
        None => (available.len(), false),
    };
    if buf.len() + taken > LINE_BUDGET {
        return Err(std::io::Error::other(format!(
            "a worker message is over {} MiB",
            LINE_BUDGET >> 20
        )));
    }
    buf.extend_from_slice(&available[..taken]);
    Ok((taken, done))
}

#[cfg(test)]
mod tests {
    use super::{line, read_line, FromWorker, WireEnd};
    use serde_json::json;

    #[tokio::test]
    async fn messages_travel_one_per_line_and_an_unfinished_last_line_still_counts() {
        let mut text = line(&FromWorker::Event {
            id: 7,
            event: "message".into(),
            data: json!({"content": "two\nlines"}),
        })
        .unwrap();
        text.extend(
            line(&FromWorker::Ended {
                id: 7,
                end: WireEnd::Failed("boom".into()),
                state: json!({}),
            })
            .unwrap(),
        );
        text.extend_from_slice(br#"{"Refused":{"id":8,"error":"x"}}"#);
        let mut reader = tokio::io::BufReader::with_capacity(5, text.as_slice());
        let mut buf = Vec::new();
        let mut kinds = Vec::new();
        while read_line(&mut reader, &mut buf).await.unwrap() {
            match serde_json::from_slice::<FromWorker>(&buf).unwrap() {
                FromWorker::Event { data, .. } => kinds.push(format!("event {data}")),
                FromWorker::Ended { end, .. } => {
                    kinds.push(format!("ended {}", matches!(end, WireEnd::Failed(_))))
                }
                FromWorker::Refused { id, .. } => kinds.push(format!("refused {id}")),
                FromWorker::Checkpoint { .. } => kinds.push("checkpoint".into()),
            }
        }
        assert_eq!(
            kinds,
            [
                r#"event {"content":"two\nlines"}"#,
                "ended true",
                "refused 8"
            ]
        );
    }
}
