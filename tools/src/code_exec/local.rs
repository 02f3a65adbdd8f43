//! CodeExec's local backend, for development (`[tools.sandbox] backend = "local"`, or
//! `RAGFLOW_TOOL_SANDBOX_BACKEND=local`): the script runs here, in a subprocess, the way
//! RAGFlow's sandbox executor runs it in a container (`agent/sandbox/executor_manager/services/
//! execution.py`): `main.py` or `main.js` with a runner that calls `main(**arguments)` and
//! prints the result behind a marker line, in a scratch directory of its own whose
//! `artifacts/` folder holds the files it makes.
//!
//! Limits, set in the child before it executes (`pre_exec`): its own session (so the whole
//! process group is killed at the time limit), no network (a new, empty network namespace:
//! `unshare(CLONE_NEWNET)`, which needs root or CAP_SYS_ADMIN; without it the backend refuses
//! to run rather than run with the network), a data-size limit (`RLIMIT_DATA`: counts the
//! heap and private writable mappings, not V8's reserved address space), a CPU-time limit, a
//! file-size limit and no core dumps; output past a limit is cut and the run stopped. The
//! environment is emptied but for `PATH` (and pyenv's variables), `HOME` and `TMPDIR` point at
//! the scratch directory. This is isolation for development, not a security boundary:
//! the script still sees the host's file system with canvasc's permissions.
//!
//! Answers are the executor's: a time-out is `Execution timeout`, a run killed for memory
//! `Memory limit exceeded (killed by OOM)`, any other failure its stderr with no stdout.

use super::Executed;
use base64::Engine;
use canvasc_value::{Json, Map};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// The executor's result marker (`RESULT_MARKER_PREFIX`).
const MARKER: &str = "__RAGFLOW_RESULT__:";

/// The limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time (the executor's `SANDBOX_TIMEOUT`, 10 s by default).
    pub time: Duration,
    /// `RLIMIT_DATA`, bytes.
    pub memory: u64,
    /// stdout and stderr, bytes each.
    pub output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(10),
            memory: 512 * 1024 * 1024,
            output: 1024 * 1024,
        }
    }
}

const PY_RUNNER: &str = r#"import base64
import json
import os
import sys

os.makedirs(os.path.join(os.getcwd(), "artifacts"), exist_ok=True)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from main import main

if __name__ == "__main__":
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "args.json"), encoding="utf-8") as f:
        args = json.load(f)
    result = main(**args)
    payload = json.dumps({"present": True, "value": result, "type": "json"}, ensure_ascii=False, separators=(",", ":"))
    print(MARKER + base64.b64encode(payload.encode("utf-8")).decode("ascii"))
"#;

const JS_RUNNER: &str = r#"const fs = require('fs');
const path = require('path');
fs.mkdirSync(path.join(process.cwd(), 'artifacts'), { recursive: true });
const args = JSON.parse(fs.readFileSync(path.join(__dirname, 'args.json'), 'utf8'));
function emit(value) {
    if (typeof value === 'undefined') {
        console.error('Error: main() must return a value. Use null for an empty result.');
        process.exit(1);
    }
    const payload = JSON.stringify({ present: true, value, type: 'json' });
    if (typeof payload === 'undefined') {
        console.error('Error: main() returned a non-JSON-serializable value.');
        process.exit(1);
    }
    console.log(MARKER + Buffer.from(payload, 'utf8').toString('base64'));
}
const mod = require(path.join(__dirname, 'main.js'));
const main = typeof mod === 'function' ? mod : mod.main;
if (typeof main !== 'function') {
    console.error('Error: main is not a function');
    process.exit(1);
}
try {
    Promise.resolve(main(args)).then(emit).catch(err => {
        console.error('Error in async main function:', err);
        process.exit(1);
    });
} catch (err) {
    console.error('Error when executing main:', err);
    process.exit(1);
}
"#;

