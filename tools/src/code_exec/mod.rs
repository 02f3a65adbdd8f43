//! CodeExec (tools.md §4, `agent/tools/code_exec.py`): runs a Python or JavaScript `main`
//! in RAGFlow's sandbox executor and checks what it returns against the node's declared
//! output.
//!
//! The executor is RAGFlow's self-managed provider contract: `POST <endpoint>/run` with
//! `{"code_b64", "language", "arguments"}`, answered by `{stdout, stderr, exit_code, artifacts,
//! result: {present, value, type}, …}`. The endpoint is configuration (`[tools.sandbox]
//! base_url`, `RAGFLOW_TOOL_SANDBOX_BASE_URL`; RAGFlow's default
//! `http://sandbox-executor-manager:9385`), not something a canvas names.
//!
//! For development, `[tools.sandbox] backend = "local"` runs the script in a local subprocess
//! instead (`local.rs`), with the executor's runner, limits and answers.
//!
//! canvasc has no artifact store yet: files a script produces are reported the way RAGFlow
//! reports artifacts it could neither store nor parse (`Artifact generated but parse failed.`).

pub mod contract;
pub mod local;

use crate::config::ToolsConfig;
use base64::Engine;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::consume;
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "sandbox";
const DEFAULT_ENDPOINT: &str = "http://sandbox-executor-manager:9385";
/// `COMPONENT_EXEC_TIMEOUT`'s default for CodeExec (10 minutes).
const DEFAULT_TIMEOUT: u64 = 600;

pub struct CodeExec {
    config: Arc<ToolsConfig>,
}

impl CodeExec {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        CodeExec { config }
    }
}

/// The outputs set so far, mirrored into the node or the Agent's tool call.
struct Outputs<'c, 'a> {
    cx: &'c ToolCx<'a>,
    all: Map<String, Json>,
}

impl Outputs<'_, '_> {
    fn set(&mut self, key: &str, v: Json) {
        self.cx.set_output(key, v.clone());
        self.all.insert(key.to_string(), v);
    }

    /// `self.output()`.
    fn done(self) -> Json {
        Json::Object(self.all)
    }
}

/// What the executor answered.
pub struct Executed {
    pub stdout: String,
    pub stderr: String,
    pub artifacts: Vec<Json>,
    /// `result.value` when `result.present` is true.
    pub result: Option<Json>,
}

/// How a call to the executor failed, in RAGFlow's words.
enum Failed {
    /// `RuntimeError` of the provider.
    Provider(String),
    /// Any other exception (the request could not be made, a timeout).
    Request(String),
}

/// The sandbox's language name (`_normalize_language`).
fn language(lang: &str) -> Option<&'static str> {
    match lang.to_lowercase().as_str() {
        "python" | "python3" => Some("python"),
        "javascript" | "nodejs" => Some("nodejs"),
        _ => None,
    }
}

impl CodeExec {
    /// The configured backend: RAGFlow's sandbox executor, or the local subprocess.
    async fn run_code(
        &self,
        cx: &ToolCx<'_>,
        lang: &str,
        code: &str,
        arguments: Map<String, Json>,
        timeout: u64,
    ) -> Result<Executed, Failed> {
        if !self.config.local_backend(SERVICE) {
            return self.run_sandbox(cx, lang, code, arguments, timeout).await;
        }
        let language = language(lang)
            .ok_or_else(|| Failed::Request(format!("Unsupported language: {lang}")))?;
        let limits = local::Limits {
            // The executor's own limit (`SANDBOX_TIMEOUT`, 10 s) within the component's.
            time: Duration::from_secs(timeout.clamp(1, 10)),
            ..local::Limits::default()
        };
        local::run(language, code, &arguments, limits)
            .await
            .map_err(Failed::Provider)
    }

    async fn run_sandbox(
        &self,
        cx: &ToolCx<'_>,
        lang: &str,
        code: &str,
        arguments: Map<String, Json>,
        timeout: u64,
    ) -> Result<Executed, Failed> {
        let language = language(lang)
            .ok_or_else(|| Failed::Request(format!("Unsupported language: {lang}")))?;
        let body = serde_json::json!({
            "code_b64": base64::engine::general_purpose::STANDARD.encode(code.as_bytes()),
            "language": language,
            "arguments": arguments,
        });
        let url = format!("{}/run", self.config.base_url(SERVICE, DEFAULT_ENDPOINT));
        let sent = cx
            .http()
            .post(&url)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .timeout(Duration::from_secs(timeout))
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(Failed::Request(format!(
                    "Execution timed out after {timeout} seconds"
                )))
            }
            Err(e) => return Err(Failed::Provider(format!("HTTP request failed: {e}"))),
        };
        let status = resp.status();
        let text = resp
            .text()
            .await
            .map_err(|e| Failed::Provider(format!("HTTP request failed: {e}")))?;
        if status.as_u16() != 200 {
            return Err(Failed::Provider(format!(
                "HTTP {}: {text}",
                status.as_u16()
            )));
        }
        let answer: Json = serde_json::from_str(&text)
            .map_err(|e| Failed::Provider(format!("HTTP request failed: {e}")))?;
        let field = |k: &str| match answer.get(k) {
            Some(Json::String(s)) => s.clone(),
            Some(Json::Null) | None => String::new(),
            Some(other) => py::str_of(other),
        };
        let result = answer.get("result").filter(|r| r.is_object());
        let present = result.and_then(|r| r.get("present")) == Some(&Json::Bool(true));
        Ok(Executed {
            stdout: field("stdout"),
            stderr: field("stderr"),
            artifacts: answer
                .get("artifacts")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default(),
            result: present.then(|| {
                result
                    .and_then(|r| r.get("value"))
                    .cloned()
                    .unwrap_or(Json::Null)
            }),
        })
    }
}

