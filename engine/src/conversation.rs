//! Conversations with a canvas: a [`Session`] (one conversation: program and live state) and
//! a [`Published`] canvas that starts new sessions cheaply.

use super::cancel::CancelFlag;
use super::checkpoint::{CheckpointSink, ResumePoint};
use super::context::{Shared, SharedRandom};
use super::events::EventSink;
use super::persist;
use super::program::Program;
use super::scheduler::{self, Checkpointing, RunInput, RunOutcome};
use super::services::Services;
use super::state::RunState;
use canvasc_value::{Json, Map};
use std::sync::Arc;

/// A canvas as a server keeps it between conversations: its program, its stored DSL, and the
/// state every new session starts from (`Canvas(dsl)`, then `reset()`), built once rather than
/// per session. The records' written keys are shared, so a session's copy costs little.
pub struct Published<P: Program> {
    program: Arc<P>,
    dsl: Arc<Map<String, Json>>,
    fresh: RunState,
    /// The DSL names its task id; otherwise each session gets its own.
    task_id_written: bool,
}

impl<P: Program> Published<P> {
    pub fn new(program: Arc<P>, dsl: impl Into<Arc<Map<String, Json>>>) -> Self {
        let dsl = dsl.into();
        let fresh = persist::fresh_state(program.meta(), &dsl);
        Published {
            task_id_written: persist::written_task_id(&dsl).is_some(),
            program,
            dsl,
            fresh,
        }
    }

    /// A new session: what `Session::new(program, dsl, services, rng, true)` makes.
    pub fn session(&self, services: Services, rng: SharedRandom) -> Session<P> {
        let mut state = self.fresh.clone();
        if !self.task_id_written {
            state.task_id = persist::new_task_id();
        }
        Session::with_state(
            Arc::clone(&self.program),
            Arc::clone(&self.dsl),
            state,
            services,
            rng,
        )
    }
}

/// One conversation with a canvas: the program, its live state, and the DSL it saves into.
pub struct Session<P: Program> {
    pub program: Arc<P>,
    pub shared: Arc<Shared>,
    /// The DSL the session started from (its top-level keys other than components are written
    /// back on save); shared, since every new session of a published canvas starts from the
    /// same one.
    dsl: Arc<Map<String, Json>>,
}

impl<P: Program> Session<P> {
    /// Start from a DSL. `fresh` applies RAGFlow's `Canvas.reset()` (a new session); otherwise
    /// the DSL is a saved session and continues where it stopped.
    pub fn new(
        program: Arc<P>,
        dsl: impl Into<Arc<Map<String, Json>>>,
        services: Services,
        rng: SharedRandom,
        fresh: bool,
    ) -> Self {
        let dsl = dsl.into();
        let state = if fresh {
            persist::fresh_state(program.meta(), &dsl)
        } else {
            persist::state_from_dsl(program.meta(), &dsl)
        };
        Self::with_state(program, dsl, state, services, rng)
    }

    /// Go on from a session state saved apart from its canvas ([`Session::save_document`]):
    /// `dsl` is the canvas the session runs, `document` what its turns left.
    pub fn from_document(
        program: Arc<P>,
        dsl: impl Into<Arc<Map<String, Json>>>,
        document: &Map<String, Json>,
        services: Services,
        rng: SharedRandom,
    ) -> Self {
        let dsl = dsl.into();
        let state = persist::state_from_document(program.meta(), &dsl, document);
        Self::with_state(program, dsl, state, services, rng)
    }

    fn with_state(
        program: Arc<P>,
        dsl: Arc<Map<String, Json>>,
        state: RunState,
        services: Services,
        rng: SharedRandom,
    ) -> Self {
        let meta = Arc::clone(program.meta());
        Session {
            shared: Arc::new(Shared::new(meta, state, services, rng)),
            program,
            dsl,
        }
    }

    /// Run one turn, sending events to `sink`.
    pub async fn run(&self, input: RunInput, sink: &mut dyn EventSink) -> RunOutcome {
        scheduler::run(self.program.as_ref(), &self.shared, input, sink).await
    }

    /// Run one turn, handing a checkpoint to `checkpoints` at every batch boundary; with
    /// `resume` (a checkpoint's point and batch count, the session built from its DSL with
    /// `fresh = false`), go on from there instead of starting the turn.
    pub async fn run_checkpointed(
        &self,
        input: RunInput,
        sink: &mut dyn EventSink,
        checkpoints: Option<&dyn CheckpointSink>,
        resume: Option<(ResumePoint, u64)>,
    ) -> RunOutcome {
        let checkpoints = checkpoints.map(|sink| Checkpointing {
            sink,
            dsl: &self.dsl,
        });
        scheduler::run_checkpointed(
            self.program.as_ref(),
            &self.shared,
            input,
            sink,
            checkpoints,
            resume,
        )
        .await
    }

    /// The session as RAGFlow persists it (`str(canvas)`).
    pub fn save(&self) -> Json {
        persist::state_to_dsl(&self.shared.meta, &self.shared.state(), &self.dsl)
    }

    /// The session's state apart from its canvas ([`persist::state_document`]): what a host
    /// stores beside the canvas, and [`Session::from_document`] goes on from.
    pub fn save_document(&self) -> Json {
        persist::state_document(&self.shared.meta, &self.shared.state())
    }

    pub fn cancel_flag(&self) -> CancelFlag {
        self.shared.cancel.clone()
    }
}

