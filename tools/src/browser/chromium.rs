//! Starting and stopping headless Chromium for one run: which executable (RAGFlow's
//! `_resolve_browser_executable`), the flags that keep it from reaching anything but what the
//! guard proxy admits (no background networking, component updates, sync, QUIC, or non-proxied
//! WebRTC), the profile directory, and downloads into the run's directory with their progress
//! tracked from the DevTools events.

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::browser::{
    DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// Where RAGFlow looks for a browser when no variable names one.
const STANDARD_LOCATIONS: &[&str] = &[
    "/opt/chrome/chrome",
    "/usr/local/bin/chrome",
    "/usr/local/bin/google-chrome",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
];
const COMMANDS: &[&str] = &[
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "chromium",
    "chromium-browser",
];

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The Chromium to run: the configured one (`[tools.browser] executable`, or RAGFlow's
/// `BROWSER_USE_*_PATH` variables), which must exist; else the first of RAGFlow's standard
/// locations and commands on `PATH`. The error names the component and the setting.
pub fn executable(component: &str, configured: Option<&str>) -> Result<PathBuf, String> {
    if let Some(path) = configured.map(str::trim).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(path);
        return if is_executable(&p) {
            Ok(p)
        } else {
            Err(format!(
                "Browser `{component}`: the Chromium executable {path:?} set by `executable` ([tools.browser], or BROWSER_USE_EXECUTABLE_PATH) does not exist or cannot be run"
            ))
        };
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    STANDARD_LOCATIONS
        .iter()
        .map(PathBuf::from)
        .chain(
            COMMANDS
                .iter()
                .flat_map(|c| on_path.iter().map(move |d| d.join(c))),
        )
        .find(|p| is_executable(p))
        .ok_or_else(|| {
            format!(
                "Browser `{component}`: no Chromium executable found: install chromium, or set `executable` in [tools.browser] (or BROWSER_USE_EXECUTABLE_PATH) (looked in {} and for {} on PATH)",
                STANDARD_LOCATIONS.join(", "),
                COMMANDS.join(", ")
            )
        })
}

/// How to start Chromium for one run.
pub struct Launch<'a> {
    pub executable: &'a Path,
    pub profile_dir: &'a Path,
    pub download_dir: &'a Path,
    /// `socks5://127.0.0.1:<port>`: the guard proxy every connection goes through.
    pub proxy: &'a str,
    pub headless: bool,
    pub sandbox: bool,
}

/// A running Chromium: the DevTools connection, its event loop, and the downloads it reports.
pub struct Running {
    pub browser: Browser,
    handler: JoinHandle<()>,
    downloads_task: JoinHandle<()>,
    pub downloads: Arc<Mutex<Downloads>>,
}

/// Downloads by guid: the suggested file name and the last state reported.
#[derive(Debug, Default)]
pub struct Downloads {
    pub by_guid: BTreeMap<String, (String, DownloadProgressState)>,
}

impl Downloads {
    fn in_progress(&self) -> usize {
        self.by_guid
            .values()
            .filter(|(_, s)| *s == DownloadProgressState::InProgress)
            .count()
    }
}

/// The flags besides chromiumoxide's defaults (which already disable background networking,
/// sync, the first-run UI and extensions): keep Chromium off the network except through the
/// proxy, loopback included (`<-loopback>` removes Chromium's implicit bypass).
fn flags(l: &Launch<'_>) -> Vec<String> {
    vec![
        "disable-gpu".into(),
        "disable-quic".into(),
        "no-first-run".into(),
        "disable-background-networking".into(),
        "disable-component-update".into(),
        "disable-sync".into(),
        "disable-domain-reliability".into(),
        "no-pings".into(),
        format!("proxy-server={}", l.proxy),
        "proxy-bypass-list=<-loopback>".into(),
        "force-webrtc-ip-handling-policy=disable_non_proxied_udp".into(),
    ]
}

/// Starts Chromium, its DevTools event loop, and downloads into `download_dir`.
pub async fn launch(component: &str, l: &Launch<'_>) -> Result<Running, String> {
    let mut config = BrowserConfig::builder()
        .chrome_executable(l.executable)
        .user_data_dir(l.profile_dir)
        .launch_timeout(Duration::from_secs(30))
        .request_timeout(Duration::from_secs(30))
        .args(flags(l));
    if !l.sandbox {
        config = config.no_sandbox();
    }
    if !l.headless {
        config = config.with_head();
    }
    let config = config
        .build()
        .map_err(|e| format!("Browser `{component}`: Chromium cannot be configured: {e}"))?;
    let (browser, mut handler) = Browser::launch(config).await.map_err(|e| {
        format!(
            "Browser `{component}`: Chromium ({}) did not start: {e}",
            l.executable.display()
        )
    })?;
    let handler = tokio::spawn(async move {
        while let Some(event) = handler.next().await {
            if event.is_err() {
                // A message Chromium sent that chromiumoxide cannot read: keep going; the
                // connection's end ends the stream.
                continue;
            }
        }
    });
    let downloads = Arc::new(Mutex::new(Downloads::default()));
    let mut running = Running {
        browser,
        handler,
        downloads_task: tokio::spawn(async {}),
        downloads: Arc::clone(&downloads),
    };
    let started = async {
        let mut begins = running.browser.event_listener::<EventDownloadWillBegin>().await?;
        let mut progress = running.browser.event_listener::<EventDownloadProgress>().await?;
        running
            .browser
            .execute(
                SetDownloadBehaviorParams::builder()
                    .behavior(SetDownloadBehaviorBehavior::Allow)
                    .download_path(l.download_dir.to_string_lossy().into_owned())
                    .events_enabled(true)
                    .build()?,
            )
            .await?;
        let log = Arc::clone(&downloads);
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(b) = begins.next() => {
                        lock(&log).by_guid.insert(
                            b.guid.clone(),
                            (b.suggested_filename.clone(), DownloadProgressState::InProgress),
                        );
                    }
                    Some(p) = progress.next() => {
                        let mut d = lock(&log);
                        let entry = d.by_guid.entry(p.guid.clone()).or_insert_with(|| (String::new(), DownloadProgressState::InProgress));
                        entry.1 = p.state.clone();
                    }
                    else => break,
                }
            }
        }))
    }
    .await;
    match started {
        Ok(task) => {
            running.downloads_task = task;
            Ok(running)
        }
        Err(e) => {
            running.close().await;
            Err(format!(
                "Browser `{component}`: Chromium's downloads cannot be set up: {e}"
            ))
        }
    }
}

