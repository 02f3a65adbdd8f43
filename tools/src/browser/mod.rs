//! Browser (components.md §14, `agent/component/browser.py`): an LLM-driven browser agent.
//! RAGFlow drives the `browser-use` library; canvasc drives headless Chromium over the DevTools
//! protocol (chromiumoxide) with its own agent loop in browser-use's shape (`agent.rs`).
//!
//! One run: the task text from `prompts`; upload sources made local files (`sources.rs`);
//! Chromium started with a fresh profile, or the node's persistent one (`persist_session`),
//! every connection it makes going through the SSRF guard (`guard_proxy.rs`); the agent for at
//! most `max_steps`; the files it downloaded stored in the file store and listed in
//! `downloaded_files`; `content` the agent's final result. Any failure is `_ERROR`, with the
//! outputs set so far, as RAGFlow catches it inside the body.
//!
//! Differences from RAGFlow: `enable_default_extensions` loads nothing (browser-use downloads
//! its extensions at run time; canvasc's machines are offline), and the model is called
//! through canvasc's model provider rather than browser-use's adapters, so `bu-*` models are
//! not offered.

pub mod actions;
pub mod agent;
pub mod chromium;
pub mod dom;
pub mod files;
pub mod guard_proxy;
pub mod params;
pub mod sources;

use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::{consume, string_format, Template};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use files::FileTarget;
use futures::future::BoxFuture;
use params::Params;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The Browser component.
#[derive(Debug)]
pub struct Browser {
    config: Arc<ToolsConfig>,
    files: Option<FileTarget>,
}

impl Browser {
    /// Downloads go to `files` (and upload file ids are read from it); without one a run that
    /// downloads fails, as RAGFlow's does without the tenant's root folder.
    pub fn new(config: Arc<ToolsConfig>, files: Option<FileTarget>) -> Self {
        Browser { config, files }
    }
}

impl External for Browser {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        _args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if let Err(e) = self.run(cx).await {
                cx.set_output("_ERROR", Json::String(e));
            }
            Ok(Json::Null)
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        Some("Planning and executing browser actions...".into())
    }
}

/// A directory removed when dropped (the run's upload and download directories, a throw-away
/// profile).
struct TempDir(PathBuf);

