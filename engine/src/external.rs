//! The seam for components and tools implemented outside the engine. The engine holds no web
//! client, document writer or API key: an edge crate (`canvasc-tools`, and others) implements
//! [`External`] for a kind, the host registers it in `Services::external` (an [`Externals`]),
//! and both uses of a tool run that one implementation:
//!
//! * a canvas node: `components::external::Spec` looks the kind up and invokes it with the
//!   node's parameters and its `get_input()` arguments; outputs land on the node;
//! * an Agent's function call: the Agent invokes it with the tool entry's parameters (merged
//!   with RAGFlow's defaults) and the model's arguments; outputs stay with the tool, the return
//!   value is what the model reads.
//!
//! An implementation sees a [`ToolCx`], and through it only the [`ToolNode`] capabilities: the
//! pieces of the services tools use and the few reads and writes of the run they make, never
//! `Services` or the run state. The engine implements [`ToolNode`] for its invocation context
//! (`components/external.rs`); this module names neither, so `Services`, which holds the
//! registry of [`External`]s, does not reach back into it through the context.
//!
//! The runtime does not depend on any such crate, so the proc macro and a build without the
//! host's `tools` feature compile none of them; a kind with no registered implementation fails
//! as an unsupported one does.

use super::error::RunError;
use super::llm::ChatProvider;
use super::settings::Settings;
use super::ssrf::{Guard, Resolver};
use super::telemetry::RunLabels;
use super::val::Val;
use canvasc_frontend::catalog::Kind;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// A component or tool implemented outside the engine: RAGFlow's `_invoke` for one kind.
pub trait External: Send + Sync + 'static {
    /// `_invoke(**args)`: the return value is the tool result an Agent's model reads (`Null`
    /// for Python's `None`). An `Err` becomes `_ERROR` and the result text, as ToolBase's
    /// wrapper does; errors a tool words itself (`"<Tool> error: …"`) are returned as `Ok`
    /// after setting `_ERROR` through [`ToolCx::set_output`].
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>>;

    /// `thoughts()` shown in `node_started`, from the parameters and `get_input()`; `None` for
    /// ToolBase's `<name> is running...`.
    fn thoughts(&self, _params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        None
    }
}

/// The implementations a process offers, by kind.
#[derive(Clone, Default)]
pub struct Externals {
    by_kind: BTreeMap<Kind, Arc<dyn External>>,
}

impl Externals {
    /// Offer `implementation` for `kind` (a later registration replaces an earlier one).
    pub fn register(&mut self, kind: Kind, implementation: Arc<dyn External>) {
        self.by_kind.insert(kind, implementation);
    }

    pub fn get(&self, kind: Kind) -> Option<&Arc<dyn External>> {
        self.by_kind.get(&kind)
    }

    /// The kinds with an implementation, in catalogue order.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.by_kind.keys().copied()
    }
}

impl fmt::Debug for Externals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.by_kind.keys()).finish()
    }
}

/// What an [`External`] may reach of the node running it (the tool itself, or the Agent calling
/// it) and of the run's services: exactly what RAGFlow's tools use, as capabilities. The engine
/// implements it for its invocation context; [`ToolCx`] is the only caller, and hands tools the
/// node-facing part with the outputs sent to the right place.
pub trait ToolNode: Sync {
    /// The component id.
    fn id(&self) -> &str;
    /// The node's merged parameters (RAGFlow's defaults and the DSL's).
    fn params(&self) -> &Map<String, Json>;
    /// Whether the run was canceled (`is_canceled()`).
    fn is_canceled(&self) -> bool;
    /// `set_output` on the node's own outputs.
    fn set_output(&self, key: &str, value: Json);
    /// An output of the node set so far (`Null` when unset or still a stream).
    fn output(&self, key: &str) -> Json;
    /// `set_input_value(key, value)`: an entry of the node's inputs record.
    fn set_input_value(&self, key: &str, value: Json);
    /// `get_variable_value(exp)`: a reference read by name. Tools scan their texts when they
    /// run, so none of their references has a binding (only the templates a program binds when
    /// it is built do), and reading by name is all a tool's template needs.
    fn value(&self, exp: &str) -> Result<Val, RunError>;
    /// `get_input_elements_from_text(text)`: every reference in `text`, in first-occurrence
    /// order, read now (iteration aliases last when the node sits in an Iteration).
    fn elements_from_text(&self, text: &str) -> Result<Vec<(String, Val)>, RunError>;
    /// `Canvas.add_reference(chunks, doc_infos)`: the chunks (as `chunks_format` shapes them)
    /// and document aggregates join the current turn's reference accumulator.
    fn add_reference(&self, chunks: &[Json], doc_aggs: &[Json]);
    /// The shared HTTP client, for the endpoints the configuration names (URLs a canvas
    /// controls go through [`ToolNode::guard`] and `outbound::fetch`).
    fn http(&self) -> &reqwest::Client;
    /// The SSRF guard every canvas-controlled URL or host passes.
    fn guard(&self) -> Guard;
    /// How the guard resolves host names, for a raw host a tool connects to itself.
    fn resolver(&self) -> &dyn Resolver;
    /// RAGFlow's process-wide settings.
    fn settings(&self) -> &Settings;
    /// The tenant the run belongs to (`canvas.get_tenant_id()`); `None` outside a server.
    fn tenant_id(&self) -> Option<&str>;
    /// The chat model provider, when the host configured one (the Browser's agent calls it).
    fn llm(&self) -> Option<&Arc<dyn ChatProvider>>;
    /// The host's labels of the run (canvas id, session, fingerprint).
    fn run_labels(&self) -> &RunLabels;
}