/// The executor's artifact types (`ALLOWED_ARTIFACT_EXTENSIONS`), at most 10 files of 10 MB.
const ARTIFACT_TYPES: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("svg", "image/svg+xml"),
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("json", "application/json"),
    ("html", "text/html"),
];
const MAX_ARTIFACTS: usize = 10;
const MAX_ARTIFACT_BYTES: u64 = 10 * 1024 * 1024;

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch() -> Result<Scratch, String> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir().join(format!(
        "canvasc-sandbox-{}-{}",
        std::process::id(),
        uuid_like()
    ));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("cannot create the scratch directory: {e}"))?;
    Ok(Scratch(dir))
}

/// A unique enough name part: the time in nanoseconds and a counter.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:x}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Sets the child's limits and isolation; runs between fork and exec, so it only calls
/// async-signal-safe functions.
fn isolate(limits: Limits) -> impl FnMut() -> std::io::Result<()> + Send + Sync + 'static {
    move || {
        let set = |resource, value: u64| {
            let lim = libc::rlimit {
                rlim_cur: value as libc::rlim_t,
                rlim_max: value as libc::rlim_t,
            };
            // SAFETY: setrlimit with a valid pointer to a local struct.
            if unsafe { libc::setrlimit(resource, &lim) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        };
        // SAFETY: setsid and unshare take no pointers; both are async-signal-safe syscalls.
        unsafe {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        set(libc::RLIMIT_DATA, limits.memory)?;
        set(libc::RLIMIT_CPU, limits.time.as_secs() + 1)?;
        set(libc::RLIMIT_FSIZE, MAX_ARTIFACT_BYTES)?;
        set(libc::RLIMIT_CORE, 0)?;
        Ok(())
    }
}

/// Read at most `limit` bytes; `true` when there was more.
async fn read_capped<R: tokio::io::AsyncRead + Unpin>(mut r: R, limit: usize) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return (out, false),
            Ok(n) => {
                if out.len() + n > limit {
                    let room = limit - out.len();
                    out.extend_from_slice(&buf[..room]);
                    return (out, true);
                }
                out.extend_from_slice(&buf[..n]);
            }
        }
    }
}

fn failed(stderr: &str) -> Executed {
    Executed {
        stdout: String::new(),
        stderr: stderr.to_string(),
        artifacts: Vec::new(),
        result: None,
    }
}

