//! The engine behind `canvasc serve`: runs a server's turns ([`TurnRunner`]) with the compiled
//! program carried by this binary when the session's DSL is a released version whose
//! fingerprint matches one, in a program bundle's worker process when a bundle in the data dir
//! carries it (`crate::worker`), and with the interpreter otherwise (drafts, and versions not
//! compiled yet). All run on the runtime's one scheduler; this module only chooses and wires.

use crate::interpreted::Interpreted;
use crate::program_choice::{choose, Choice, Compiled, Wanted};
use crate::session_canvases::SessionCanvases;
use crate::worker::bundles::Bundles;
use canvasc_engine::checkpoint::{Checkpoint, PendingCheckpoint, ENGINE_VERSION};
use canvasc_engine::events::Event;
use canvasc_engine::interp::Interpreter;
use canvasc_engine::random::PyRandom;
use canvasc_engine::telemetry::RunLabels;
use canvasc_engine::{persist, Program, ProgramVisitor, RunInput, RunOutcome, Services, Session};
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::{analyze_loaded, load_value};
use canvasc_server::turn::{
    CheckpointWriter, Delivery, ProgramKind, RunningTurn, SessionState, TurnCanvas, TurnEnd,
    TurnEvent, TurnRequest, TurnRunner,
};
use canvasc_value::{Json, Map};
use futures::StreamExt;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tracing::Instrument;

/// A built binary's `visit`, instantiated for turns: hands the program compiled for a
/// fingerprint to a [`TurnStart`].
pub type FindProgram = fn(&str, TurnStart) -> Option<RunningTurn>;

/// Runs turns for the server.
pub struct Programs {
    services: Services,
    compiled: &'static [Compiled],
    find: Option<FindProgram>,
    /// Interpreter programs built for earlier turns.
    interpreted: Interpreted,
    /// The sessions' canvases, prepared once per canvas.
    canvases: SessionCanvases,
    /// Program bundles found while serving, run in worker processes.
    bundles: Option<Arc<Bundles>>,
    /// Refuse a turn no compiled program runs (a worker runs only what it carries).
    compiled_only: bool,
    /// Private database hosts the editor's connection test may reach (ExeSQL's
    /// `[tools.exesql] allowed_hosts`).
    db_allowed_hosts: Vec<String>,
    /// Where DocGenerator and ExcelProcessor store the files runs make (the environment's
    /// store, the one the components write to), for the download endpoints.
    #[cfg(feature = "documents")]
    files: Arc<dyn canvasc_documents::store::FileStore>,
}

impl Programs {
    /// `services` are the process's (host-assembled); `compiled` and `find` the programs this
    /// binary carries (none for `canvasc` itself).
    pub fn new(
        services: Services,
        compiled: &'static [Compiled],
        find: Option<FindProgram>,
    ) -> Self {
        Programs {
            services,
            compiled,
            find,
            interpreted: Interpreted::default(),
            canvases: SessionCanvases::default(),
            bundles: None,
            compiled_only: false,
            db_allowed_hosts: Vec::new(),
            #[cfg(feature = "documents")]
            files: crate::documents::file_store(&crate::config::raw_env),
        }
    }

    /// Runs released versions whose program a bundle in `bundles` carries in its worker.
    pub fn with_bundles(mut self, bundles: Arc<Bundles>) -> Self {
        self.bundles = Some(bundles);
        self
    }

    /// Refuses every turn no program compiled into this binary runs.
    pub fn compiled_only(mut self) -> Self {
        self.compiled_only = true;
        self
    }

    /// Lets the editor's database test reach these private hosts, as ExeSQL may.
    pub fn with_db_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.db_allowed_hosts = hosts;
        self
    }
}

/// Where a turn's run state comes from.
enum Begin {
    /// The canvas's own (`fresh`: a new session's, reset).
    Canvas,
    /// A state document the previous turn left.
    Document(Map<String, Json>),
    /// A whole session DSL holding its state (it is then the DSL the session saves into).
    Dsl(Map<String, Json>),
}

/// What a turn needs besides its program; handed to the compiled program's registry, which
/// calls [`ProgramVisitor::visit`] with the concrete program type.
pub struct TurnStart {
    /// The canvas in the engine's form.
    dsl: Arc<Map<String, Json>>,
    begin: Begin,
    fresh: bool,
    input: RunInput,
    services: Services,
    /// Where checkpoints go, with the program's fingerprint they carry.
    checkpoints: Option<(CheckpointWriter, String)>,
    /// The checkpoint this turn goes on from (its DSL is then the session's state).
    resume: Option<Checkpoint>,
}

impl ProgramVisitor for TurnStart {
    type Output = RunningTurn;

