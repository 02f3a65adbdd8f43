//! The program bundles a server runs compiled without carrying them: binaries `canvasc build`
//! made, in one directory (`<data dir>/programs`), found while the server runs. Each says what
//! it carries (`<bundle> manifest`); a bundle another engine version built is left out, since
//! a session's state and checkpoints are the engine's. A released version whose fingerprint a
//! bundle carries runs in that bundle's worker process ([`super::process`]); runs already
//! going on finish where they started.

use super::process::WorkerProcess;
use canvasc_engine::checkpoint::ENGINE_VERSION;
use canvasc_server::turn::{RunningTurn, TurnRequest};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How often the directory is looked at for new or replaced bundles.
const RESCAN: Duration = Duration::from_secs(1);

/// How long `<bundle> manifest` may take.
const MANIFEST_TIMEOUT: Duration = Duration::from_secs(20);

/// What a bundle carries, as its `manifest` command prints it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub engine_version: String,
    pub programs: Vec<ManifestProgram>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ManifestProgram {
    pub source: String,
    pub fingerprint: String,
}

impl Manifest {
    /// The manifest of a binary carrying `canvases`.
    pub fn of(canvases: &[crate::program_choice::Compiled]) -> Manifest {
        Manifest {
            engine_version: ENGINE_VERSION.to_string(),
            programs: canvases
                .iter()
                .map(|(source, fingerprint, _)| ManifestProgram {
                    source: source.to_string(),
                    fingerprint: fingerprint.to_string(),
                })
                .collect(),
        }
    }
}

/// A bundle file as last seen.
struct Seen {
    modified: Option<SystemTime>,
    /// Its fingerprints, or `None` when it is left out (reported once).
    fingerprints: Option<Vec<String>>,
}

#[derive(Default)]
struct Index {
    files: HashMap<PathBuf, Seen>,
    by_fingerprint: HashMap<String, PathBuf>,
}

/// The bundles of one directory and their worker processes.
pub struct Bundles {
    dir: PathBuf,
    /// What every worker is started with after `worker` (the server's configuration).
    worker_args: Vec<OsString>,
    index: Mutex<Index>,
    workers: Mutex<HashMap<PathBuf, Arc<WorkerProcess>>>,
    scanning: std::sync::Once,
}

impl Bundles {
    pub fn new(dir: PathBuf, worker_args: Vec<OsString>) -> Arc<Bundles> {
        Arc::new(Bundles {
            dir,
            worker_args,
            index: Mutex::default(),
            workers: Mutex::default(),
            scanning: std::sync::Once::new(),
        })
    }

    /// Looks at the directory now and then, from the first call on (within a runtime).
    pub fn watch(self: &Arc<Self>) {
        self.scanning.call_once(|| {
            let me = Arc::downgrade(self);
            tokio::spawn(async move {
                loop {
                    let Some(bundles) = me.upgrade() else { return };
                    let _ = tokio::task::spawn_blocking(move || bundles.rescan()).await;
                    tokio::time::sleep(RESCAN).await;
                }
            });
        });
    }

    /// Whether no bundle carries a program (none was found yet).
    pub fn is_empty(&self) -> bool {
        lock(&self.index).by_fingerprint.is_empty()
    }

    /// Whether a bundle carries the program for `fingerprint`.
    pub fn carries(&self, fingerprint: &str) -> bool {
        lock(&self.index).by_fingerprint.contains_key(fingerprint)
    }

    /// Starts `turn` in the worker of the bundle carrying `fingerprint`; `None` when none does.
    pub fn start(
        &self,
        fingerprint: &str,
        turn: TurnRequest,
    ) -> Option<Result<RunningTurn, String>> {
        let bundle = lock(&self.index).by_fingerprint.get(fingerprint)?.clone();
        let worker = {
            let mut workers = lock(&self.workers);
            match workers.get(&bundle) {
                Some(worker) if worker.alive() => Ok(Arc::clone(worker)),
                _ => WorkerProcess::spawn(&bundle, &self.worker_args).inspect(|worker| {
                    workers.insert(bundle.clone(), Arc::clone(worker));
                }),
            }
        };
        Some(worker.and_then(|worker| worker.start(turn)))
    }

