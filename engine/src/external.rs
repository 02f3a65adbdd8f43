//! The seam for components and tools implemented outside the engine. The engine holds no web
//! client, document writer or API key: an edge crate (`canvasc-tools`, and others) implements
//! [`External`] for a kind, the host registers it in [`Services::external`], and both uses of
//! a tool run that one implementation:
//!
//! * a canvas node: `components::external::Spec` looks the kind up and invokes it with the
//!   node's parameters and its `get_input()` arguments; outputs land on the node;
//! * an Agent's function call: the Agent invokes it with the tool entry's parameters (merged
//!   with RAGFlow's defaults) and the model's arguments; outputs stay with the tool, the return
//!   value is what the model reads.
//!
//! The runtime does not depend on any such crate, so the proc macro and a build without the
//! host's `tools` feature compile none of them; a kind with no registered implementation fails
//! as an unsupported one does.

use super::context::NodeCx;
use super::error::RunError;
use super::llm::kb_prompt::hash_str2int;
use super::services::Services;
use canvasc_frontend::catalog::Kind;
use canvasc_value::{py, Json, Map};
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

/// Where a tool's outputs go.
enum Sink {
    /// A canvas node: its own outputs in the run state.
    Node,
    /// An Agent's tool object: outputs of its own, which the model never sees directly.
    Tool(Mutex<Map<String, Json>>),
}

/// What an [`External`] implementation sees while it runs: its kind, parameters, the services,
/// the run's cancellation, its outputs and the turn's reference accumulator.
pub struct ToolCx<'a> {
    node: &'a NodeCx<'a>,
    kind: Kind,
    params: &'a Map<String, Json>,
    /// The component id (a node) or the function name (`<name>_<n>`, an Agent's tool), for
    /// error texts.
    name: &'a str,
    sink: Sink,
}

impl<'a> ToolCx<'a> {
    /// A canvas node of `kind`, with the node's merged parameters.
    pub fn node(node: &'a NodeCx<'a>, kind: Kind) -> Self {
        ToolCx {
            node,
            kind,
            params: &node.meta().params,
            name: &node.meta().id,
            sink: Sink::Node,
        }
    }

    /// A tool of the Agent `node` runs, called by the model as `name`.
    pub fn agent_tool(
        node: &'a NodeCx<'a>,
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

    pub fn services(&self) -> &Services {
        &self.node.shared.services
    }

    /// The node running: the tool itself, or the Agent calling it.
    pub fn node_cx(&self) -> &NodeCx<'a> {
        self.node
    }

    /// Whether the run was canceled (`is_canceled()`).
    pub fn is_canceled(&self) -> bool {
        self.node.shared.is_canceled()
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
            Sink::Node => self.node.output(key).json().cloned().unwrap_or(Json::Null),
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

    /// `Canvas.add_reference(chunks, doc_infos)`: the chunks (as `chunks_format` shapes them)
    /// and document aggregates join the current turn's reference accumulator.
    pub fn add_reference(&self, chunks: &[Json], doc_aggs: &[Json]) {
        let mut s = self.node.state();
        if s.retrieval.is_empty() {
            s.retrieval
                .push(serde_json::json!({"chunks": {}, "doc_aggs": {}}));
        }
        let Some(Json::Object(r)) = s.retrieval.last_mut() else {
            return;
        };
        for chunk in chunks.iter().filter_map(Json::as_object) {
            let formatted = chunks_format(chunk);
            let id = formatted.get("id").map(py::str_of).unwrap_or_default();
            let cid = hash_str2int(&id, 500).to_string();
            insert_into(r, "chunks", cid, Json::Object(formatted));
        }
        for doc in doc_aggs {
            let name = doc.get("doc_name").map(py::str_of).unwrap_or_default();
            insert_into(r, "doc_aggs", name, doc.clone());
        }
    }
}

fn lock(m: &Mutex<Map<String, Json>>) -> std::sync::MutexGuard<'_, Map<String, Json>> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `r[key][k] = v`, making `r[key]` a dict when a turn started it as a list.
fn insert_into(r: &mut Map<String, Json>, key: &str, k: String, v: Json) {
    let slot = r
        .entry(key.to_string())
        .or_insert_with(|| Json::Object(Map::new()));
    if !slot.is_object() {
        *slot = Json::Object(Map::new());
    }
    if let Json::Object(m) = slot {
        m.insert(k, v);
    }
}

/// `rag.prompts.generator.chunks_format` for one chunk.
fn chunks_format(chunk: &Map<String, Json>) -> Map<String, Json> {
    let get = |k: &str| chunk.get(k).cloned().unwrap_or(Json::Null);
    let either = |k1: &str, k2: &str| {
        chunk
            .get(k1)
            .or_else(|| chunk.get(k2))
            .cloned()
            .unwrap_or(Json::Null)
    };
    let mut out = Map::new();
    for (key, value) in [
        ("id", either("chunk_id", "id")),
        ("content", either("content", "content_with_weight")),
        ("document_id", either("doc_id", "document_id")),
        ("document_name", either("docnm_kwd", "document_name")),
        ("dataset_id", either("kb_id", "dataset_id")),
        ("image_id", either("image_id", "img_id")),
        ("positions", either("positions", "position_int")),
        ("url", get("url")),
        ("similarity", get("similarity")),
        ("vector_similarity", get("vector_similarity")),
        ("term_similarity", get("term_similarity")),
        ("row_id", get("row_id")),
        ("doc_type", either("doc_type_kwd", "doc_type")),
        ("document_metadata", get("document_metadata")),
    ] {
        out.insert(key.to_string(), value);
    }
    out
}