    fn visit<P: Program>(self, program: Arc<P>) -> RunningTurn {
        start(program, self, ProgramKind::Compiled)
    }
}

impl TurnRunner for Programs {
    fn start(&self, mut turn: TurnRequest) -> Result<RunningTurn, String> {
        // A resumed run goes on with the canvas its checkpoint holds, not with the session's:
        // the checkpoint is that canvas and its state in one document, while the session's
        // state may have been saved by the very run being resumed (a cancelled turn is
        // saved), and a canvas's fingerprint moves with what a run writes into it.
        let resume = turn.resume.as_ref().map(resumable).transpose()?;
        if let Some(bundles) = &self.bundles {
            bundles.watch();
        }
        let bundled = self.bundles.as_ref().filter(|b| !b.is_empty());
        let (checkpoint, fp, canvas) = match &resume {
            Some(resume) => {
                let loaded = load_value(resume.checkpoint.dsl.clone())
                    .map_err(|e| format!("the checkpoint's DSL: {e}"))?;
                // A resumed run keeps the fingerprint its run started with, so that a compiled
                // program goes on compiled and the run's later checkpoints name the same canvas.
                let fp = match &resume.fingerprint {
                    Some(fp) => fp.clone(),
                    None => fingerprint(&loaded.document),
                };
                (Some(loaded), fp, None)
            }
            None => {
                let prepared = self.canvases.prepared(&turn.canvas, &self.interpreted)?;
                (None, prepared.fingerprint.clone(), Some(prepared))
            }
        };
        let compiled_wanted = match &resume {
            Some(resume) => resume.compiled,
            None => turn.released,
        };
        let wanted = match compiled_wanted {
            true => Wanted::Compiled,
            false => Wanted::Interpreter,
        };
        let carried = self.find.is_some()
            && matches!(choose(self.compiled, &fp, wanted), Choice::Compiled { .. });
        if !carried {
            if let (Some(bundles), Wanted::Compiled) = (bundled, wanted) {
                if bundles.carries(&fp) {
                    return bundles.start(&fp, turn).unwrap_or_else(|| {
                        Err(format!("the program bundle carrying {fp} is gone"))
                    });
                }
            }
            if self.compiled_only {
                return Err(format!(
                    "no compiled program runs this canvas ({fp}): this process runs compiled programs only"
                ));
            }
        }
        let mut services = self.services.clone();
        services.custom_header = turn
            .custom_header
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect::<Vec<_>>()
            .into();
        services.tenant_id = Some(turn.tenant_id.as_str().into());
        if let Some(default) = turn.default_llm {
            services.llm =
                (services.llm.take()).map(|llm| crate::tenant_model::with_default(llm, default));
        }
        // A webhook's run has no form inputs (`workflow_started` says `null`); a chat turn
        // without any sends an empty form.
        let inputs = match (turn.inputs, &turn.webhook_payload) {
            (Some(inputs), _) => Some(inputs),
            (None, Some(_)) => None,
            (None, None) => Some(Json::Object(Map::new())),
        };
        let input = RunInput {
            query: Some(Json::String(turn.query)),
            user_id: Some(Json::String(turn.user_id)),
            files: turn.files,
            inputs,
            chat_template_kwargs: turn.chat_template_kwargs,
            webhook_payload: turn.webhook_payload,
        };
        services.run_labels = RunLabels {
            canvas_id: Some(turn.agent_id.as_str().into()),
            session_id: Some(turn.session_id.as_str().into()),
            fingerprint: Some(fp.as_str().into()),
        };
        let checkpoints = turn.checkpoints.map(|writer| (writer, fp.clone()));
        let resume = resume.map(|r| r.checkpoint);
        // A resumed run's canvas is the checkpoint's, named by the fingerprint its run
        // started with: it is built as it is, never taken for another canvas's program.
        let (interpreter, dsl, begin) = match (checkpoint, canvas) {
            (Some(loaded), _) => {
                let analysis = analyze_loaded(loaded);
                let program = Arc::new(Interpreter::from_analysis(&analysis));
                (program, Arc::new(analysis.document.dsl), Begin::Canvas)
            }
            (None, Some(prepared)) => {
                let begin = match std::mem::replace(&mut turn.state, SessionState::Canvas) {
                    SessionState::Canvas => Begin::Canvas,
                    SessionState::Document(Json::Object(document)) => Begin::Document(document),
                    SessionState::Document(other) => {
                        return Err(format!("the session's run state is not an object: {other}"))
                    }
                    SessionState::Dsl(dsl) => Begin::Dsl(
                        load_value(dsl)
                            .map_err(|e| format!("the session's DSL: {e}"))?
                            .document
                            .dsl,
                    ),
                };
                let dsl = Arc::clone(&prepared.dsl);
                (Arc::clone(&prepared.interpreter), dsl, begin)
            }
            (None, None) => return Err("the session's canvas was not prepared".into()),
        };
        let start_with = TurnStart {
            dsl,
            begin,
            fresh: turn.fresh,
            input,
            services,
            checkpoints,
            resume,
        };
        if let (Some(find), true) = (self.find, carried) {
            return find(&fp, start_with)
                .ok_or_else(|| format!("the compiled program {fp} is listed but not carried"));
        }
        Ok(start(interpreter, start_with, ProgramKind::Interpreted))
    }

