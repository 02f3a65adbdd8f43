//! The worker side: a built binary's `worker` command runs the turns a server hands it over
//! stdin with the programs compiled into it, and answers on stdout ([`super::protocol`]).
//! Services come from the same configuration the server reads, so a turn runs here exactly
//! as it would in the server's process.

use crate::serve::Programs;
use crate::worker::protocol::{line, read_line_blocking, FromWorker, ToWorker, WireEnd};
use canvasc_server::turn::{
    newest_per_gap, CancelHandle, CheckpointWriter, PendingJson, TurnEnd, TurnEvent, TurnRunner,
};
use canvasc_value::Json;
use futures::stream::BoxStream;
use futures::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

type Lines = mpsc::UnboundedSender<Vec<u8>>;

/// A turn being run: how to cancel it, and whether anyone did.
struct Running {
    cancel: CancelHandle,
    cancelled: Arc<AtomicBool>,
}

/// Serves turns until stdin closes. A server that is gone reads no answer and saves no turn, so
/// the worker then cancels what runs and returns once those turns have ended.
pub(super) async fn serve(programs: Programs) -> Result<(), String> {
    let (out, lines) = mpsc::unbounded_channel::<Vec<u8>>();
    // Blocking stdin and stdout, each on a thread of its own (tokio's are threads too).
    let writer = std::thread::spawn(move || write_lines(lines));
    let (messages, mut incoming) = mpsc::unbounded_channel::<Result<ToWorker, String>>();
    std::thread::spawn(move || read_messages(&messages));
    let running: Arc<Mutex<HashMap<u64, Running>>> = Arc::default();
    // Every canvas the server sent, by id: it sends each once (the worker lives as long as
    // its bundle is served, and the canvases it runs are those of the versions it carries).
    let mut canvases: HashMap<String, Arc<Json>> = HashMap::new();
    let mut turns = tokio::task::JoinSet::new();
    let read = loop {
        let message = match incoming.recv().await {
            None => break Ok(()),
            Some(Err(e)) => break Err(e),
            Some(Ok(message)) => message,
        };
        match message {
            ToWorker::Cancel { id } => {
                if let Some(turn) = lock(&running).get(&id) {
                    turn.cancelled.store(true, Ordering::Relaxed);
                    (turn.cancel)();
                }
            }
            ToWorker::Start { id, mut turn } => {
                let (checkpoints, last_checkpoint) = match turn.checkpoints {
                    true => {
                        let (writer, last) = checkpoint_writer(id, out.clone());
                        (Some(writer), Some(last))
                    }
                    false => (None, None),
                };
                let canvas = match turn.canvas.take() {
                    Some(canvas) => {
                        let canvas = Arc::new(canvas);
                        if !turn.canvas_id.is_empty() {
                            canvases.insert(turn.canvas_id.clone(), Arc::clone(&canvas));
                        }
                        Some(canvas)
                    }
                    None => canvases.get(&turn.canvas_id).cloned(),
                };
                let Some(canvas) = canvas else {
                    let error = format!("the worker was never sent the canvas {}", turn.canvas_id);
                    send(&out, &FromWorker::Refused { id, error });
                    continue;
                };
                let started = match programs.start(turn.into_request(canvas, checkpoints)) {
                    Ok(started) => started,
                    Err(error) => {
                        send(&out, &FromWorker::Refused { id, error });
                        continue;
                    }
                };
                let cancelled = Arc::new(AtomicBool::new(false));
                let entry = Running {
                    cancel: started.cancel.clone(),
                    cancelled: Arc::clone(&cancelled),
                };
                lock(&running).insert(id, entry);
                let (out, running) = (out.clone(), Arc::clone(&running));
                turns.spawn(async move {
                    forward(id, started.events, last_checkpoint, cancelled, &out).await;
                    lock(&running).remove(&id);
                });
            }
        }
    };
    // The server is gone (or speaks no more sense): nobody reads the answers.
    for turn in lock(&running).values() {
        (turn.cancel)();
    }
    while turns.join_next().await.is_some() {}
    drop(out);
    let _ = tokio::task::spawn_blocking(move || writer.join()).await;
    read
}

