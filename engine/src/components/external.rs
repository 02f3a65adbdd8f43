//! A kind implemented outside the engine ([`crate::external`]): the node looks its
//! implementation up in `Services::external` and runs it with the node's parameters and
//! `get_input()` arguments. Without a registered implementation (a build without the host's
//! `tools` feature) it fails as an unsupported kind does.
//!
//! It is also the engine's side of that seam: [`ToolNode`] for [`NodeCx`], the capabilities an
//! implementation reaches through its `ToolCx` (an Agent's tool runs on the Agent's context).
//! Here, and not in `context.rs`, because reading references as RAGFlow's tools do takes
//! `interpolate`, which is built on the context.

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::external::{ToolCx, ToolNode};
use crate::interpolate::elements_from_text;
use crate::llm::kb_prompt::hash_str2int;
use crate::llm::ChatProvider;
use crate::settings::Settings;
use crate::ssrf::{Guard, Resolver};
use crate::telemetry::RunLabels;
use crate::val::Val;
use canvasc_frontend::catalog::Kind;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Spec(pub Kind);

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        let Some(implementation) = cx.shared.services.external.get(self.0).cloned() else {
            return Err(RunError::msg(format!(
                "canvasc cannot run {} components in this build: no implementation is registered (component `{}`)",
                self.0,
                cx.meta().id
            )));
        };
        let tcx = ToolCx::node(cx, self.0);
        let call = implementation.invoke(&tcx, cx.kwargs.clone().into_owned());
        // A cancel ends a call in flight (a silent endpoint, the sandbox, a crawl) once
        // `CALL_GRACE` has passed without its answer (one answering sooner shows its result,
        // as RAGFlow's does); the tool then ends as RAGFlow's do when `check_if_canceled()`
        // answers yes.
        match cx.shared.cancel.or_cancel_after_grace(call).await {
            Some(done) => done.map(|_| ()),
            None => {
                tcx.check_canceled();
                Ok(())
            }
        }
    }

    /// The implementation's thoughts (from `get_input()`, as Python's read it), else ToolBase's `<display name> is running...` (tools)
    /// or nothing (components).
    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        let own = match cx.shared.services.external.get(self.0) {
            // Python's `thoughts()` reads `get_input()`, which records the input values.
            Some(i) => i.thoughts(&cx.meta().params, &super::generic_get_input(cx)?),
            None => None,
        };
        Ok(match own {
            Some(t) => Cow::Owned(t),
            None if self.0.is_tool() => {
                Cow::Owned(format!("{} is running...", cx.meta().display_name))
            }
            None => Cow::Borrowed(""),
        })
    }
}

impl ToolNode for NodeCx<'_> {
    fn id(&self) -> &str {
        &self.meta().id
    }

    fn params(&self) -> &Map<String, Json> {
        &self.meta().params
    }

    fn is_canceled(&self) -> bool {
        self.shared.is_canceled()
    }

    fn set_output(&self, key: &str, value: Json) {
        NodeCx::set_output(self, key, value)
    }

    fn output(&self, key: &str) -> Json {
        NodeCx::output(self, key)
            .json()
            .cloned()
            .unwrap_or(Json::Null)
    }

    fn set_input_value(&self, key: &str, value: Json) {
        NodeCx::set_input_value(self, key, value)
    }

    fn value(&self, exp: &str) -> Result<Val, RunError> {
        NodeCx::value(self, exp)
    }

    fn elements_from_text(&self, text: &str) -> Result<Vec<(String, Val)>, RunError> {
        elements_from_text(self, text)
    }

    fn add_reference(&self, chunks: &[Json], doc_aggs: &[Json]) {
        let mut s = self.state();
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

    fn http(&self) -> &reqwest::Client {
        &self.shared.services.http
    }

    fn guard(&self) -> Guard {
        self.shared.services.guard()
    }

    fn resolver(&self) -> &dyn Resolver {
        self.shared.services.resolver.as_ref()
    }

    fn settings(&self) -> &Settings {
        &self.shared.services.settings
    }

    fn tenant_id(&self) -> Option<&str> {
        self.shared.services.tenant_id.as_deref()
    }

    fn llm(&self) -> Option<&Arc<dyn ChatProvider>> {
        self.shared.services.llm.as_ref()
    }

    fn run_labels(&self) -> &RunLabels {
        &self.shared.services.run_labels
    }
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