    fn session_dsl(&self, canvas: &TurnCanvas, state: &SessionState) -> Result<Json, String> {
        let prepared = self.canvases.prepared(canvas, &self.interpreted)?;
        match state {
            SessionState::Canvas => Ok((*canvas.dsl).clone()),
            SessionState::Dsl(dsl) => Ok(dsl.clone()),
            SessionState::Document(Json::Object(document)) => {
                let meta = prepared.interpreter.meta();
                let state = persist::state_from_document(meta, &prepared.dsl, document);
                Ok(persist::state_to_dsl(meta, &state, &prepared.dsl))
            }
            SessionState::Document(other) => {
                Err(format!("the session's run state is not an object: {other}"))
            }
        }
    }

    fn count_tokens(&self, text: &str) -> usize {
        canvasc_engine::llm::fit::num_tokens(Some(text))
    }

    fn compiled(&self) -> Vec<(String, String)> {
        self.compiled
            .iter()
            .map(|(source, fp, _)| (source.to_string(), fp.to_string()))
            .collect()
    }

    fn editor_prompts(&self) -> Vec<(String, String)> {
        self.services
            .prompts
            .editor_defaults()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    #[cfg(feature = "documents")]
    fn generated_file(
        &self,
        tenant: &str,
        id: &str,
    ) -> futures::future::BoxFuture<'static, Result<Option<Vec<u8>>, String>> {
        let (files, tenant, id) = (Arc::clone(&self.files), tenant.to_string(), id.to_string());
        Box::pin(async move {
            // Ids the store refuses (not a generated id) name no file of this tenant.
            if canvasc_documents::store::check_name("object", &id).is_err() {
                return Ok(None);
            }
            files.get(&tenant, &id).await.map_err(|e| e.to_string())
        })
    }

    fn check_url(&self, url: &str) -> futures::future::BoxFuture<'static, Result<(), String>> {
        let (guard, url) = (self.services.guard(), url.to_string());
        Box::pin(async move {
            canvasc_engine::ssrf::assert_url_is_safe(&url, &guard)
                .await
                .map(|_| ())
        })
    }

    fn deliver(
        &self,
        url: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> futures::future::BoxFuture<'static, Result<u16, Delivery>> {
        use canvasc_engine::outbound::{fetch, Error, Request};
        let guard = self.services.guard();
        Box::pin(async move {
            let request = Request {
                method: reqwest::Method::POST,
                url,
                headers,
                body: Some(body),
                timeout: std::time::Duration::from_secs(10),
                max_bytes: 64 * 1024,
                // A receiver answers where it is: a redirect is not followed.
                max_redirects: 0,
            };
            match fetch(&guard, request).await {
                Ok(response) => Ok(response.status),
                Err(e @ (Error::Refused(_) | Error::TooLarge(_) | Error::TooManyRedirects(_))) => {
                    Err(Delivery::Refused(e.to_string()))
                }
                Err(e) => Err(Delivery::Failed(e.to_string())),
            }
        })
    }

    #[cfg(feature = "tools")]
    fn test_db_connection(
        &self,
        db: canvasc_server::turn::DbConnection,
    ) -> futures::future::BoxFuture<'static, Result<(), canvasc_server::turn::DbTestFailure>> {
        use canvasc_server::turn::DbTestFailure;
        use canvasc_tools::exesql::{test_connection, Connection, TestFailure};
        let allow_any_host = self.services.settings.allow_any_host;
        let allowed = self.db_allowed_hosts.clone();
        Box::pin(async move {
            let connection = Connection {
                db_type: &db.db_type,
                host: &db.host,
                port: db.port,
                database: &db.database,
                username: &db.username,
                password: &db.password,
            };
            test_connection(&connection, allow_any_host, &allowed)
                .await
                .map_err(|failure| match failure {
                    TestFailure::Host(reason) => DbTestFailure::Host(reason),
                    // `server_error_response("Unsupported database type.")`: the repr of a str.
                    TestFailure::UnknownType => {
                        DbTestFailure::Failed("'Unsupported database type.'".into())
                    }
                    TestFailure::Unavailable(text) | TestFailure::Driver(text) => {
                        DbTestFailure::Failed(text)
                    }
                })
        })
    }
}