#[cfg(test)]
mod published_tests {
    use super::{Published, Session};
    use crate::interp::Interpreter;
    use crate::random::PyRandom;
    use crate::scheduler::RunInput;
    use crate::services::Services;
    use canvasc_frontend::analyze;
    use canvasc_value::Json;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    /// Written record keys, form fields, globals and a saved run's values: everything a new
    /// session inherits from its DSL.
    fn dsl(task_id: Option<&str>) -> Json {
        let mut d = json!({
            "components": {
                "begin": {"obj": {"component_name": "Begin", "params": {
                    "inputs": {"name": {"type": "line", "name": "Name", "optional": false, "value": "stale"}},
                    "outputs": {"name": {"type": "string", "value": "stale"}}}},
                    "downstream": ["Message:Say"], "upstream": []},
                "Message:Say": {"obj": {"component_name": "Message", "params": {
                    "content": ["hi {begin@name} {env.greeting}"],
                    "outputs": {"content": {"type": "string", "value": "old answer"}}}},
                    "downstream": [], "upstream": ["begin"]}
            },
            "history": [["user", "before"]], "path": ["begin", "Message:Say"], "retrieval": [],
            "globals": {"sys.query": "before", "sys.user_id": "", "sys.conversation_turns": 3,
                "sys.files": [], "sys.history": ["user: before"], "env.greeting": "stale"},
            "variables": {"greeting": {"name": "greeting", "type": "string", "value": "hello"}}
        });
        if let Some(id) = task_id {
            d["task_id"] = json!(id);
        }
        d
    }

    async fn turn<P: super::Program>(session: &Session<P>) -> (Json, Json) {
        let mut events: Vec<Json> = Vec::new();
        let input = RunInput {
            query: Some(json!("now")),
            inputs: Some(json!({"name": {"type": "line", "value": "Ada"}})),
            ..RunInput::default()
        };
        session.run(input, &mut events).await;
        let mut got = (Json::Array(events), session.save());
        blank_clock_readings(&mut got.0);
        blank_clock_readings(&mut got.1);
        got
    }

    /// Nulls every value that reads a clock or is random per run (`sys.history` quotes the
    /// last outputs, timings included).
    fn blank_clock_readings(v: &mut Json) {
        const KEYS: [&str; 7] = [
            "message_id",
            "created_at",
            "elapsed_time",
            "_created_time",
            "_elapsed_time",
            "sys.date",
            "sys.history",
        ];
        match v {
            Json::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if KEYS.contains(&k.as_str()) {
                        *x = Json::Null;
                    } else {
                        blank_clock_readings(x);
                    }
                }
            }
            Json::Array(items) => items.iter_mut().for_each(blank_clock_readings),
            _ => {}
        }
    }

    #[tokio::test]
    async fn a_published_session_is_a_fresh_session() {
        let text = dsl(Some("task-1")).to_string();
        let analysis = analyze(&text).expect("a canvas");
        let program = Arc::new(Interpreter::from_analysis(&analysis));
        let stored = analysis.document.dsl.clone();
        let rng = || Arc::new(Mutex::new(PyRandom::seeded(0)));
        let published = Published::new(Arc::clone(&program), stored.clone());
        let fresh = Session::new(program, stored, Services::default(), rng(), true);
        let copy = published.session(Services::default(), rng());
        let initial = copy.save();
        assert_eq!(initial, fresh.save());
        let (expected, saved) = turn(&fresh).await;
        assert!(saved["history"].as_array().is_some_and(|h| h.len() == 2));
        assert_eq!(turn(&copy).await, (expected, saved));
        // A later session starts over: the first one's run left the shared state untouched.
        assert_eq!(fresh_save(&published), initial);
    }

    #[tokio::test]
    async fn a_session_saved_as_its_state_goes_on_as_one_saved_as_its_dsl() {
        let text = dsl(None).to_string();
        let analysis = analyze(&text).expect("a canvas");
        let program = Arc::new(Interpreter::from_analysis(&analysis));
        let canvas = analysis.document.dsl.clone();
        let rng = || Arc::new(Mutex::new(PyRandom::seeded(0)));
        let first = Session::new(
            Arc::clone(&program),
            canvas.clone(),
            Services::default(),
            rng(),
            true,
        );
        turn(&first).await;
        let (whole, document) = (first.save(), first.save_document());
        assert!(
            !document.to_string().contains("hi {begin@name}"),
            "the canvas itself is not in the document: {document}"
        );
        let Json::Object(whole_map) = whole.clone() else {
            panic!("{whole}")
        };
        let Json::Object(document) = document else {
            panic!("{document}")
        };
        let by_dsl = Session::new(
            Arc::clone(&program),
            whole_map,
            Services::default(),
            rng(),
            false,
        );
        let by_document =
            Session::from_document(program, canvas, &document, Services::default(), rng());
        assert_eq!(
            by_document.save(),
            whole,
            "read back, the document is the saved DSL"
        );
        assert_eq!(turn(&by_document).await, turn(&by_dsl).await);
    }

    fn fresh_save<P: super::Program>(p: &Published<P>) -> Json {
        p.session(
            Services::default(),
            Arc::new(Mutex::new(PyRandom::seeded(0))),
        )
        .save()
    }

    #[test]
    fn each_session_gets_its_own_task_id_unless_the_dsl_names_one() {
        let task = |d: Json| {
            let analysis = analyze(&d.to_string()).expect("a canvas");
            let program = Arc::new(Interpreter::from_analysis(&analysis));
            let p = Published::new(program, analysis.document.dsl.clone());
            (
                fresh_save(&p)["task_id"].clone(),
                fresh_save(&p)["task_id"].clone(),
            )
        };
        let (a, b) = task(dsl(None));
        assert!(a.as_str().is_some_and(|t| t.len() == 32), "{a}");
        assert_ne!(a, b);
        assert_eq!(
            task(dsl(Some("task-9"))),
            (json!("task-9"), json!("task-9"))
        );
    }
}
