//! The scheduler: RAGFlow's `Canvas.run` (BS §16.5–16.14), written once and driven by any
//! [`Program`]. Path batches, dependency deferral, path extension, streaming Messages, pending
//! partials, exception routes, the UserFillUp pause and the terminal events all live here.

use super::checkpoint::{CheckpointSink, PendingCheckpoint, ResumePoint};
use super::clock::{perf_counter, unix_seconds};
use super::context::{NodeCx, Shared};
use super::error::{RunError, CANCELED};
use super::events::{obj, Envelope, Event, EventSink, Payload};
use super::program::Program;
use super::state::{InputKeys, RunState, SLOT_CREATED_TIME, SLOT_ELAPSED_TIME, SLOT_ERROR};
use crate::val::Val;
use canvasc_frontend::catalog::Kind;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_value::{py, Json, Map};
use futures::StreamExt;
use std::borrow::Cow;
use std::sync::Arc;
use tracing::{Instrument, Span};

/// At most this many components of a batch run at once (RAGFlow's thread pool size).
const MAX_CONCURRENCY: usize = 5;

/// The keyword arguments of `Canvas.run`.
#[derive(Clone, Debug, Default)]
pub struct RunInput {
    pub query: Option<Json>,
    pub user_id: Option<Json>,
    /// Already converted file contents (images as data URLs, documents as text).
    pub files: Vec<Json>,
    /// Form values for Begin / a paused UserFillUp.
    pub inputs: Option<Json>,
    pub chat_template_kwargs: Option<Json>,
    pub webhook_payload: Option<Map<String, Json>>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum RunOutcome {
    /// `workflow_finished` was emitted.
    Finished,
    /// `user_inputs` was emitted; the next run resumes.
    Paused,
    /// A component failed without exception handling: no terminal event; the text is
    /// `canvas.error`.
    Failed(String),
    /// Canceled: `workflow_finished` with outputs `Task has been canceled` was emitted.
    Canceled,
    /// An exception escaped `run` (RAGFlow's host then sends `{"code": 500, …}`).
    Aborted(RunError),
}

/// Run one turn of a session.
pub async fn run<P: Program>(
    program: &P,
    shared: &Arc<Shared>,
    input: RunInput,
    sink: &mut dyn EventSink,
) -> RunOutcome {
    run_checkpointed(program, shared, input, sink, None, None).await
}

/// Where a turn's checkpoints go: the sink, and the DSL the session saves into.
#[derive(Clone, Copy)]
pub struct Checkpointing<'a> {
    pub sink: &'a dyn CheckpointSink,
    pub dsl: &'a Arc<Map<String, Json>>,
}

/// Run one turn, handing a checkpoint to `checkpoints` at every batch boundary; with `resume`,
/// go on from a checkpoint (the session's state must be the checkpoint's DSL) instead of
/// starting the turn: no user input is added, and the path is not reset.
pub async fn run_checkpointed<P: Program>(
    program: &P,
    shared: &Arc<Shared>,
    input: RunInput,
    sink: &mut dyn EventSink,
    checkpoints: Option<Checkpointing<'_>>,
    resume: Option<(ResumePoint, u64)>,
) -> RunOutcome {
    let task_id = shared.state().task_id.clone();
    let mut r = Runner {
        program,
        shared,
        sink,
        env: Envelope {
            message_id: uuid::Uuid::new_v4().simple().to_string(),
            created_at: unix_seconds(),
            task_id,
        },
        partials: Vec::new(),
        seen: vec![false; shared.meta.len()],
        seen_upto: 0,
        resumed: false,
        batch: Vec::new(),
        scheduled: Vec::new(),
        steps: 0,
        checkpoints,
        batches: 0,
    };
    let labels = &shared.services.run_labels;
    let span = tracing::info_span!(
        target: "canvasc",
        "canvasc.run",
        canvasc.mode = program.mode(),
        canvasc.canvas_id = labels.canvas_id.as_deref(),
        canvasc.session_id = labels.session_id.as_deref(),
        canvasc.fingerprint = labels.fingerprint.as_deref(),
        canvasc.task_id = %r.env.task_id,
        canvasc.outcome = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    // RAGFlow builds the canvas before each turn; one it cannot build raises before any event.
    let outcome = if let Some(e) = &program.meta().construction_error {
        RunOutcome::Aborted(RunError::raised(e.class, e.message.clone()))
    } else {
        match r.run(input, resume).instrument(span.clone()).await {
            Ok(outcome) => outcome,
            Err(e) => RunOutcome::Aborted(e),
        }
    };
    if !span.is_disabled() {
        span.record("canvasc.outcome", outcome.name());
        if matches!(outcome, RunOutcome::Failed(_) | RunOutcome::Aborted(_)) {
            span.record("otel.status_code", "ERROR");
        }
    }
    outcome
}

impl RunOutcome {
    /// The outcome's name in spans and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            RunOutcome::Finished => "finished",
            RunOutcome::Paused => "paused",
            RunOutcome::Failed(_) => "failed",
            RunOutcome::Canceled => "canceled",
            RunOutcome::Aborted(_) => "aborted",
        }
    }
}