/// Runs the turn on its own task; events go through a channel the server drains. The run
/// keeps going when the server stops reading (it cancels through the handle instead), so the
/// state it ends with is always saved.
fn start<P: Program>(program: Arc<P>, turn: TurnStart, kind: ProgramKind) -> RunningTurn {
    let rng = Arc::new(Mutex::new(PyRandom::from_entropy()));
    let services = turn.services;
    let (session, resume) = match (turn.resume, turn.begin) {
        (Some(Checkpoint { dsl, point, batch }), _) => {
            let dsl = match dsl {
                Json::Object(map) => Arc::new(map),
                _ => turn.dsl,
            };
            let session = Session::new(program, dsl, services, rng, false);
            (session, Some((point, batch)))
        }
        (None, Begin::Document(document)) => {
            let session = Session::from_document(program, turn.dsl, &document, services, rng);
            (session, None)
        }
        (None, Begin::Dsl(dsl)) => (Session::new(program, dsl, services, rng, false), None),
        (None, Begin::Canvas) => {
            let session = Session::new(program, turn.dsl, services, rng, turn.fresh);
            (session, None)
        }
    };
    let flag = session.cancel_flag();
    let (tx, rx) = mpsc::unbounded_channel::<TurnEvent>();
    let input = turn.input;
    let checkpoints = turn.checkpoints.map(|(writer, fp)| {
        let fp: Arc<str> = fp.into();
        move |checkpoint: PendingCheckpoint| {
            let fp = Arc::clone(&fp);
            (writer.0)(Box::new(move || {
                let mut json = checkpoint.build().into_json();
                if let Json::Object(m) = &mut json {
                    m.insert("fingerprint".into(), Json::String(fp.to_string()));
                    m.insert("engine_version".into(), Json::String(ENGINE_VERSION.into()));
                    m.insert("mode".into(), Json::String(kind.as_str().into()));
                }
                json
            }))
        }
    });
    tokio::spawn(
        async move {
            let events = tx.clone();
            let mut sink = move |ev: Event<'_>| {
                let Json::Object(mut frame) = ev.to_json() else {
                    return;
                };
                let event = match frame.remove("event") {
                    Some(Json::String(name)) => name,
                    _ => return,
                };
                let data = frame.remove("data").unwrap_or(Json::Null);
                // A closed channel means the server is gone; the run ends by its cancel flag.
                let _ = events.send(TurnEvent::Event { event, data });
            };
            let checkpoints = checkpoints
                .as_ref()
                .map(|c| c as &dyn canvasc_engine::checkpoint::CheckpointSink);
            let outcome = session
                .run_checkpointed(input, &mut sink, checkpoints, resume)
                .await;
            let end = match outcome {
                RunOutcome::Finished => TurnEnd::Finished,
                RunOutcome::Paused => TurnEnd::Paused,
                RunOutcome::Canceled => TurnEnd::Canceled,
                RunOutcome::Failed(e) => TurnEnd::Failed(e),
                RunOutcome::Aborted(e) => TurnEnd::Aborted(e.to_string()),
            };
            let _ = tx.send(TurnEvent::Ended {
                end,
                state: session.save_document(),
            });
        }
        // The run span's parent is the request's span (and the caller's trace through it).
        .in_current_span(),
    );
    let events = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (event, rx))
    })
    .boxed();
    RunningTurn {
        program: kind,
        events,
        cancel: Arc::new(move || flag.cancel()),
    }
}

/// A checkpoint a turn goes on from, with what its run was: the fingerprint of the canvas
/// the run started with, and whether a compiled program ran it.
struct Resumable {
    checkpoint: Checkpoint,
    fingerprint: Option<String>,
    compiled: bool,
}

/// The checkpoint a turn may go on from: refused, naming both sides, when another engine
/// version wrote it (its state's shapes may differ). The canvas needs no such check: the
/// resumed run runs the canvas the checkpoint holds.
fn resumable(checkpoint: &Json) -> Result<Resumable, String> {
    let field = |name: &str| checkpoint.get(name).and_then(Json::as_str);
    let written_engine = field("engine_version").unwrap_or("none");
    if written_engine != ENGINE_VERSION {
        return Err(format!(
            "cannot resume from the checkpoint: it was written by engine {written_engine}, and this server runs engine {ENGINE_VERSION}; start a new turn instead"
        ));
    }
    Ok(Resumable {
        checkpoint: Checkpoint::from_json(checkpoint)?,
        fingerprint: field("fingerprint").map(String::from),
        compiled: field("mode") == Some(ProgramKind::Compiled.as_str()),
    })
}
