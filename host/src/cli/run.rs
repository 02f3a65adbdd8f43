//! `canvasc run FILE`: run a canvas with the interpreter (drafts), one turn per invocation.

use super::run_log::RunLog;
use crate::services;
use canvasc_engine::events::Event;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::{CancelFlag, Program, RunInput, RunOutcome, Services, Session, CANCELED};
use canvasc_frontend::{analyze_loaded, load_str, Analysis, Loaded, Severity};
use canvasc_value::{py, Json, Map};
use clap::{Args as ClapArgs, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One event per line, exactly as the HTTP stream carries it.
    Jsonl,
    /// A readable live timeline.
    Pretty,
}

#[derive(ClapArgs, Clone)]
pub struct Args {
    /// The canvas (any form).
    pub file: PathBuf,
    /// The user's message (`sys.query`).
    #[arg(long)]
    pub query: Option<String>,
    /// Form inputs as JSON: `{"field": {"value": …}}` (or `{"field": value}`).
    #[arg(long)]
    pub inputs: Option<String>,
    /// Session state: loaded when the file exists (continuing the conversation or a paused
    /// UserFillUp) and written after the turn.
    #[arg(long)]
    pub state: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    pub format: Format,
    /// Answer every LLM call from this script (scripted-llm.md), whatever the `llm_id`; the
    /// configuration's models are then not used.
    #[arg(long)]
    pub llm_script: Option<PathBuf>,
    /// The configuration (`llm_id` → OpenAI-compatible endpoint, MCP servers); default
    /// `$CANVASC_CONFIG`, else `./canvasc.toml` when present, else the environment alone.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A run header `NAME=VALUE` (RAGFlow's `custom_header`), sent to MCP servers; repeatable.
    #[arg(long = "custom-header", value_name = "NAME=VALUE")]
    pub custom_header: Vec<String>,
    /// Seed Python's `random` (which Message alternative is picked) for reproducible runs.
    #[arg(long)]
    pub seed: Option<u64>,
    /// `sys.user_id`.
    #[arg(long)]
    pub user_id: Option<String>,
    /// Refuse to run (exit 2) when a Begin field that is not optional has no value; by default
    /// the run goes ahead with a warning, as RAGFlow runs it (the field reads as empty).
    #[arg(long)]
    pub require_inputs: bool,
    /// `sys.chat_template_kwargs` as JSON (e.g. `{"enable_thinking": false}`): sent with LLM
    /// requests to servers that read it (vLLM, SGLang).
    #[arg(long)]
    pub chat_template_kwargs: Option<String>,
    /// End the turn with an error after this many component invocations (0: no limit), so a
    /// canvas that cycles without a Loop stops; RAGFlow has no such limit.
    #[arg(long, env = "CANVASC_MAX_STEPS", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Run a Webhook-mode canvas on this request, as `canvasc serve` runs it for an HTTP
    /// request to its webhook: a JSON file `{"query": {…}, "headers": {…}, "body": …}`,
    /// validated by the Begin's schema into its `query`, `headers` and `body` outputs.
    #[arg(long, value_name = "FILE")]
    pub webhook_payload: Option<PathBuf>,
    /// Draw the run as an SVG timeline into this file: one lane per component, batches,
    /// durations, the path taken, failures and pauses.
    #[arg(long, value_name = "FILE.svg")]
    pub timeline: Option<PathBuf>,
}

/// Far more invocations than a working canvas makes in one turn, and a fraction of a second
/// for a runaway one.
pub const DEFAULT_MAX_STEPS: usize = 10_000;

pub(crate) fn fail(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}

/// Everything a run needs besides the program: parsed arguments and services.
pub struct Prepared {
    pub input: RunInput,
    pub services: Services,
    pub saved: Option<Map<String, Json>>,
}

/// Parse the arguments every back-end shares (`canvasc run` and built binaries).
pub fn prepare(args: &Args) -> Result<Prepared, String> {
    let inputs = match &args.inputs {
        None => None,
        Some(text) => {
            let v: Json =
                serde_json::from_str(text).map_err(|e| format!("--inputs is not JSON: {e}"))?;
            if !v.is_object() {
                return Err("--inputs must be a JSON object of form fields".into());
            }
            Some(v)
        }
    };
    let script = match &args.llm_script {
        Some(path) => Some(super::llm_script::load(path)?),
        None => None,
    };
    let mut services =
        services::assemble(script, args.config.as_deref()).map_err(|e| e.to_string())?;
    services.settings.step_limit = (args.max_steps > 0).then_some(args.max_steps);
    services.custom_header = args
        .custom_header
        .iter()
        .map(|h| match h.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.to_string())),
            _ => Err(format!("--custom-header `{h}` is not NAME=VALUE")),
        })
        .collect::<Result<Vec<_>, _>>()?
        .into();
    let saved = match &args.state {
        Some(p) => super::state_file::read(p)?,
        None => None,
    };
    Ok(Prepared {
        input: RunInput {
            query: Some(Json::String(args.query.clone().unwrap_or_default())),
            user_id: args.user_id.clone().map(Json::String),
            files: Vec::new(),
            inputs: Some(inputs.unwrap_or_else(|| Json::Object(Map::new()))),
            chat_template_kwargs: match &args.chat_template_kwargs {
                None => None,
                Some(text) => Some(
                    serde_json::from_str(text)
                        .map_err(|e| format!("--chat-template-kwargs is not JSON: {e}"))?,
                ),
            },
            webhook_payload: None,
        },
        services,
        saved,
    })
}