fn lock(m: &Mutex<Downloads>) -> std::sync::MutexGuard<'_, Downloads> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether a file in the download directory is a finished download (not Chromium's partial
/// `.crdownload`).
fn finished(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("crdownload"))
}

impl Running {
    /// Waits until no download is in progress (DevTools' view, and no partial file left), at
    /// most `limit`.
    pub async fn settle_downloads(&self, dir: &Path, limit: Duration) {
        let deadline = Instant::now() + limit;
        // A download a click started is reported a moment after the click returns.
        tokio::time::sleep(Duration::from_millis(500)).await;
        loop {
            let partial = std::fs::read_dir(dir)
                .map(|it| {
                    it.flatten()
                        .any(|e| e.path().is_file() && !finished(&e.path()))
                })
                .unwrap_or(false);
            if lock(&self.downloads).in_progress() == 0 && !partial {
                return;
            }
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Closes Chromium (and kills it if it does not exit), then stops the event loops.
    pub async fn close(mut self) {
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            let _ = self.browser.close().await;
            let _ = self.browser.wait().await;
        })
        .await;
        if closed.is_err() {
            let _ = self.browser.kill().await;
        }
        self.downloads_task.abort();
        self.handler.abort();
    }
}

/// The finished downloads in `dir` (depth-first, sorted by path for a stable order).
pub fn downloaded_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if finished(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
