//! The server side of one worker process: started on a program bundle's first turn, it runs
//! every turn of that bundle's programs; its answers are routed to each turn's stream. A
//! worker that dies ends every turn it ran with an error (the server then saves each as it
//! saves an aborted run) and the next turn starts a new one.

use super::protocol::{line, read_line, FromWorker, ToWorker, WireTurn};
use canvasc_server::turn::{
    CheckpointWriter, ProgramKind, RunningTurn, TurnEnd, TurnEvent, TurnRequest,
};
use canvasc_value::Json;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// How long a worker whose output ended may take to exit before it is killed.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// What the server keeps of a turn a worker runs.
struct Slot {
    events: mpsc::UnboundedSender<TurnEvent>,
    checkpoints: Option<CheckpointWriter>,
}

/// One running worker.
pub struct WorkerProcess {
    bundle: PathBuf,
    to_worker: mpsc::UnboundedSender<Vec<u8>>,
    turns: Mutex<HashMap<u64, Slot>>,
    next_id: AtomicU64,
    /// Cleared when the worker's output ends: no turn may start on it any more.
    alive: AtomicBool,
    /// The canvases sent to the worker (it keeps each): a turn on one sends only its id.
    canvases_sent: Mutex<HashSet<String>>,
}

impl WorkerProcess {
    /// Starts `bundle worker ARGS…`; must be called within the server's runtime.
    pub fn spawn(bundle: &Path, args: &[OsString]) -> Result<Arc<WorkerProcess>, String> {
        let mut child = tokio::process::Command::new(bundle)
            .arg("worker")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the program bundle {}: {e}", bundle.display()))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(format!(
                "the program bundle {} was started without pipes",
                bundle.display()
            ));
        };
        let (to_worker, mut lines) = mpsc::unbounded_channel::<Vec<u8>>();
        let process = Arc::new(WorkerProcess {
            bundle: bundle.to_path_buf(),
            to_worker,
            turns: Mutex::default(),
            next_id: AtomicU64::new(1),
            alive: AtomicBool::new(true),
            canvases_sent: Mutex::default(),
        });
        tokio::spawn(async move {
            while let Some(line) = lines.recv().await {
                if stdin.write_all(&line).await.is_err() {
                    break;
                }
                while let Ok(next) = lines.try_recv() {
                    if stdin.write_all(&next).await.is_err() {
                        return;
                    }
                }
                if stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let reader = Arc::clone(&process);
        tokio::spawn(async move {
            let why = reader.read(stdout).await;
            // A worker whose output ended may still live (hung): it gets a moment to exit,
            // then it is killed, so its turns always end.
            let status = match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                Ok(Ok(status)) => status.to_string(),
                Ok(Err(e)) => format!("its exit status is unknown: {e}"),
                Err(_) => {
                    let _ = child.kill().await;
                    "it did not exit and was killed".to_string()
                }
            };
            reader.ended(&why, &status);
        });
        Ok(process)
    }

    pub fn alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    /// Starts `turn` on this worker.
    pub fn start(self: &Arc<Self>, turn: TurnRequest) -> Result<RunningTurn, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (events, rx) = mpsc::unbounded_channel();
        let slot = Slot {
            events,
            checkpoints: turn.checkpoints.clone(),
        };
        // Marked and queued under one lock: the line bringing a canvas goes before any that
        // names it only.
        let mut sent = lock(&self.canvases_sent);
        let canvas_sent = sent.contains(&turn.canvas.id);
        let canvas_id = turn.canvas.id.clone();
        let start = ToWorker::Start {
            id,
            turn: Box::new(WireTurn::new(turn, canvas_sent)),
        };
        let line = line(&start)?;
        {
            let mut turns = lock(&self.turns);
            // Checked under the lock `ended` drains: a turn is either refused here or ended there.
            if !self.alive() {
                return Err(format!(
                    "the program bundle {}'s worker has stopped",
                    self.bundle.display()
                ));
            }
            turns.insert(id, slot);
        }
        let _ = self.to_worker.send(line);
        if !canvas_id.is_empty() {
            sent.insert(canvas_id);
        }
        drop(sent);
        let process = Arc::clone(self);
        let cancel = Arc::new(move || {
            if let Ok(line) = super::protocol::line(&ToWorker::Cancel { id }) {
                let _ = process.to_worker.send(line);
            }
        });
        let events = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|event| (event, rx))
        });
        Ok(RunningTurn {
            program: ProgramKind::Compiled,
            events: Box::pin(events),
            cancel,
        })
    }

    /// Routes the worker's messages until its output ends; returns why it ended.
    async fn read(&self, stdout: tokio::process::ChildStdout) -> String {
        let mut reader = tokio::io::BufReader::with_capacity(64 << 10, stdout);
        let mut buf = Vec::new();
        loop {
            match read_line(&mut reader, &mut buf).await {
                Ok(true) => {}
                Ok(false) => return "its output ended".into(),
                Err(e) => return format!("its output is unreadable ({e})"),
            }
            let message: FromWorker = match serde_json::from_slice(&buf) {
                Ok(m) => m,
                Err(e) => return format!("it sent a message that is not the protocol's ({e})"),
            };
            self.route(message);
        }
    }

    fn route(&self, message: FromWorker) {
        match message {
            FromWorker::Event { id, event, data } => {
                if let Some(slot) = lock(&self.turns).get(&id) {
                    let _ = slot.events.send(TurnEvent::Event { event, data });
                }
            }
            FromWorker::Checkpoint { id, checkpoint } => {
                let writer = lock(&self.turns)
                    .get(&id)
                    .and_then(|slot| slot.checkpoints.clone());
                if let Some(writer) = writer {
                    (writer.0)(Box::new(move || checkpoint));
                }
            }
            FromWorker::Ended { id, end, state } => {
                if let Some(slot) = lock(&self.turns).remove(&id) {
                    let end = TurnEnd::from(end);
                    let _ = slot.events.send(TurnEvent::Ended { end, state });
                }
            }
            FromWorker::Refused { id, error } => {
                if let Some(slot) = lock(&self.turns).remove(&id) {
                    let end = TurnEnd::Aborted(error);
                    let _ = slot.events.send(TurnEvent::Ended {
                        end,
                        state: Json::Null,
                    });
                }
            }
        }
    }

    /// The worker is gone: every turn it ran ends with an error naming why.
    fn ended(&self, why: &str, status: &str) {
        let reason = format!(
            "the compiled program's worker process ({}) stopped: {why}, {status}",
            self.bundle.display()
        );
        let turns = {
            let mut turns = lock(&self.turns);
            self.alive.store(false, Ordering::Release);
            std::mem::take(&mut *turns)
        };
        if !turns.is_empty() {
            eprintln!(
                "canvasc serve: {reason}; {} turn(s) it ran end with that error",
                turns.len()
            );
        }
        for slot in turns.into_values() {
            let _ = slot.events.send(TurnEvent::Ended {
                end: TurnEnd::Aborted(reason.clone()),
                state: Json::Null,
            });
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