/// Reads the server's messages from stdin until it closes or sends one that is not the
/// protocol's (then the last item is why).
fn read_messages(messages: &mpsc::UnboundedSender<Result<ToWorker, String>>) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = Vec::new();
    loop {
        let message = match read_line_blocking(&mut stdin, &mut buf) {
            Ok(true) => serde_json::from_slice(&buf)
                .map_err(|e| format!("worker: a message from the server is unreadable: {e}")),
            Ok(false) => return,
            Err(e) => Err(format!("worker: reading the server's messages: {e}")),
        };
        let failed = message.is_err();
        if messages.send(message).is_err() || failed {
            return;
        }
    }
}

/// Writes the lines in order; several waiting go out in one flush.
fn write_lines(mut lines: mpsc::UnboundedReceiver<Vec<u8>>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    while let Some(line) = lines.blocking_recv() {
        if stdout.write_all(&line).is_err() {
            return;
        }
        while let Ok(next) = lines.try_recv() {
            if stdout.write_all(&next).is_err() {
                return;
            }
        }
        if stdout.flush().is_err() {
            return;
        }
    }
}

/// Sends the turn's events, then its end, after its last checkpoint: the server stores that
/// one before it records how the run ended, and a resume goes on from it. A run whose task
/// ended without an end panicked.
async fn forward(
    id: u64,
    mut events: BoxStream<'static, TurnEvent>,
    last_checkpoint: Option<LastCheckpoint>,
    cancelled: Arc<AtomicBool>,
    out: &Lines,
) {
    let mut ended = None;
    while let Some(event) = events.next().await {
        match event {
            TurnEvent::Event { event, data } => send(out, &FromWorker::Event { id, event, data }),
            TurnEvent::Ended { end, state } => {
                ended = Some((end, state));
                break;
            }
        }
    }
    drop(events);
    let (end, state) = ended.unwrap_or_else(|| {
        let why = "the compiled program panicked".to_string();
        (TurnEnd::Aborted(why), Json::Null)
    });
    if let Some(last) = last_checkpoint {
        last.finish(resumable(&end, cancelled.load(Ordering::Relaxed)))
            .await;
    }
    let end = WireEnd::from(end);
    send(out, &FromWorker::Ended { id, end, state });
}

/// Whether the server keeps a run ended so as a checkpoint to resume from (it drops the
/// checkpoint of a run that succeeded or waits for input; `RunStatus::resumable`). A turn the
/// server then fails to save is resumable too, from the checkpoint before the last.
fn resumable(end: &TurnEnd, cancelled: bool) -> bool {
    match end {
        TurnEnd::Finished => cancelled,
        TurnEnd::Paused => false,
        TurnEnd::Canceled | TurnEnd::Failed(_) | TurnEnd::Aborted(_) => true,
    }
}

/// The end of a turn's checkpoint writer in the worker.
struct LastCheckpoint {
    sent: JoinHandle<()>,
    keep: oneshot::Sender<bool>,
}

impl LastCheckpoint {
    /// Waits until the run's last checkpoint is sent, or dropped when `keep` is false.
    async fn finish(self, keep: bool) {
        let _ = self.keep.send(keep);
        let _ = self.sent.await;
    }
}

/// The turn's checkpoint writer. The engine hands a checkpoint over per batch boundary
/// unwritten; the server stores at most one per
/// [`CHECKPOINT_GAP`](canvasc_server::turn::CHECKPOINT_GAP), the first too, so the
/// worker builds no more: the newest waits for the gap, and one still waiting when the run
/// drops the writer is built only when the run can be resumed.
fn checkpoint_writer(id: u64, out: Lines) -> (CheckpointWriter, LastCheckpoint) {
    let (tx, mut rx) = mpsc::unbounded_channel::<PendingJson>();
    let (keep_tx, keep) = oneshot::channel::<bool>();
    let sent = tokio::spawn(async move {
        let send_one = |pending: PendingJson| {
            let checkpoint = pending();
            send(&out, &FromWorker::Checkpoint { id, checkpoint });
            std::future::ready(())
        };
        if let Some(last) = newest_per_gap(&mut rx, &send_one).await {
            if keep.await.unwrap_or(true) {
                send_one(last).await;
            }
        }
    });
    let writer = CheckpointWriter(Arc::new(move |pending| {
        let _ = tx.send(pending);
    }));
    let last = LastCheckpoint {
        sent,
        keep: keep_tx,
    };
    (writer, last)
}

fn send(out: &Lines, message: &FromWorker) {
    match line(message) {
        Ok(line) => {
            let _ = out.send(line);
        }
        Err(e) => eprintln!("worker: a message could not be written: {e}"),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
