//! What a component sees while it runs: the session's shared part ([`Shared`]) and the
//! invocation at hand ([`NodeCx`]).

use super::cancel::CancelFlag;
use super::error::{RunError, CANCELED};
use super::llm::bundle::UsageMeter;
use super::llm::TokenUsage;
use super::random::PyRandom;
use super::services::Services;
use super::state::RunState;
use crate::read_bound::ReadBound;
use crate::val::Val;
use canvasc_frontend::binding::Bound;
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::{CanvasMeta, NodeMeta};
use canvasc_value::{Json, Map};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard};

/// Python's process-wide `random` state: one per process in RAGFlow, so it carries across
/// turns even when a session is reloaded from its saved DSL.
pub type SharedRandom = Arc<Mutex<PyRandom>>;

/// Everything of a session that components may touch while it runs.
pub struct Shared {
    pub meta: Arc<CanvasMeta>,
    state: Mutex<RunState>,
    pub services: Services,
    pub cancel: CancelFlag,
    rng: SharedRandom,
}

impl Shared {
    pub fn new(
        meta: Arc<CanvasMeta>,
        state: RunState,
        services: Services,
        rng: SharedRandom,
    ) -> Self {
        Shared {
            meta,
            state: Mutex::new(state),
            services,
            cancel: CancelFlag::default(),
            rng,
        }
    }

    /// Lock the run state. Never hold the guard across an `.await`.
    pub fn state(&self) -> MutexGuard<'_, RunState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn random_below(&self, n: usize) -> usize {
        self.rng.lock().unwrap_or_else(|p| p.into_inner()).below(n)
    }

    pub fn is_canceled(&self) -> bool {
        self.cancel.is_canceled()
    }
}

impl UsageMeter for Shared {
    fn add(&self, used: TokenUsage) {
        let mut s = self.state();
        s.usage.prompt_tokens = s.usage.prompt_tokens.saturating_add(used.prompt_tokens);
        s.usage.completion_tokens = s
            .usage
            .completion_tokens
            .saturating_add(used.completion_tokens);
        s.usage.total_tokens = s.usage.total_tokens.saturating_add(used.total_tokens);
        s.usage.calls = s.usage.calls.saturating_add(1);
    }

    fn cancel_flag(&self) -> Option<CancelFlag> {
        Some(self.cancel.clone())
    }
}

/// The context of one node invocation.
pub struct NodeCx<'a> {
    pub node: NodeId,
    pub shared: &'a Arc<Shared>,
    /// `get_input()` results, or `{"inputs": …}` for Begin/UserFillUp. Borrowed (empty) for
    /// the scheduler's many short-lived contexts that pass no arguments, which then make no map.
    pub kwargs: Cow<'a, Map<String, Json>>,
}

/// The keyword arguments of a context that passes none.
static NO_KWARGS: std::sync::LazyLock<Map<String, Json>> = std::sync::LazyLock::new(Map::new);

impl<'a> NodeCx<'a> {
    pub fn new(node: NodeId, shared: &'a Arc<Shared>) -> Self {
        Self::with_kwargs(node, shared, Cow::Borrowed(&NO_KWARGS))
    }

    pub fn with_kwargs(
        node: NodeId,
        shared: &'a Arc<Shared>,
        kwargs: Cow<'a, Map<String, Json>>,
    ) -> Self {
        NodeCx {
            node,
            shared,
            kwargs,
        }
    }

    pub fn meta(&self) -> &NodeMeta {
        self.shared.meta.node(self.node)
    }

    pub fn state(&self) -> MutexGuard<'_, RunState> {
        self.shared.state()
    }

    /// `get_variable_value(exp)`.
    pub fn value(&self, exp: &str) -> Result<Val, RunError> {
        self.state().get_variable_value(&self.shared.meta, exp)
    }

    /// `get_variable_value(exp)` through the binding the program was built with, if any.
    pub fn read(&self, bound: Option<&Bound>, exp: &str) -> Result<Val, RunError> {
        self.read_in(&self.state(), bound, exp)
    }

    /// [`NodeCx::read`] in a state the caller has locked.
    pub fn read_in(&self, s: &RunState, bound: Option<&Bound>, exp: &str) -> Result<Val, RunError> {
        match bound {
            Some(b) => b.read(s),
            None => s.get_variable_value(&self.shared.meta, exp),
        }
    }

    pub fn set_output(&self, key: &str, value: impl Into<Val>) {
        self.state()
            .node_mut(self.node)
            .set_output(key, value.into());
    }

    pub fn output(&self, key: &str) -> Val {
        self.state().node(self.node).output(key)
    }

    pub fn set_input_value(&self, key: &str, value: Json) {
        self.state().node_mut(self.node).set_input_value(key, value);
    }

    /// [`NodeCx::set_input_value`] of a key the caller shares (a template's element names).
    pub fn set_input_value_shared(&self, key: &Arc<str>, value: Json) {
        self.state()
            .node_mut(self.node)
            .set_input_value_shared(key, value);
    }

    /// RAGFlow's `check_if_canceled`: sets `_ERROR` and says so.
    pub fn check_canceled(&self) -> bool {
        self.shared.is_canceled() && self.check_canceled_in(&mut self.state())
    }

    /// [`NodeCx::check_canceled`] in a state the caller has locked.
    pub fn check_canceled_in(&self, s: &mut RunState) -> bool {
        let canceled = self.shared.is_canceled();
        if canceled {
            s.node_mut(self.node)
                .set_output("_ERROR", Json::String(CANCELED.into()).into());
        }
        canceled
    }

    /// A parameter of this node.
    pub fn param(&self, key: &str) -> Option<&Json> {
        self.meta().params.get(key)
    }
}