/// Where a tool's outputs go.
enum Sink {
    /// A canvas node: its own outputs in the run state.
    Node,
    /// An Agent's tool object: outputs of its own, which the model never sees directly.
    Tool(Mutex<Map<String, Json>>),
}

/// What an [`External`] implementation sees while it runs: its kind, parameters and outputs,
/// the run's cancellation and reference accumulator, the references it reads, and the pieces of
/// the services tools call, all through the [`ToolNode`] running it.
pub struct ToolCx<'a> {
    node: &'a dyn ToolNode,
    kind: Kind,
    params: &'a Map<String, Json>,
    /// The component id (a node) or the function name (`<name>_<n>`, an Agent's tool), for
    /// error texts.
    name: &'a str,
    sink: Sink,
}

impl<'a> ToolCx<'a> {
    /// A canvas node of `kind`, with the node's merged parameters.
    pub fn node(node: &'a dyn ToolNode, kind: Kind) -> Self {
        ToolCx {
            node,
            kind,
            params: node.params(),
            name: node.id(),
            sink: Sink::Node,
        }
    }

    /// A tool of the Agent `node` runs, called by the model as `name`.
    pub fn agent_tool(
        node: &'a dyn ToolNode,
        kind: Kind,
        params: &'a Map<String, Json>,
        name: &'a str,
    ) -> Self {
        ToolCx {
            node,
            kind,
            params,
            name,
            sink: Sink::Tool(Mutex::default()),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The component id, or the function name of an Agent's tool.
    pub fn name(&self) -> &str {
        self.name
    }

    /// Whether this runs as an Agent's function call (not as a canvas node).
    pub fn is_agent_tool(&self) -> bool {
        matches!(self.sink, Sink::Tool(_))
    }

    /// RAGFlow's parameters (defaults merged with the DSL's).
    pub fn params(&self) -> &Map<String, Json> {
        self.params
    }

    pub fn param(&self, key: &str) -> Option<&Json> {
        self.params.get(key)
    }

    /// The shared HTTP client.
    pub fn http(&self) -> &reqwest::Client {
        self.node.http()
    }

    /// The SSRF guard: `ALLOW_ANY_HOST`, the allow-list, the resolver.
    pub fn guard(&self) -> Guard {
        self.node.guard()
    }

    /// The guard's resolver, for a raw host a tool connects to itself (a database, an SMTP
    /// server).
    pub fn resolver(&self) -> &dyn Resolver {
        self.node.resolver()
    }

    /// RAGFlow's process-wide settings.
    pub fn settings(&self) -> &Settings {
        self.node.settings()
    }

    /// The tenant the run belongs to; files a run stores go under it.
    pub fn tenant_id(&self) -> Option<&str> {
        self.node.tenant_id()
    }

    /// The chat model provider, when one is configured.
    pub fn llm(&self) -> Option<&Arc<dyn ChatProvider>> {
        self.node.llm()
    }

    /// The host's labels of the run (canvas id, session, fingerprint).
    pub fn run_labels(&self) -> &RunLabels {
        self.node.run_labels()
    }

    /// `get_variable_value(exp)`.
    pub fn value(&self, exp: &str) -> Result<Val, RunError> {
        self.node.value(exp)
    }

    /// `get_input_elements_from_text(text)` of the node running (the tool, or the Agent
    /// calling it): `(expression, value)` in first-occurrence order.
    pub fn elements_from_text(&self, text: &str) -> Result<Vec<(String, Val)>, RunError> {
        self.node.elements_from_text(text)
    }

    /// `set_input_value(key, value)` on the node running (the tool, or the Agent calling it).
    pub fn set_input_value(&self, key: &str, value: Json) {
        self.node.set_input_value(key, value)
    }

    /// Whether the run was canceled (`is_canceled()`).
    pub fn is_canceled(&self) -> bool {
        self.node.is_canceled()
    }

    /// `check_if_canceled()`: sets `_ERROR` when the run was canceled and says so.
    pub fn check_canceled(&self) -> bool {
        let canceled = self.is_canceled();
        if canceled {
            self.set_output("_ERROR", Json::String(super::error::CANCELED.into()));
        }
        canceled
    }

    pub fn set_output(&self, key: &str, value: Json) {
        match &self.sink {
            Sink::Node => self.node.set_output(key, value),
            Sink::Tool(outputs) => {
                lock(outputs).insert(key.to_string(), value);
            }
        }
    }

    /// An output set so far (`Null` when unset).
    pub fn output(&self, key: &str) -> Json {
        match &self.sink {
            Sink::Node => self.node.output(key),
            Sink::Tool(outputs) => lock(outputs).get(key).cloned().unwrap_or(Json::Null),
        }
    }

    /// The outputs of an Agent's tool (`output()`); empty for a node, whose outputs are in the
    /// run state.
    pub fn tool_outputs(&self) -> Map<String, Json> {
        match &self.sink {
            Sink::Node => Map::new(),
            Sink::Tool(outputs) => lock(outputs).clone(),
        }
    }

    /// `Canvas.add_reference(chunks, doc_infos)`: the chunks and document aggregates join the
    /// current turn's reference accumulator.
    pub fn add_reference(&self, chunks: &[Json], doc_aggs: &[Json]) {
        self.node.add_reference(chunks, doc_aggs)
    }
}

fn lock(m: &Mutex<Map<String, Json>>) -> std::sync::MutexGuard<'_, Map<String, Json>> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