struct Runner<'a, P: Program> {
    program: &'a P,
    shared: &'a Arc<Shared>,
    sink: &'a mut dyn EventSink,
    env: Envelope,
    /// Components whose `node_finished` waits until a Message consumed their stream.
    partials: Vec<NodeId>,
    /// Which nodes occur in `path[..seen_upto]`, the part of the path before the current batch,
    /// so the dependency check does not rescan the whole path for every node.
    seen: Vec<bool>,
    seen_upto: usize,
    /// The run resumed at a UserFillUp (`path[0]`): the deferral check is off.
    resumed: bool,
    /// The path from the current batch's start, read under one lock (`None`: an id that names
    /// no component). Components never touch the path, so it holds until the scheduler changes
    /// it.
    batch: Vec<Option<NodeId>>,
    /// The current batch's components and their keyword arguments (reused between batches).
    scheduled: Vec<(NodeId, Map<String, Json>)>,
    /// Component invocations so far this turn, for the host's step limit.
    steps: usize,
    checkpoints: Option<Checkpointing<'a>>,
    /// Batches finished this turn (across a resume).
    batches: u64,
}

/// What Python raises on reaching a path entry that names no component.
fn missing() -> RunError {
    RunError::type_error("'NoneType' object is not subscriptable")
}

impl<'a, P: Program> Runner<'a, P> {
    fn emit(&mut self, event: &'static str, data: Json) {
        let payload = Payload::Other { name: event, data };
        self.sink.emit(Event {
            envelope: &self.env,
            payload: &payload,
        });
    }

    /// Extend `seen` to cover `path[..upto]` (the path before a batch only ever grows between
    /// batches; a pause replaces it, and then the run returns).
    fn mark_seen(&mut self, path: &[Target], upto: usize) {
        let upto = upto.min(path.len());
        if upto < self.seen_upto {
            self.seen.iter_mut().for_each(|x| *x = false);
            self.seen_upto = 0;
        }
        for t in &path[self.seen_upto..upto] {
            if let Target::Node(n) = t {
                self.seen[n.index()] = true;
            }
        }
        self.seen_upto = upto;
    }