impl TempDir {
    fn new(prefix: &str) -> Result<TempDir, String> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let dir = std::env::temp_dir().join(format!("{prefix}{id}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot make the directory {}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `_safe_path_segment`: runs of anything but letters, digits, `.`, `_`, `-` become `_`, and
/// the edges are trimmed of those three; `unknown` when nothing is left.
pub fn safe_segment(value: &str) -> String {
    static UNSAFE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[^A-Za-z0-9._-]+").expect("static regex"));
    let replaced = UNSAFE.replace_all(value.trim(), "_");
    let trimmed = replaced.trim_matches(|c| matches!(c, '.' | '_' | '-'));
    if trimmed.is_empty() {
        "unknown".into()
    } else {
        trimmed.to_string()
    }
}

impl Browser {
    async fn run(&self, cx: &ToolCx<'_>) -> Result<(), String> {
        let component = cx.name().to_string();
        let p = Params::read(cx.params());
        record_inputs(cx, &p).await;
        let task = resolve_text(cx, &p.prompts).await;
        let upload_dir = TempDir::new("browser_use_upload_")?;
        let download_dir = TempDir::new("browser_use_download_")?;
        let max_bytes = sources::max_bytes_from(self.config.browser_upload_max_bytes());
        let uploads = sources::prepare(
            cx,
            &p.upload_sources,
            &upload_dir.0,
            self.files.as_ref(),
            max_bytes,
        )
        .await;
        let mut task_text = task;
        if !uploads.is_empty() {
            task_text.push_str(
                "\n\nYou can upload files from these local paths when operating web pages:\n",
            );
            let lines: Vec<String> = uploads
                .iter()
                .map(|u| {
                    format!(
                        "- file_id={}, name={}, local_path={}",
                        u.file_id,
                        u.name,
                        u.local_path.display()
                    )
                })
                .collect();
            task_text.push_str(&lines.join("\n"));
        }
        let upload_paths: Vec<PathBuf> = uploads.iter().map(|u| u.local_path.clone()).collect();
        let executable = chromium::executable(&component, self.config.executable("browser"))?;
        // The profile: the node's own across runs, or one for this run only.
        let (profile, _throwaway) = if p.persist_session {
            let dir = self.profile_dir(cx);
            std::fs::create_dir_all(&dir).map_err(|e| {
                format!(
                    "Browser `{component}`: cannot make the profile directory {}: {e}",
                    dir.display()
                )
            })?;
            (dir, None)
        } else {
            let t = TempDir::new("browser_use_profile_")?;
            (t.0.clone(), Some(t))
        };
        let llm = cx
            .llm()
            .cloned()
            .ok_or_else(|| format!("Browser `{component}`: no model provider is configured"))?;
        let guard = cx.guard();
        let proxy = guard_proxy::GuardProxy::start(guard.clone())
            .await
            .map_err(|e| format!("Browser `{component}`: the guard proxy cannot listen: {e}"))?;
        let proxy_url = proxy.url();
        let running = chromium::launch(
            &component,
            &chromium::Launch {
                executable: &executable,
                profile_dir: &profile,
                download_dir: &download_dir.0,
                proxy: &proxy_url,
                headless: p.headless,
                sandbox: p.chromium_sandbox,
            },
        )
        .await?;
        let mut gen_conf = Map::new();
        if let Some(t) = p.temperature {
            gen_conf.insert("temperature".into(), Json::from(t));
        }
        let canceled = || cx.is_canceled();
        let outcome = agent::Agent {
            component: &component,
            llm: llm.as_ref(),
            llm_id: &p.llm_id,
            gen_conf,
            max_retries: p.max_retries,
            task: &task_text,
            max_steps: p.max_steps,
            uploads: &upload_paths,
            guard: &guard,
            proxy: &proxy,
            running: &running,
            download_dir: &download_dir.0,
            is_canceled: &canceled,
        }
        .run()
        .await;
        running.close().await;
        let result = outcome?;
        let downloaded = self.save_downloads(cx, &component, &download_dir.0).await?;
        cx.set_output("content", Json::String(result.unwrap_or_default()));
        cx.set_output("downloaded_files", Json::Array(downloaded));
        Ok(())
    }

    /// `_resolve_persistent_profile_dir`: `<temp>/ragflow_browser_use_profiles/<tenant>/<canvas
    /// id>/<node id>` (the canvas id, else `dsl_` and a hash of the node's place in the graph).
    fn profile_dir(&self, cx: &ToolCx<'_>) -> PathBuf {
        let labels = cx.run_labels();
        let tenant = safe_segment(cx.tenant_id().unwrap_or(""));
        let canvas = match labels.canvas_id.as_deref() {
            Some(id) if !id.is_empty() => safe_segment(id),
            _ => {
                use sha1::Digest;
                let seed = format!(
                    "{}\n{}",
                    cx.name(),
                    labels.fingerprint.as_deref().unwrap_or("")
                );
                let digest = sha1::Sha1::digest(seed.as_bytes());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                format!("dsl_{}", &hex[..12])
            }
        };
        std::env::temp_dir()
            .join("ragflow_browser_use_profiles")
            .join(tenant)
            .join(canvas)
            .join(safe_segment(cx.name()))
    }

    /// `_save_downloads`: each finished download stored under a new id in the run's bucket
    /// (RAGFlow's tenant root folder) and listed as `{file_id, name, size, parent_id}`.
    async fn save_downloads(
        &self,
        cx: &ToolCx<'_>,
        component: &str,
        dir: &Path,
    ) -> Result<Vec<Json>, String> {
        let paths = chromium::downloaded_files(dir);
        let mut out = Vec::new();
        let mut names = std::collections::HashSet::new();
        for path in paths {
            let Ok(blob) = tokio::fs::read(&path).await else {
                continue;
            };
            if blob.is_empty() {
                continue;
            }
            let Some(target) = &self.files else {
                return Err(format!(
                    "Browser `{component}`: downloaded files cannot be stored: no file store is configured"
                ));
            };
            let bucket = target.bucket(cx.tenant_id()).to_string();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = duplicate_name(&name, &mut names);
            let file_id = uuid::Uuid::new_v4().simple().to_string();
            let size = blob.len();
            if let Err(e) = target.files.put(&bucket, &file_id, blob).await {
                tracing::error!(error = %e, "Browser failed to save a download");
                continue;
            }
            let mut entry = Map::new();
            entry.insert("file_id".into(), Json::String(file_id));
            entry.insert("name".into(), Json::String(name));
            entry.insert("size".into(), Json::from(size));
            entry.insert("parent_id".into(), Json::String(bucket));
            out.push(Json::Object(entry));
        }
        Ok(out)
    }
}

/// `duplicate_name`: `name`, or `name(1)`, `name(2)`, … before the extension when taken.
fn duplicate_name(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    let mut candidate = name.to_string();
    let mut n = 0;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{stem}({n}){ext}");
    }
    taken.insert(candidate.clone());
    candidate
}

/// A reference's value as the Browser writes it into text: strings as they are, anything
/// else `json.dumps`'d (`None` included, as `null`).
async fn rendered(cx: &ToolCx<'_>, tpl: &Template, i: usize) -> String {
    match cx.value(&tpl.exprs()[i]) {
        Ok(v) => match consume(v).await {
            Ok(Json::String(s)) => s,
            Ok(other) => py::json_dumps(&other),
            Err(_) => "null".into(),
        },
        Err(_) => "null".into(),
    }
}

/// `_prepare_input_values`: every reference in `prompts` and in `json.dumps(upload_sources)`
/// recorded as an input value (strings as is, `None` as `""`, others `json.dumps`).
async fn record_inputs(cx: &ToolCx<'_>, p: &Params) {
    let text = format!("{}\n{}", p.prompts, py::json_dumps(&p.upload_sources));
    let tpl = Template::new(text);
    let mut done = std::collections::HashSet::new();
    for (_, i) in tpl.matches() {
        let key = tpl.exprs()[*i].clone();
        if !done.insert(key.clone()) {
            continue;
        }
        let value = match cx.value(&tpl.exprs()[*i]) {
            Ok(v) => consume(v).await.unwrap_or(Json::Null),
            Err(_) => Json::Null,
        };
        let shown = match value {
            Json::Null => String::new(),
            Json::String(s) => s,
            other => py::json_dumps(&other),
        };
        cx.set_input_value(&key, Json::String(shown));
    }
}

/// `_resolve_text(prompts)`: a whole-string reference read first, then every reference
/// replaced (`string_format`).
async fn resolve_text(cx: &ToolCx<'_>, prompts: &str) -> String {
    let whole = Template::new(prompts.trim());
    let text = match whole.matches() {
        [(span, i)] if span.start == 0 && span.end == prompts.trim().len() => {
            match cx.value(&whole.exprs()[*i]) {
                Ok(v) => match consume(v).await {
                    Ok(Json::Null) => String::new(),
                    Ok(v) => py::str_of(&v),
                    Err(_) => prompts.to_string(),
                },
                Err(_) => prompts.to_string(),
            }
        }
        _ => prompts.to_string(),
    };
    let tpl = Template::new(text.clone());
    let mut kv: Vec<(String, Json)> = Vec::new();
    for (_, i) in tpl.matches() {
        let key = tpl.exprs()[*i].clone();
        if kv.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let value = rendered(cx, &tpl, *i).await;
        kv.push((key, Json::String(value)));
    }
    string_format(&text, &kv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_ragflow_makes_them() {
        assert_eq!(safe_segment(" a b/c "), "a_b_c");
        assert_eq!(safe_segment("..."), "unknown");
        assert_eq!(safe_segment("Browser:Zero"), "Browser_Zero");
        let mut taken = std::collections::HashSet::new();
        assert_eq!(duplicate_name("r.csv", &mut taken), "r.csv");
        assert_eq!(duplicate_name("r.csv", &mut taken), "r(1).csv");
        assert_eq!(duplicate_name("r", &mut taken), "r");
        assert_eq!(duplicate_name("r", &mut taken), "r(1)");
    }
}