/// `_deserialize_stdout`: JSON, else a Python literal, else the trimmed text.
pub fn deserialize_stdout(stdout: &str) -> Json {
    let text = stdout.trim();
    if text.is_empty() {
        return Json::String(String::new());
    }
    if let Ok(v) = serde_json::from_str::<Json>(text) {
        return v;
    }
    if let Ok(v) = py::literal_eval(text) {
        return v;
    }
    Json::String(text.to_string())
}

/// `_normalize_attachment_type(name, mime_type)`.
fn attachment_type(name: &str, mime: &str) -> String {
    let mime = mime.trim().to_lowercase();
    if mime.starts_with("image/") {
        return "image".into();
    }
    match mime.as_str() {
        "application/pdf" => return "pdf".into(),
        "text/csv" => return "csv".into(),
        "application/json" => return "json".into(),
        "text/html" => return "html".into(),
        _ => {}
    }
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.trim_start_matches('.').rfind('.') {
        Some(_) => base
            .rsplit('.')
            .next()
            .map(str::to_lowercase)
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| "file".into()),
        None => "file".into(),
    }
}

/// `_process_execution_result`.
fn process(out: &mut Outputs<'_, '_>, outputs: &Map<String, Json>, ex: Executed) {
    let structured = ex.result.is_some();
    let value = ex.result.unwrap_or_else(|| deserialize_stdout(&ex.stdout));
    if !ex.stderr.is_empty()
        && !structured
        && ex.artifacts.is_empty()
        && ex.stdout.trim().is_empty()
    {
        out.set("_ERROR", Json::String(ex.stderr));
        return;
    }
    out.set("_ERROR", Json::String(String::new()));
    out.set("raw_result", value.clone());
    let mut parts = Vec::new();
    let base = match contract::build(outputs, &value) {
        Ok(c) => {
            out.set("actual_type", Json::String(c.actual_type));
            out.set(&c.business_output, value.clone());
            c.content
        }
        Err(e) => {
            for name in outputs.keys() {
                if !contract::SYSTEM_OUTPUTS.contains(&name.as_str()) {
                    out.set(name, Json::Null);
                }
            }
            out.set("actual_type", Json::String(contract::actual_type(&value)));
            out.set("_ERROR", Json::String(e));
            contract::content(&value)
        }
    };
    if !base.is_empty() {
        parts.push(base);
    }
    if ex.artifacts.is_empty() {
        out.set("_ARTIFACTS", Json::Null);
        out.set("_ATTACHMENT_CONTENT", Json::String(String::new()));
        out.set("attachments", Json::Array(Vec::new()));
    } else {
        let text = |a: &Json, k: &str| a.get(k).map(py::str_of).unwrap_or_default();
        let sections: Vec<String> = ex
            .artifacts
            .iter()
            .filter(|a| !text(a, "name").is_empty() && !text(a, "content_b64").is_empty())
            .enumerate()
            .map(|(i, a)| {
                let name = text(a, "name");
                format!(
                    "attachment{} ({}): {name}\nArtifact generated but parse failed.",
                    i + 1,
                    attachment_type(&name, &text(a, "mime_type"))
                )
            })
            .collect();
        let attachment = if sections.is_empty() {
            "attachment_count: 0".to_string()
        } else {
            format!(
                "attachment_count: {}\n\n{}",
                sections.len(),
                sections.join("\n\n")
            )
        };
        out.set("_ARTIFACTS", Json::Null);
        out.set("_ATTACHMENT_CONTENT", Json::String(attachment.clone()));
        out.set("attachments", Json::Array(Vec::new()));
        parts.push(attachment);
    }
    out.set(
        "content",
        Json::String(parts.join("\n\n").trim().to_string()),
    );
}

impl External for CodeExec {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let pick = |k: &str| match args.get(k).or_else(|| cx.param(k)) {
                Some(Json::String(s)) => s.clone(),
                Some(Json::Null) | None => String::new(),
                Some(other) => py::str_of(other),
            };
            let (lang, script) = (pick("lang"), pick("script"));
            let mut arguments = Map::new();
            if let Some(Json::Object(declared)) = cx.param("arguments") {
                for (k, reference) in declared {
                    if let Some(v) = args.get(k).filter(|v| py::truthy(v)) {
                        arguments.insert(k.clone(), v.clone());
                        continue;
                    }
                    let v = match reference {
                        Json::String(r) if !r.is_empty() => consume(cx.value(r)?).await?,
                        _ => Json::Null,
                    };
                    arguments.insert(k.clone(), v);
                }
            }
            let outputs = match cx.param("outputs") {
                Some(Json::Object(o)) => o.clone(),
                _ => Map::new(),
            };
            let mut out = Outputs {
                cx,
                all: cx.tool_outputs(),
            };
            let timeout = cx
                .settings()
                .component_exec_timeout
                .unwrap_or(DEFAULT_TIMEOUT);
            match self.run_code(cx, &lang, &script, arguments, timeout).await {
                _ if cx.check_canceled() => return Ok(Json::Null),
                Ok(ex) => process(&mut out, &outputs, ex),
                Err(Failed::Provider(e)) => out.set(
                    "_ERROR",
                    Json::String(format!("Provider system execution failed: {e}")),
                ),
                Err(Failed::Request(e)) => out.set(
                    "_ERROR",
                    Json::String(format!("construct code request error: {e}")),
                ),
            }
            Ok(out.done())
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        Some("Running a short script to process data.".into())
    }
}