pub fn run(args: Args) -> ExitCode {
    let analysis = match load(&args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let prepared = match prepare(&args) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let program = Arc::new(Interpreter::from_analysis(&analysis));
    execute(program, analysis.document.dsl.clone(), prepared, &args)
}

/// Read and analyse the canvas; a canvas with checker errors still runs (as a draft), with a
/// warning.
pub(crate) fn load(args: &Args) -> Result<Analysis, ExitCode> {
    read(args).map(|loaded| analyse(args, loaded))
}

/// Read and load the canvas, without lowering or checking it (a built binary needs no more to
/// find its compiled program).
pub(crate) fn read(args: &Args) -> Result<Loaded, ExitCode> {
    let name = args.file.display().to_string();
    let text = super::read_file(&args.file).map_err(fail)?;
    load_str(&text).map_err(|e| fail(format!("{name}: {e}")))
}

/// Lower and check a loaded canvas, warning when it runs as a draft.
pub(crate) fn analyse(args: &Args, loaded: Loaded) -> Analysis {
    let analysis = analyze_loaded(loaded);
    let errors = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    warn_draft(args, errors);
    analysis
}

/// The warning a canvas with checker errors runs with.
pub(crate) fn warn_draft(args: &Args, errors: usize) {
    if errors > 0 {
        let name = args.file.display();
        errln!("warning: {name} has {errors} checker error(s); running it as a draft (see `canvasc check {name}`)");
    }
}

/// Run one turn of any program and print it; shared with built binaries.
pub fn execute<P: Program>(
    program: Arc<P>,
    dsl: Map<String, Json>,
    mut prepared: Prepared,
    args: &Args,
) -> ExitCode {
    if let Some(path) = &args.webhook_payload {
        match super::webhook_payload::from_file(path, &args.file) {
            // A webhook's run has no form inputs, as the server runs it.
            Ok(payload) => {
                prepared.input.webhook_payload = Some(payload);
                prepared.input.inputs = None;
                prepared.input.query = Some(Json::String(String::new()));
            }
            Err(e) => return fail(e),
        }
    }
    // Flushed when this function returns (every path), or by `flush` on a second Ctrl-C.
    let _telemetry = crate::telemetry::init_from(args.config.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(format!("cannot start the async runtime: {e}")),
    };
    let resuming = prepared.saved.as_ref().is_some_and(|saved| {
        saved
            .get("path")
            .and_then(|p| p.get(0))
            .and_then(Json::as_str)
            .is_some_and(|id| id.to_lowercase().contains("userfillup"))
    });
    if !resuming {
        let missing = missing_required_inputs(program.meta(), &prepared.input);
        if !missing.is_empty() {
            let names = missing.join(", ");
            if args.require_inputs {
                return fail(format!(
                    "missing required Begin input {names}: pass it with --inputs '{{\"{}\": {{\"value\": …}}}}'",
                    missing_key(&missing[0])
                ));
            }
            let (it, reads) = if missing.len() == 1 {
                ("it", "it reads")
            } else {
                ("them", "they read")
            };
            errln!(
                "warning: missing required Begin input {names}; running without {it}, as RAGFlow \
                 does ({reads} as empty; --require-inputs refuses instead)"
            );
        }
    }
    let rng = Arc::new(std::sync::Mutex::new(
        args.seed
            .map_or_else(PyRandom::from_entropy, PyRandom::seeded),
    ));
    let Prepared {
        input,
        mut services,
        saved,
    } = prepared;
    services.run_labels.canvas_id = Some(args.file.display().to_string().into());
    if tracing::enabled!(target: "canvasc", tracing::Level::INFO) {
        if let Ok(loaded) = canvasc_frontend::load_value(Json::Object(dsl.clone())) {
            let fp = canvasc_frontend::fingerprint::fingerprint(&loaded.document);
            services.run_labels.fingerprint = Some(fp.into());
        }
    }
    let fresh = saved.is_none();
    let session = Session::new(program, saved.unwrap_or(dsl), services, rng, fresh);
    let cancel = session.cancel_flag();
    let format = args.format;
    let mut printer = Printer::new(format);
    let mut log = RunLog::default();
    // Listening before the run starts: a Ctrl-C at its first instant must not meet the
    // default handler, which would end the process without the cancellation events. The
    // listener lives until the process ends: a second Ctrl-C must end a shutdown that hangs.
    let listener = {
        let _inside = runtime.enter();
        Interrupts::listen()
    };
    runtime.spawn(listener.serve(cancel.clone()));
    let outcome = runtime.block_on(async {
        let mut sink = |ev: Event| {
            let json = ev.to_json();
            printer.event(&json);
            log.record(&json);
        };
        session.run(input, &mut sink).await
    });
    let mut printer = Printer::new(format);
    if let RunOutcome::Aborted(e) = &outcome {
        printer.abort(&e.to_string());
    }
    let mut code: u8 = match &outcome {
        _ if cancel.is_canceled() => super::EXIT_CANCELED,
        RunOutcome::Canceled => super::EXIT_CANCELED,
        RunOutcome::Finished | RunOutcome::Paused => 0,
        RunOutcome::Failed(e) => {
            errln!("error: the run stopped: {e}");
            1
        }
        RunOutcome::Aborted(_) => 1,
    };
    if cancel.is_canceled() || matches!(outcome, RunOutcome::Canceled) {
        errln!(
            "canceled: the run ended with RAGFlow's cancellation (exit {})",
            super::EXIT_CANCELED
        );
    } else {
        let mut failures = log.failures();
        let more = super::run_log::state_failures(&session.save(), &failures);
        failures.extend(more);
        for f in &failures {
            errln!("failed: {f}");
        }
        if !failures.is_empty() && code == 0 {
            code = super::EXIT_FAILED_CALLS;
        }
    }
    if let Some(path) = &args.state {
        if let Err(e) = super::state_file::write(path, session.save()) {
            return fail(e);
        }
    }
    if let Some(path) = &args.timeline {
        let title = args.file.display().to_string();
        if let Err(e) = std::fs::write(path, super::timeline::svg(&log, &title)) {
            return fail(format!("cannot write the timeline {}: {e}", path.display()));
        }
    }
    // A call that ignores cancellation (a DNS lookup on a blocking thread) must not hold the
    // process: the run is over, its output written.
    runtime.shutdown_background();
    ExitCode::from(code)
}

/// Ctrl-C: the first cancels the run (it ends at once, with RAGFlow's cancellation events),
/// the second ends the process on the spot.
struct Interrupts {
    /// SIGINT, registered when made (tokio's `ctrl_c()` registers only when first polled).
    #[cfg(unix)]
    sigint: Option<tokio::signal::unix::Signal>,
}

impl Interrupts {
    /// Must be called inside the runtime.
    fn listen() -> Self {
        Interrupts {
            #[cfg(unix)]
            sigint: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok(),
        }
    }

    /// The next Ctrl-C; `false` when none can be heard.
    async fn next(&mut self) -> bool {
        #[cfg(unix)]
        if let Some(sigint) = &mut self.sigint {
            return sigint.recv().await.is_some();
        }
        tokio::signal::ctrl_c().await.is_ok()
    }

    async fn serve(mut self, cancel: CancelFlag) {
        if !self.next().await {
            return;
        }
        errln!("canceling the run (press Ctrl-C again to quit at once)");
        cancel.cancel();
        if self.next().await {
            errln!("quit: the run was interrupted twice");
            crate::telemetry::flush();
            std::process::exit(i32::from(super::EXIT_CANCELED));
        }
    }
}

/// Begin's form fields that are not optional and that this turn leaves without a value, each
/// named as `` `key` `` or `` `key` (label) ``. Which fields get a value follows
/// `Begin._merge_runtime_inputs`: the run's inputs when any are given, else `sys.query` fills a
/// form of a single field. RAGFlow's engine runs regardless (its UI is what insists), so this
/// only feeds the warning or `--require-inputs`.
fn missing_required_inputs(
    meta: &canvasc_frontend::meta::CanvasMeta,
    input: &RunInput,
) -> Vec<String> {
    let Some(begin) = meta.begin else {
        return Vec::new();
    };
    let Some(Json::Object(fields)) = meta.node(begin).params.get("inputs") else {
        return Vec::new();
    };
    let given: Vec<&String> = input
        .inputs
        .as_ref()
        .and_then(Json::as_object)
        .map(|g| g.keys().collect())
        .unwrap_or_default();
    let query_fills = given.is_empty()
        && fields.len() == 1
        && input
            .query
            .as_ref()
            .is_some_and(|q| !q.is_null() && q != &Json::String(String::new()));
    if query_fills {
        return Vec::new();
    }
    fields
        .iter()
        .filter(|(k, f)| !f.get("optional").is_some_and(py::truthy) && !given.contains(k))
        .map(|(k, f)| match f.get("name").and_then(Json::as_str) {
            Some(label) if label != k => format!("`{k}` ({label})"),
            _ => format!("`{k}`"),
        })
        .collect()
}

/// The field key of a name `missing_required_inputs` made.
fn missing_key(name: &str) -> &str {
    name.split('`').nth(1).unwrap_or(name)
}

/// Writes events to stdout as they arrive.
struct Printer {
    format: Format,
    in_message: bool,
}

impl Printer {
    fn new(format: Format) -> Self {
        Printer {
            format,
            in_message: false,
        }
    }

    fn event(&mut self, ev: &Json) {
        let mut out = std::io::stdout().lock();
        match self.format {
            Format::Jsonl => {
                let _ = writeln!(out, "{}", py::json_dumps_compact(ev));
            }
            Format::Pretty => {
                let _ = out.write_all(pretty(ev, &mut self.in_message).as_bytes());
            }
        }
        let _ = out.flush();
    }

    /// The frame RAGFlow's host sends when an exception escapes the run.
    fn abort(&mut self, message: &str) {
        let frame = serde_json::json!({"code": 500, "message": message, "data": false});
        match self.format {
            Format::Jsonl => outln!("{}", py::json_dumps_compact(&frame)),
            Format::Pretty => outln!("✗ run aborted: {message}"),
        }
    }
}

fn pretty(ev: &Json, in_message: &mut bool) -> String {
    let data = &ev["data"];
    let name = ev["event"].as_str().unwrap_or("");
    let node = |d: &Json| {
        let id = d["component_id"].as_str().unwrap_or("");
        let display = d["component_name"].as_str().unwrap_or("");
        let kind = d["component_type"].as_str().unwrap_or("");
        if display.is_empty() {
            format!("{id} ({kind})")
        } else {
            format!("{id} \"{display}\" ({kind})")
        }
    };
    let mut s = String::new();
    if *in_message && name != "message" {
        s.push('\n');
        *in_message = false;
    }
    match name {
        "workflow_started" => s.push_str(&format!(
            "▶ run started, inputs {}\n",
            py::json_dumps(&data["inputs"])
        )),
        "node_started" => {
            let thoughts = data["thoughts"].as_str().unwrap_or("");
            s.push_str(&format!("  ● {}", node(data)));
            if !thoughts.is_empty() {
                s.push_str(&format!(" — {}", thoughts.replace('\n', " ")));
            }
            s.push('\n');
        }
        "node_finished" => {
            let ms = data["elapsed_time"].as_f64().unwrap_or(0.0) * 1000.0;
            match data["error"].as_str() {
                Some(e) => s.push_str(&format!(
                    "  ✗ {} failed after {ms:.1} ms: {e}\n",
                    node(data)
                )),
                None => s.push_str(&format!("  ✓ {} {ms:.1} ms\n", node(data))),
            }
        }
        "message" => {
            if !*in_message {
                s.push_str("  💬 ");
                *in_message = true;
            }
            if data.get("start_to_think").is_some() {
                s.push_str("<think>");
            } else if data.get("end_to_think").is_some() {
                s.push_str("</think>");
            } else {
                match &data["content"] {
                    Json::String(t) => s.push_str(t),
                    Json::Null => {}
                    other => s.push_str(&py::json_dumps(other)),
                }
            }
        }
        "message_end" => {
            if let Some(r) = data.get("reference") {
                s.push_str(&format!("  📎 reference {}\n", py::json_dumps(r)));
            }
        }
        "user_inputs" => {
            let fields: Vec<String> = data["inputs"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            s.push_str(&format!(
                "⏸ waiting for input: {} — {}\n",
                fields.join(", "),
                data["tips"].as_str().unwrap_or("")
            ));
        }
        "workflow_finished" => {
            let ms = data["elapsed_time"].as_f64().unwrap_or(0.0) * 1000.0;
            if data["outputs"].as_str() == Some(CANCELED) {
                s.push_str(&format!("■ run canceled after {ms:.1} ms\n"));
            } else {
                s.push_str(&format!("■ run finished in {ms:.1} ms\n"));
            }
        }
        other => s.push_str(&format!("  {other} {}\n", py::json_dumps(data))),
    }
    s
}