    /// Reads the directory: new and replaced bundles are described, removed ones forgotten.
    /// A replaced bundle's old worker finishes its turns, and new turns start the new one.
    pub fn rescan(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut present: HashMap<PathBuf, Option<SystemTime>> = HashMap::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() && is_executable(&meta) {
                present.insert(path, meta.modified().ok());
            }
        }
        let changed: Vec<PathBuf> = {
            let index = lock(&self.index);
            let gone = index.files.keys().any(|p| !present.contains_key(p));
            let fresh = present
                .iter()
                .filter(|(p, m)| index.files.get(*p).is_none_or(|seen| seen.modified != **m))
                .map(|(p, _)| p.clone())
                .collect::<Vec<_>>();
            if !gone && fresh.is_empty() {
                return;
            }
            fresh
        };
        let described: Vec<(PathBuf, Seen)> = changed
            .into_iter()
            .map(|path| {
                let modified = present.get(&path).copied().flatten();
                let fingerprints = match manifest(&path) {
                    Ok(m) if m.engine_version == ENGINE_VERSION => Some(
                        m.programs.into_iter().map(|p| p.fingerprint).collect(),
                    ),
                    Ok(m) => {
                        eprintln!(
                            "canvasc serve: program bundle {} was built by engine {}, and this server runs engine {ENGINE_VERSION}: left out",
                            path.display(),
                            m.engine_version
                        );
                        None
                    }
                    Err(e) => {
                        eprintln!(
                            "canvasc serve: program bundle {}: left out: {e}",
                            path.display()
                        );
                        None
                    }
                };
                (path, Seen { modified, fingerprints })
            })
            .collect();
        let mut index = lock(&self.index);
        index.files.retain(|p, _| present.contains_key(p));
        for (path, seen) in described {
            if let Some(fps) = &seen.fingerprints {
                eprintln!(
                    "canvasc serve: program bundle {}: {} compiled program(s)",
                    path.display(),
                    fps.len()
                );
            }
            index.files.insert(path, seen);
        }
        let mut by_fingerprint = HashMap::new();
        let mut files: Vec<(&PathBuf, &Seen)> = index.files.iter().collect();
        // The newest bundle carrying a fingerprint serves it.
        files.sort_by_key(|(p, seen)| (seen.modified, (*p).clone()));
        for (path, seen) in files {
            for fp in seen.fingerprints.iter().flatten() {
                by_fingerprint.insert(fp.clone(), path.clone());
            }
        }
        index.by_fingerprint = by_fingerprint;
    }
}

/// Runs `<bundle> manifest` (bounded in time and output).
fn manifest(bundle: &Path) -> Result<Manifest, String> {
    let mut child = std::process::Command::new(bundle)
        .arg("manifest")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    // Read on a thread, so that a bundle that never ends its output is killed in time.
    let stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut out = Vec::new();
        let read = stdout.map(|s| s.take(16 << 20).read_to_end(&mut out));
        let _ = tx.send(read.map(|r| r.map(|_| out)));
    });
    let out = match rx.recv_timeout(MANIFEST_TIMEOUT) {
        Ok(Some(Ok(out))) => out,
        Ok(Some(Err(e))) => return Err(format!("reading its manifest: {e}")),
        Ok(None) => return Err("it was started without an output pipe".into()),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err("`manifest` did not answer in time".into());
        }
    };
    match child.wait() {
        Ok(status) if status.success() => {}
        Ok(status) => return Err(format!("`manifest` failed ({status})")),
        Err(e) => return Err(format!("`manifest`: {e}")),
    }
    serde_json::from_slice(&out).map_err(|e| format!("its manifest is unreadable: {e}"))
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