    /// The canvas's static facts, borrowed for the whole run (not from `self`, so `self` stays
    /// free to mutate).
    fn meta(&self) -> &'a CanvasMeta {
        let shared: &'a Arc<Shared> = self.shared;
        &shared.meta
    }

    fn cx(&self, node: NodeId) -> NodeCx<'_> {
        NodeCx::new(node, self.shared)
    }

    fn node_of(&self, t: &Target) -> Result<NodeId, RunError> {
        match t {
            Target::Node(n) => Ok(*n),
            Target::Missing(_) => Err(missing()),
        }
    }

    /// Read `path[from..]` into `batch`; the path's length.
    fn read_batch(&mut self, from: usize) -> usize {
        let shared: &'a Arc<Shared> = self.shared;
        let s = shared.state();
        self.batch.clear();
        let rest = s.path.get(from..).unwrap_or_default();
        self.batch.extend(rest.iter().map(|t| match t {
            Target::Node(n) => Some(*n),
            Target::Missing(_) => None,
        }));
        s.path.len()
    }

    /// The node at `path[from + j]` as [`Runner::read_batch`] read it (Python fails on an id
    /// that names no component).
    fn batch_node(&self, j: usize) -> Result<NodeId, RunError> {
        self.batch.get(j).copied().flatten().ok_or_else(missing)
    }

    async fn run(
        &mut self,
        input: RunInput,
        resume: Option<(ResumePoint, u64)>,
    ) -> Result<RunOutcome, RunError> {
        let st = perf_counter();
        let mut input = input;
        if let Some((point, _)) = &resume {
            // The turn's own form values, not the resuming request's.
            input.inputs = point.inputs.clone();
        }
        let input = &input;
        let idx = match resume {
            Some((point, batches)) => {
                let retry: Vec<NodeId> = point
                    .retry
                    .iter()
                    .filter_map(|id| self.meta().find(id))
                    .collect();
                let idx = self.resume_turn(point, batches, input)?;
                if !retry.is_empty() {
                    let error = self.run_retry(&retry, idx, input).await?;
                    if !error.is_empty() {
                        return self.finish(idx, st, input, error);
                    }
                }
                if self.pause_if_waiting(idx).await? {
                    return Ok(RunOutcome::Paused);
                }
                idx
            }
            None => self.start_turn(input)?,
        };
        self.run_from(idx, st, input).await
    }

    /// Goes on from a checkpoint: the state is the checkpoint's; what the turn kept in locals
    /// comes back from `point`, and the components to call again are cleared.
    fn resume_turn(
        &mut self,
        point: ResumePoint,
        batches: u64,
        input: &RunInput,
    ) -> Result<usize, RunError> {
        let meta = self.meta();
        {
            let mut s = self.shared.state();
            s.error = String::new();
            s.forget_sharing();
            for (id, counter) in &point.counters {
                if let Some(n) = meta.find(id) {
                    s.nodes[n.index()].counter = *counter;
                }
            }
            for id in &point.retry {
                if let Some(n) = meta.find(id) {
                    s.nodes[n.index()].reset(meta.node(n).kind == Kind::Begin);
                }
            }
        }
        self.resumed = point.resumed;
        self.steps = point.steps;
        self.batches = batches;
        if self.shared.is_canceled() {
            let id = self.env.task_id.clone();
            return Err(RunError::Canceled(format!(
                "Task {id} has been canceled before starting."
            )));
        }
        self.emit(
            "workflow_started",
            obj([("inputs", input.inputs.clone().unwrap_or(Json::Null))]),
        );
        Ok(point.next)
    }

    /// The components a failed batch left to call again, as a batch of their own before the
    /// path goes on at `next` (what the batch's finished components led to): they run, are
    /// post-processed (appending where they lead), and a checkpoint follows. The error, if one
    /// failed again.
    async fn run_retry(
        &mut self,
        retry: &[NodeId],
        next: usize,
        input: &RunInput,
    ) -> Result<String, RunError> {
        let meta = self.meta();
        for &n in retry {
            let cx = NodeCx::new(n, self.shared);
            let thoughts = self.program.thoughts(&cx)?;
            let payload = Payload::NodeStarted {
                node: meta.node(n),
                created_at: unix_seconds(),
                thoughts,
            };
            self.sink.emit(Event {
                envelope: &self.env,
                payload: &payload,
            });
        }
        if self.shared.is_canceled() {
            let id = self.env.task_id.clone();
            return Err(RunError::Canceled(format!(
                "Task {id} has been canceled during batch execution."
            )));
        }
        let mut scheduled = Vec::with_capacity(retry.len());
        for &n in retry {
            let cx = NodeCx::new(n, self.shared);
            scheduled.push((n, self.program.get_input(&cx)?));
        }
        self.steps += scheduled.len();
        let (program, shared) = (self.program, self.shared);
        let tasks = scheduled.into_iter().map(|(n, kwargs)| async move {
            let cx = NodeCx::with_kwargs(n, shared, Cow::Owned(kwargs));
            invoke(program, &cx).await;
        });
        futures::stream::iter(tasks)
            .buffer_unordered(MAX_CONCURRENCY)
            .for_each(|()| async {})
            .await;
        let base = self.shared.state().path.len();
        let mut error = String::new();
        let mut appended = Vec::with_capacity(retry.len());
        for &n in retry {
            let before = self.shared.state().path.len();
            self.post_process(n, &mut error).await?;
            let after = self.shared.state().path.len();
            appended.push((n, before, after));
        }
        self.batches += 1;
        if error.is_empty() {
            self.checkpoint(next, input);
        } else {
            self.checkpoint_failed(base, next, &appended, input);
        }
        Ok(error)
    }

    /// RAGFlow's start of a turn: the user input, the reset of the path's components, the
    /// globals, Begin on the path (unless a UserFillUp pause continues); where the first batch
    /// starts.
    fn start_turn(&mut self, input: &RunInput) -> Result<usize, RunError> {
        let meta = self.meta();
        let is_resume;
        {
            let mut s = self.shared.state();
            let now = chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string();
            s.globals.insert("sys.date".into(), Json::String(now));
            s.usage = Default::default();
            s.add_user_input(&input.query.clone().unwrap_or(Json::Null));
            s.forget_sharing();
            let mut on_path = vec![false; meta.len()];
            for t in &s.path {
                if let Target::Node(n) = t {
                    on_path[n.index()] = true;
                }
            }
            for (i, node) in meta.nodes.iter().enumerate() {
                if on_path[i] {
                    s.nodes[i].reset(node.kind == Kind::Begin);
                }
            }
            if let Some(payload) = &input.webhook_payload {
                for (i, node) in meta.nodes.iter().enumerate() {
                    if node.kind == Kind::Begin
                        && node.param("mode").and_then(Json::as_str) == Some("Webhook")
                    {
                        if let Some(v) = payload.get("input") {
                            s.nodes[i].set_input_value("request", v.clone());
                        }
                        for (k, v) in payload {
                            if k != "input" {
                                s.nodes[i].set_output(k, Val::Json(v.clone()));
                            }
                        }
                    }
                }
            }
            let sets = [
                ("query", input.query.clone()),
                ("user_id", input.user_id.clone()),
                ("files", Some(Json::Array(input.files.clone()))),
                ("chat_template_kwargs", input.chat_template_kwargs.clone()),
            ];
            for (k, v) in sets {
                if let Some(v) = v.filter(py::truthy) {
                    s.globals.insert(format!("sys.{k}"), v);
                }
            }
            let turns = s
                .globals
                .get("sys.conversation_turns")
                .cloned()
                .unwrap_or(Json::Null);
            let turns = if py::truthy(&turns) {
                turns
            } else {
                Json::from(0)
            };
            let next = match turns {
                Json::Number(n) if n.is_f64() => Json::from(n.as_f64().unwrap_or(0.0) + 1.0),
                // Python's int grows without bound; a `Value` stops at `u64::MAX`.
                Json::Number(n) => match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) if i < i64::MAX => Json::from(i + 1),
                    (_, Some(u)) if u < u64::MAX => Json::from(u + 1),
                    _ => {
                        return Err(RunError::raised(
                            "OverflowError",
                            format!(
                                "sys.conversation_turns is too large to count another turn: {n}"
                            ),
                        ))
                    }
                },
                Json::Bool(b) => Json::from(i64::from(b) + 1),
                other => {
                    return Err(RunError::msg(format!(
                        "can only concatenate str (not \"int\") to str: {}",
                        py::repr_of(&other)
                    )))
                }
            };
            s.globals.insert("sys.conversation_turns".into(), next);
            is_resume = matches!(s.path.first(), Some(t) if path_id(meta, t).to_lowercase().contains("userfillup"));
            self.resumed = is_resume;
            if !is_resume {
                let begin = match meta.find("begin") {
                    Some(n) => Target::Node(n),
                    None => Target::Missing("begin".into()),
                };
                s.path.push(begin);
                s.retrieval
                    .push(serde_json::json!({"chunks": [], "doc_aggs": []}));
            }
        }
        if self.shared.is_canceled() {
            let id = self.env.task_id.clone();
            return Err(RunError::Canceled(format!(
                "Task {id} has been canceled before starting."
            )));
        }
        if !is_resume {
            self.emit(
                "workflow_started",
                obj([("inputs", input.inputs.clone().unwrap_or(Json::Null))]),
            );
        }
        let idx = {
            let mut s = self.shared.state();
            s.retrieval
                .push(serde_json::json!({"chunks": {}, "doc_aggs": {}}));
            s.error = String::new();
            if is_resume {
                0
            } else {
                s.path.len() - 1
            }
        };
        Ok(idx)
    }

    /// The batches from `path[idx]` on, then the terminal events.
    async fn run_from(
        &mut self,
        mut idx: usize,
        st: f64,
        input: &RunInput,
    ) -> Result<RunOutcome, RunError> {
        let meta = self.meta();
        let mut error = String::new();
        loop {
            let to = self.read_batch(idx);
            if idx >= to {
                break;
            }
            for j in 0..to - idx {
                let n = self.batch_node(j)?;
                let cx = NodeCx::new(n, self.shared);
                let thoughts = self.program.thoughts(&cx)?;
                let payload = Payload::NodeStarted {
                    node: meta.node(n),
                    created_at: unix_seconds(),
                    thoughts,
                };
                self.sink.emit(Event {
                    envelope: &self.env,
                    payload: &payload,
                });
            }
            self.run_batch(idx, to, input).await?;
            let to = self.read_batch(idx);
            // What each component's post-processing appended to the path, for a checkpoint
            // of a batch that failed.
            let mut appended = Vec::with_capacity(to - idx);
            for j in 0..to - idx {
                let n = self.batch_node(j)?;
                let before = self.shared.state().path.len();
                self.post_process(n, &mut error).await?;
                let after = self.shared.state().path.len();
                appended.push((n, before, after));
            }
            self.batches += 1;
            if !error.is_empty() {
                self.checkpoint_failed(to, to, &appended, input);
                break;
            }
            idx = to;
            self.checkpoint(idx, input);
            if self.pause_if_waiting(idx).await? {
                return Ok(RunOutcome::Paused);
            }
        }
        self.finish(idx, st, input, error)
    }

    /// The resume point at `next`, as the state stands.
    fn resume_point(&self, s: &RunState, next: usize, input: &RunInput) -> ResumePoint {
        let meta = self.meta();
        ResumePoint {
            next,
            steps: self.steps,
            resumed: self.resumed,
            inputs: input.inputs.clone(),
            counters: s
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, st)| st.counter != 0)
                .map(|(i, st)| (meta.nodes[i].id.clone(), st.counter))
                .collect(),
            retry: Vec::new(),
        }
    }

    /// A checkpoint at the boundary before `path[next]`, unless a component's answer still
    /// streams into a Message (it has not finished, and a stream cannot be saved).
    fn checkpoint(&mut self, next: usize, input: &RunInput) {
        let Some(cp) = self.checkpoints else { return };
        if !self.partials.is_empty() {
            return;
        }
        let (state, point) = {
            let s = self.shared.state();
            (s.snapshot(), self.resume_point(&s, next, input))
        };
        cp.sink.batch_done(PendingCheckpoint {
            meta: Arc::clone(&self.shared.meta),
            dsl: Arc::clone(cp.dsl),
            state,
            path: None,
            point,
            batch: self.batches,
        });
    }

    /// A checkpoint of a batch in which some components failed or were cancelled: the path up
    /// to `base` (the batch included), then what the batch's finished components appended
    /// (`appended`: each component's range of the path); resuming calls the failed ones again
    /// as a batch of their own, then goes on at `next`. A finished one is never called again.
    fn checkpoint_failed(
        &mut self,
        base: usize,
        next: usize,
        appended: &[(NodeId, usize, usize)],
        input: &RunInput,
    ) {
        let Some(cp) = self.checkpoints else { return };
        if !self.partials.is_empty() {
            return;
        }
        let meta = self.meta();
        let (state, point, path) = {
            let s = self.shared.state();
            let failed = |n: NodeId| unhandled_failure(meta, &s, n);
            let retry: Vec<NodeId> = appended
                .iter()
                .map(|(n, _, _)| *n)
                .filter(|n| failed(*n))
                .collect();
            if retry.is_empty() {
                return;
            }
            let mut path: Vec<Target> = s.path[..base.min(s.path.len())].to_vec();
            for (n, from, upto) in appended {
                if !failed(*n) {
                    let upto = (*upto).min(s.path.len());
                    path.extend(s.path[(*from).min(upto)..upto].iter().cloned());
                }
            }
            let mut point = self.resume_point(&s, next, input);
            point.retry = retry.iter().map(|n| meta.node(*n).id.clone()).collect();
            (s.snapshot(), point, path)
        };
        cp.sink.batch_done(PendingCheckpoint {
            meta: Arc::clone(&self.shared.meta),
            dsl: Arc::clone(cp.dsl),
            state,
            path: Some(path),
            point,
            batch: self.batches,
        });
    }

    async fn run_batch(&mut self, f: usize, t: usize, input: &RunInput) -> Result<(), RunError> {
        if self.shared.is_canceled() {
            let id = self.env.task_id.clone();
            return Err(RunError::Canceled(format!(
                "Task {id} has been canceled during batch execution."
            )));
        }
        let meta = self.meta();
        let mut scheduled = std::mem::take(&mut self.scheduled);
        let mut i = f;
        let mut t = t;
        // `batch` holds `path[f..]` as it was before any deferral.
        let mut j = 0;
        while i < t {
            let n = self.batch_node(j)?;
            j += 1;
            let kind = meta.node(n).kind;
            if matches!(kind, Kind::Begin | Kind::UserFillUp) {
                let mut kwargs = Map::new();
                kwargs.insert(
                    "inputs".into(),
                    input.inputs.clone().unwrap_or(Json::Object(Map::new())),
                );
                scheduled.push((n, kwargs));
                i += 1;
                continue;
            }
            let cx = NodeCx::new(n, self.shared);
            let deps = self.program.dependencies(&cx)?;
            let deferred = !self.resumed && !deps.is_empty() && {
                let s = self.shared.state();
                self.mark_seen(&s.path, f);
                let batch_before = &s.path[f..i];
                deps.iter().any(|d| {
                    let found = match d {
                        Target::Node(dep) => self.seen[dep.index()] || batch_before.contains(d),
                        Target::Missing(id) => {
                            id.is_empty() || s.path[..i].iter().any(|e| path_id(meta, e) == id)
                        }
                    };
                    !found
                })
            };
            drop(deps);
            if deferred {
                self.shared.state().path.remove(i);
                t -= 1;
                continue;
            }
            let kwargs = self.program.get_input(&cx)?;
            scheduled.push((n, kwargs));
            i += 1;
        }
        self.steps += scheduled.len();
        if let Some(limit) = self.shared.services.settings.step_limit {
            if self.steps > limit {
                scheduled.clear();
                self.scheduled = scheduled;
                return Err(self.step_limit_reached(limit));
            }
        }
        let program = self.program;
        let shared: &Arc<Shared> = self.shared;
        if scheduled.len() == 1 {
            // One component: no need for the concurrency machinery.
            if let Some((node, kwargs)) = scheduled.pop() {
                let cx = NodeCx::with_kwargs(node, shared, Cow::Owned(kwargs));
                invoke(program, &cx).await;
            }
        } else {
            let tasks = scheduled.drain(..).map(|(n, kwargs)| async move {
                let cx = NodeCx::with_kwargs(n, shared, Cow::Owned(kwargs));
                invoke(program, &cx).await;
            });
            futures::stream::iter(tasks)
                .buffer_unordered(MAX_CONCURRENCY)
                .for_each(|()| async {})
                .await;
        }
        // Both arms leave it empty, ready for the next batch.
        self.scheduled = scheduled;
        Ok(())
    }

    /// The error that ends a turn past the step limit, naming the cycle: the components that
    /// ran most often (at least half as often as the most frequent one), in the order they last
    /// ran.
    fn step_limit_reached(&self, limit: usize) -> RunError {
        let meta = self.meta();
        let s = self.shared.state();
        let mut runs = vec![0usize; meta.len()];
        for t in &s.path {
            if let Target::Node(n) = t {
                runs[n.index()] += 1;
            }
        }
        let most = runs.iter().copied().max().unwrap_or(0);
        let in_cycle = |n: &NodeId| runs[n.index()] * 2 >= most && most > 1;
        let mut cycle: Vec<NodeId> = Vec::new();
        for t in s.path.iter().rev() {
            if let Target::Node(n) = t {
                if in_cycle(n) && !cycle.contains(n) {
                    cycle.push(*n);
                }
            }
        }
        cycle.reverse();
        let names: Vec<String> = cycle
            .iter()
            .map(|n| format!("`{}`", meta.node(*n).id))
            .collect();
        let through = if names.is_empty() {
            String::new()
        } else {
            format!(
                " cycling through {} (about {most} times)",
                names.join(" → ")
            )
        };
        RunError::msg(format!(
            "step limit reached: this turn invoked more than {limit} components{through}; \
             end the cycle (a Loop bounds its repetitions) or raise the limit"
        ))
    }

    fn node_finished(&mut self, n: NodeId) {
        let inputs = self.program.input_keys(&self.cx(n));
        let shared: &'a Arc<Shared> = self.shared;
        self.node_finished_in(n, &shared.state(), inputs);
    }

    /// [`Runner::node_finished`] from a state the caller has locked.
    fn node_finished_in(&mut self, n: NodeId, s: &RunState, inputs: InputKeys<'_>) {
        let payload = Payload::NodeFinished {
            node: self.meta().node(n),
            state: s.node(n),
            inputs,
            now: perf_counter(),
        };
        self.sink.emit(Event {
            envelope: &self.env,
            payload: &payload,
        });
    }

    /// Post-processing of the common case under one lock: a top-level component that routes
    /// only by its `downstream`, did not fail and streams nothing. `false` (nothing done) for
    /// any other case, which [`Runner::post_process`] handles in full.
    fn finish_plain(&mut self, n: NodeId) -> bool {
        let node = self.meta().node(n);
        let routes_itself = matches!(
            node.kind,
            Kind::Message
                | Kind::Iteration
                | Kind::Loop
                | Kind::IterationItem
                | Kind::LoopItem
                | Kind::Categorize
                | Kind::Switch
                | Kind::ExitLoop
        );
        if routes_itself || node.parent.is_some() {
            return false;
        }
        let inputs = self.program.input_keys(&self.cx(n));
        let shared: &'a Arc<Shared> = self.shared;
        let mut s = shared.state();
        let st = s.node(n);
        if st.error().is_some() || st.content_streams() {
            return false;
        }
        self.node_finished_in(n, &s, inputs);
        for d in &node.downstream {
            append(&mut s.path, d);
        }
        true
    }

    async fn post_process(&mut self, n: NodeId, error: &mut String) -> Result<(), RunError> {
        if self.finish_plain(n) {
            return Ok(());
        }
        let meta = self.meta();
        let node = meta.node(n);
        if node.kind == Kind::Message {
            self.message_events(n).await?;
        }
        let mut other_branch = false;
        let (failed, streaming) = {
            let s = self.shared.state();
            let st = s.node(n);
            (st.error(), st.content_streams())
        };
        if let Some(err) = failed {
            let ex = &node.exception;
            if ex.method.is_some() && !ex.goto.is_empty() {
                let mut s = self.shared.state();
                s.path.extend(ex.goto.iter().cloned());
                other_branch = true;
            } else if ex.method.is_some() && py::truthy(&ex.default_value) {
                self.emit("message", obj([("content", ex.default_value.clone())]));
                self.emit("message_end", Json::Object(Map::new()));
            } else {
                *error = err;
                self.shared.state().error = error.clone();
            }
        }
        if !matches!(node.kind, Kind::Iteration | Kind::Loop) {
            if streaming {
                if !error.is_empty() {
                    self.shared
                        .state()
                        .node_mut(n)
                        .set_output("content", Val::NULL);
                    self.node_finished(n);
                } else {
                    self.partials.push(n);
                }
            } else {
                self.node_finished(n);
            }
        }
        let append = |s: &mut RunState, t: Target| {
            if !other_branch {
                append(&mut s.path, &t);
            }
        };
        let parent = node.parent.map(|p| (p, meta.node(p)));
        if matches!(node.kind, Kind::IterationItem | Kind::LoopItem)
            && self.program.item_ended(&self.cx(n))?
        {
            let (p, pmeta) = parent.ok_or_else(|| {
                RunError::raised("AttributeError", "'NoneType' object has no attribute '_id'")
            })?;
            self.node_finished(p);
            let mut s = self.shared.state();
            for d in &pmeta.downstream {
                append(&mut s, d.clone());
            }
        } else if matches!(node.kind, Kind::Categorize | Kind::Switch) {
            let next = self.shared.state().node(n).output("_next");
            let ids: Vec<String> = match next {
                Val::Json(Json::Array(a)) => a
                    .iter()
                    .map(|v| match v {
                        Json::String(s) => s.clone(),
                        other => py::str_of(other),
                    })
                    .collect(),
                Val::Json(Json::String(s)) => s.chars().map(|c| c.to_string()).collect(),
                _ => return Err(RunError::type_error("'NoneType' object is not iterable")),
            };
            let mut s = self.shared.state();
            for id in ids {
                let t = match meta.find(&id) {
                    Some(n) => Target::Node(n),
                    None => Target::Missing(id),
                };
                append(&mut s, t);
            }
        } else if matches!(node.kind, Kind::Iteration | Kind::Loop) {
            let start = node
                .start
                .ok_or_else(|| RunError::type_error("'NoneType' object is not subscriptable"))?;
            append(&mut self.shared.state(), Target::Node(start));
        } else if node.kind == Kind::ExitLoop && parent.is_some_and(|(_, p)| p.kind == Kind::Loop) {
            let (_, pmeta) = parent.expect("checked");
            let mut s = self.shared.state();
            for d in &pmeta.downstream {
                append(&mut s, d.clone());
            }
        } else if node.kind == Kind::ExitLoop && parent.is_none() {
            return Err(RunError::raised(
                "AttributeError",
                "'NoneType' object has no attribute 'component_name'",
            ));
        } else if node.downstream.is_empty() && parent.is_some() {
            let (_, pmeta) = parent.expect("checked");
            let start = pmeta
                .start
                .ok_or_else(|| RunError::type_error("'NoneType' object is not subscriptable"))?;
            append(&mut self.shared.state(), Target::Node(start));
        } else {
            let mut s = self.shared.state();
            for d in &node.downstream {
                append(&mut s, d.clone());
            }
        }
        Ok(())
    }

    /// BS §16.10: stream or emit a Message's content, `message_end`, then flush pending
    /// partials whose streams are consumed.
    async fn message_events(&mut self, n: NodeId) -> Result<(), RunError> {
        let content = self.shared.state().node(n).output("content");
        match content {
            Val::Stream(stream) => {
                let mut acc = String::new();
                let mut s = stream.open();
                while let Some(m) = s.next().await {
                    let m = m?;
                    if m.is_empty() {
                        continue;
                    }
                    if m == "<think>" {
                        self.emit(
                            "message",
                            obj([
                                ("content", Json::String(String::new())),
                                ("start_to_think", Json::Bool(true)),
                            ]),
                        );
                        continue;
                    }
                    if m == "</think>" {
                        self.emit(
                            "message",
                            obj([
                                ("content", Json::String(String::new())),
                                ("end_to_think", Json::Bool(true)),
                            ]),
                        );
                        continue;
                    }
                    acc.push_str(&m);
                    self.emit("message", obj([("content", Json::String(m))]));
                }
                self.shared
                    .state()
                    .node_mut(n)
                    .set_output("content", Val::Json(Json::String(acc)));
            }
            Val::Json(j) => self.emit("message", obj([("content", j)])),
        }
        let message_end = {
            let s = self.shared.state();
            let st = s.node(n);
            let mut m = Map::new();
            if let Some(status) = self
                .shared
                .meta
                .node(n)
                .param("status")
                .filter(|v| py::truthy(v))
            {
                m.insert("status".into(), status.clone());
            }
            if let Val::Json(att @ Json::Object(_)) = st.output("attachment") {
                m.insert("attachment".into(), att);
            }
            if let Val::Json(Json::Array(d)) = st.output("downloads") {
                if !d.is_empty() {
                    m.insert("downloads".into(), Json::Array(d));
                }
            }
            if s.has_reference() {
                m.insert("reference".into(), s.reference());
            }
            Json::Object(m)
        };
        self.emit("message_end", message_end);
        while let Some(&first) = self.partials.first() {
            if self
                .shared
                .state()
                .node(first)
                .output("content")
                .is_stream()
            {
                break;
            }
            self.node_finished(first);
            self.partials.remove(0);
        }
        Ok(())
    }

    /// BS §16.11: pause when a UserFillUp waiting on the path has unsatisfied fields.
    async fn pause_if_waiting(&mut self, idx: usize) -> Result<bool, RunError> {
        let meta = self.meta();
        if !meta.has_forms {
            return Ok(false);
        }
        let is_form =
            |t: &Target| matches!(t, Target::Node(n) if meta.node(*n).kind == Kind::UserFillUp);
        let rest: Vec<Target> = {
            let s = self.shared.state();
            let rest = &s.path[idx.min(s.path.len())..];
            if !rest.iter().any(is_form) {
                return Ok(false);
            }
            rest.to_vec()
        };
        let exists = |t: &Target| matches!(t, Target::Node(_));
        let mut pending: Vec<Target> = rest.iter().filter(|t| is_form(t)).cloned().collect();
        pending.extend(rest.iter().filter(|t| exists(t) && !is_form(t)).cloned());
        let mut unsatisfied = Map::new();
        let mut tips = Json::String(String::new());
        for t in &pending {
            let Target::Node(n) = t else { continue };
            if meta.node(*n).kind != Kind::UserFillUp {
                continue;
            }
            let cx = self.cx(*n);
            invoke(self.program, &cx).await;
            let s = self.shared.state();
            for (k, field) in &s.node(*n).inputs {
                let field = field.to_json();
                if !field_satisfied(&field) {
                    unsatisfied.insert(k.to_string(), field);
                }
            }
            if meta.node(*n).param("enable_tips").is_some_and(py::truthy) {
                tips = s.node(*n).output("tips").to_event_json();
            }
        }
        if unsatisfied.is_empty() {
            return Ok(false);
        }
        self.shared.state().path = pending;
        self.emit(
            "user_inputs",
            obj([("inputs", Json::Object(unsatisfied)), ("tips", tips)]),
        );
        Ok(true)
    }

    fn finish(
        &mut self,
        idx: usize,
        st: f64,
        input: &RunInput,
        error: String,
    ) -> Result<RunOutcome, RunError> {
        let last = {
            let mut s = self.shared.state();
            s.path.truncate(idx);
            s.path.last().cloned()
        };
        let usage = {
            let u = self.shared.state().usage;
            obj([
                ("prompt_tokens", Json::from(u.prompt_tokens)),
                ("completion_tokens", Json::from(u.completion_tokens)),
                ("total_tokens", Json::from(u.total_tokens)),
                ("calls", Json::from(u.calls)),
            ])
        };
        if error.is_empty() {
            let last = self.node_of(
                &last.ok_or_else(|| RunError::raised("IndexError", "list index out of range"))?,
            )?;
            let (outputs, repr) = {
                let s = self.shared.state();
                let outs = s.node(last).outputs_map();
                let json = Json::Object(
                    outs.iter()
                        .map(|(k, v)| (k.clone(), v.to_event_json()))
                        .collect(),
                );
                (json.clone(), py::str_of(&json))
            };
            self.emit(
                "workflow_finished",
                obj([
                    ("inputs", input.inputs.clone().unwrap_or(Json::Null)),
                    ("outputs", outputs.clone()),
                    ("elapsed_time", Json::from(perf_counter() - st)),
                    ("created_at", Json::from(st)),
                    ("usage", usage),
                ]),
            );
            let mut s = self.shared.state();
            s.history
                .push(Json::Array(vec![Json::String("assistant".into()), outputs]));
            s.push_sys_history(format!("assistant: {repr}"));
            Ok(RunOutcome::Finished)
        } else if error.contains(CANCELED) {
            self.emit(
                "workflow_finished",
                obj([
                    ("inputs", input.inputs.clone().unwrap_or(Json::Null)),
                    ("outputs", Json::String(CANCELED.into())),
                    ("elapsed_time", Json::from(perf_counter() - st)),
                    ("created_at", Json::from(st)),
                    ("usage", usage),
                ]),
            );
            Ok(RunOutcome::Canceled)
        } else {
            Ok(RunOutcome::Failed(error))
        }
    }
}