/// Run `code` (`language` is the executor's: `python` or `nodejs`) with `arguments`.
/// `Err` is a failure of the backend itself (it could not isolate or start the script).
pub async fn run(
    language: &str,
    code: &str,
    arguments: &Map<String, Json>,
    limits: Limits,
) -> Result<Executed, String> {
    let dir = scratch()?;
    let (main, runner, program, flags): (&str, String, &str, &[&str]) = match language {
        "python" => (
            "main.py",
            PY_RUNNER.replace("MARKER", &format!("{MARKER:?}")),
            "python3",
            &["-I", "-B"],
        ),
        "nodejs" => (
            "main.js",
            JS_RUNNER.replace("MARKER", &format!("'{MARKER}'")),
            "node",
            &[],
        ),
        other => return Err(format!("Unsupported language: {other}")),
    };
    let runner_name = if language == "python" {
        "runner.py"
    } else {
        "runner.js"
    };
    let write = |name: &str, text: &[u8]| {
        std::fs::write(dir.0.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))
    };
    write(main, code.as_bytes())?;
    write(runner_name, runner.as_bytes())?;
    write(
        "args.json",
        serde_json::to_string(arguments)
            .map_err(|e| e.to_string())?
            .as_bytes(),
    )?;

    let mut command = std::process::Command::new(program);
    command
        .args(flags)
        .arg(runner_name)
        .current_dir(&dir.0)
        .env_clear()
        .env("HOME", &dir.0)
        .env("TMPDIR", &dir.0)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in ["PATH", "PYENV_ROOT", "PYENV_VERSION"] {
        if let Some(v) = std::env::var_os(var) {
            command.env(var, v);
        }
    }
    // SAFETY: `isolate` only makes async-signal-safe system calls.
    unsafe {
        command.pre_exec(isolate(limits));
    }
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| {
        format!(
            "the local sandbox cannot start {program} without network access ({e}); it needs root or CAP_SYS_ADMIN for a network namespace, or use RAGFlow's sandbox executor"
        )
    })?;
    let pid = child.id();
    let kill_group = || {
        if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: kill with the child's process group id (its session leader's pid).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    };
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("the script's output could not be captured".into());
    };
    let work = async {
        let (stdout, stderr) = tokio::join!(
            read_capped(out, limits.output),
            read_capped(err, limits.output)
        );
        (stdout, stderr)
    };
    let ((stdout, over_out), (stderr, over_err)) =
        match tokio::time::timeout(limits.time, work).await {
            Ok(read) => read,
            Err(_) => {
                kill_group();
                let _ = child.wait().await;
                return Ok(failed("Execution timeout"));
            }
        };
    if over_out || over_err {
        kill_group();
        let _ = child.wait().await;
        return Ok(failed(&format!(
            "Output limit exceeded ({} bytes)",
            limits.output
        )));
    }
    let status = match tokio::time::timeout(limits.time, child.wait()).await {
        Ok(Ok(status)) => status,
        Ok(Err(e)) => return Err(format!("the script could not be waited for: {e}")),
        Err(_) => {
            kill_group();
            let _ = child.wait().await;
            return Ok(failed("Execution timeout"));
        }
    };
    kill_group();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => {
            let (stdout, result) = extract_result(&stdout);
            Ok(Executed {
                stdout,
                stderr,
                artifacts: artifacts(&dir.0),
                result,
            })
        }
        // The CPU-time limit (SIGXCPU), or `timeout`'s 124.
        (_, Some(libc::SIGXCPU)) | (Some(124), _) => Ok(failed("Execution timeout")),
        (_, Some(libc::SIGKILL)) | (Some(137), _) => {
            Ok(failed("Memory limit exceeded (killed by OOM)"))
        }
        _ => Ok(failed(&stderr)),
    }
}

/// `_extract_result_envelope`: stdout without the marker line, and the result it carries.
fn extract_result(stdout: &str) -> (String, Option<Json>) {
    let mut lines = Vec::new();
    let mut result = None;
    for line in stdout.lines() {
        if let Some(b64) = line.strip_prefix(MARKER) {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .ok()
                .and_then(|b| serde_json::from_slice::<Json>(&b).ok());
            match decoded {
                Some(envelope) => {
                    if envelope.get("present") == Some(&Json::Bool(true)) {
                        result = Some(envelope.get("value").cloned().unwrap_or(Json::Null));
                    }
                }
                None => lines.push(line),
            }
            continue;
        }
        lines.push(line);
    }
    let mut clean = lines.join("\n");
    if stdout.ends_with('\n') && !clean.is_empty() && !clean.ends_with('\n') {
        clean.push('\n');
    }
    (clean, result)
}

/// `_collect_artifacts`: the allowed files of `artifacts/`, as `{name, mime_type, size,
/// content_b64}`.
fn artifacts(dir: &Path) -> Vec<Json> {
    let Ok(entries) = std::fs::read_dir(dir.join("artifacts")) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    let mut out = Vec::new();
    for path in names.into_iter().take(MAX_ARTIFACTS) {
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        if name.starts_with('.') || !path.is_file() {
            continue;
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let Some((_, mime)) = ARTIFACT_TYPES.iter().find(|(e, _)| *e == ext) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.is_empty() || bytes.len() as u64 > MAX_ARTIFACT_BYTES {
            continue;
        }
        out.push(serde_json::json!({
            "name": name,
            "mime_type": mime,
            "size": bytes.len(),
            "content_b64": base64::engine::general_purpose::STANDARD.encode(&bytes),
        }));
    }
    out
}