/// A component failed and no exception route took the failure (post-processing then ends
/// the turn with its error).
fn unhandled_failure(meta: &CanvasMeta, s: &RunState, n: NodeId) -> bool {
    if s.node(n).error().is_none() {
        return false;
    }
    let ex = &meta.node(n).exception;
    let handled = ex.method.is_some() && (!ex.goto.is_empty() || py::truthy(&ex.default_value));
    !handled
}

/// Extend the path by `t`, unless `t` is already its last entry.
fn append(path: &mut Vec<Target>, t: &Target) {
    if path.last() != Some(t) {
        path.push(t.clone());
    }
}

/// The id a path entry stands for.
fn path_id<'m>(meta: &'m CanvasMeta, t: &'m Target) -> &'m str {
    match t {
        Target::Node(n) => &meta.node(*n).id,
        Target::Missing(id) => id,
    }
}

/// `Canvas._is_input_field_satisfied`.
fn field_satisfied(field: &Json) -> bool {
    let Json::Object(m) = field else {
        return !field.is_null();
    };
    let value = m.get("value").unwrap_or(&Json::Null);
    let ty = m
        .get("type")
        .map(py::str_of)
        .unwrap_or_default()
        .to_lowercase();
    if ty.contains("file") {
        if m.get("optional").is_some_and(py::truthy) && value.is_null() {
            return true;
        }
        return !(value.is_null()
            || value == &Json::Array(Vec::new())
            || value == &Json::String(String::new()));
    }
    !value.is_null()
}

/// The invoke wrapper around a component body (BS §6): timing outputs, cancellation, timeouts,
/// and what a raised error becomes; inside the invocation's span when one is recorded.
pub async fn invoke<P: Program>(program: &P, cx: &NodeCx<'_>) {
    let m = cx.meta();
    let span = tracing::info_span!(
        target: "canvasc",
        "canvasc.component",
        otel.name = tracing::field::Empty,
        canvasc.component.id = %m.id,
        canvasc.component.kind = m.kind.name(),
        canvasc.component.name = %m.display_name,
        canvasc.component.attempt = 1u32,
        canvasc.component.outcome = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        invoke_in(program, cx, &span).await
    } else {
        span.record("otel.name", format!("{} {}", m.kind.name(), m.id).as_str());
        invoke_in(program, cx, &span).instrument(span.clone()).await
    }
}

/// Name the invocation's outcome on its span (`ok`, `error`, `canceled`).
fn outcome(span: &Span, outcome: &'static str) {
    if span.is_disabled() {
        return;
    }
    span.record("canvasc.component.outcome", outcome);
    if outcome == "error" {
        span.record("otel.status_code", "ERROR");
    }
}

async fn invoke_in<P: Program>(program: &P, cx: &NodeCx<'_>, span: &Span) {
    let kind = cx.meta().kind;
    let tool_wrapper = kind.uses_tool_wrapper();
    let python_async = matches!(
        kind,
        Kind::Llm | Kind::Categorize | Kind::Agent | Kind::Retrieval
    );
    let canceled = |s: &mut RunState| {
        s.node_mut(cx.node)
            .set_output_slot(SLOT_ERROR, Val::Json(Json::String(CANCELED.into())));
        outcome(span, "canceled");
    };
    if tool_wrapper && cx.shared.is_canceled() {
        canceled(&mut cx.state());
        return;
    }
    let created = perf_counter();
    {
        let mut s = cx.state();
        s.node_mut(cx.node).set_time(SLOT_CREATED_TIME, created);
        if !tool_wrapper && python_async && cx.shared.is_canceled() {
            canceled(&mut s);
            return;
        }
        // A body with nothing to wait for runs under this lock; timeouts cannot fire on it.
        if let Some(result) = program.body_now(cx, &mut s) {
            outcome(span, if result.is_ok() { "ok" } else { "error" });
            finish_invoke(cx, &mut s, result, tool_wrapper);
            return;
        }
    }
    let result = with_timeout(program, cx, kind, python_async, span).await;
    outcome(span, if result.is_ok() { "ok" } else { "error" });
    finish_invoke(cx, &mut cx.state(), result, tool_wrapper);
}

/// The end of the invoke wrapper: a raised error becomes `_ERROR` (or the exception default),
/// and `_elapsed_time` is set.
fn finish_invoke(
    cx: &NodeCx<'_>,
    s: &mut RunState,
    result: Result<(), RunError>,
    tool_wrapper: bool,
) {
    let st = s.node_mut(cx.node);
    if let Err(e) = result {
        let msg = e.to_string();
        if tool_wrapper {
            st.insert_record(
                "_ERROR",
                super::state::Record::with_value(Json::String(msg)),
            );
        } else {
            let m = cx.meta();
            let comment_default = m.param("exception_method").and_then(Json::as_str)
                == Some("comment")
                && m.param("exception_default_value").is_some_and(py::truthy);
            if comment_default {
                let v = m
                    .param("exception_default_value")
                    .cloned()
                    .unwrap_or(Json::Null);
                st.set_output("result", Val::Json(v));
            } else {
                st.set_output_slot(SLOT_ERROR, Val::Json(Json::String(msg)));
            }
        }
    }
    // The body may have replaced `_created_time` (Python reads it back).
    let created = st.created_time().unwrap_or(0.0);
    st.set_time(SLOT_ELAPSED_TIME, perf_counter() - created);
}

/// Per-class timeouts, enforced only with `ENABLE_TIMEOUT_ASSERTION` (BS §7): a synchronous
/// body is waited for twice; an async body is re-run once after the first expiry.
async fn with_timeout<P: Program>(
    program: &P,
    cx: &NodeCx<'_>,
    kind: Kind,
    python_async: bool,
    span: &Span,
) -> Result<(), RunError> {
    let settings = &cx.shared.services.settings;
    let secs = settings
        .component_exec_timeout
        .or_else(|| canvasc_frontend::catalog::default_timeout_secs(kind));
    let Some(secs) = secs.filter(|_| settings.enforce_timeouts) else {
        return program.body(cx).await;
    };
    let limit = std::time::Duration::from_secs(secs);
    if python_async {
        for attempt in 0..2 {
            match tokio::time::timeout(limit, program.body(cx)).await {
                Ok(r) => return r,
                Err(_) if attempt == 0 => {
                    span.record("canvasc.component.attempt", 2u32);
                    continue;
                }
                Err(_) => {}
            }
        }
        Err(RunError::msg(format!(
            "Operation timed out after {secs} seconds and 2 attempts."
        )))
    } else {
        match tokio::time::timeout(limit * 2, program.body(cx)).await {
            Ok(r) => r,
            Err(_) => Err(RunError::msg(format!(
                "Function '_invoke' timed out after {secs} seconds and 2 attempts."
            ))),
        }
    }
}
