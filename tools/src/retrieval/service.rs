//! The retrieval-service seam (tools.md §19, "test configurability"): what the Retrieval tool
//! asks of a document store, and what it gets back in RAGFlow's shapes. Two stores implement
//! it: a RAGFlow server's HTTP API (`ragflow_api.rs`) and canvasc's local knowledge base
//! (`local.rs`, feature `kb`). [`NoStore`] answers for a build with neither.

use canvasc_engine::external::ToolCx;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;

/// A dataset as `KnowledgebaseService.get_by_ids` gives it to the tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub id: String,
    /// The embedding model its chunks were embedded with (`embd_id`); `None` where the store
    /// does not say (the HTTP API checks it itself).
    pub embd_id: Option<String>,
}

/// A memory as `MemoryService.get_by_ids` gives it to the tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Memory {
    pub id: String,
    /// The embedding model its messages were embedded with; `None` where the store does not
    /// say.
    pub embd_id: Option<String>,
}

/// One `memory_message_service.query_message(filter, params)` call.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryQuery {
    pub memory_ids: Vec<String>,
    /// The `user_id` filter, when the node sets one.
    pub user_id: Option<String>,
    pub query: String,
    pub similarity_threshold: f64,
    pub keywords_similarity_weight: f64,
    pub top_n: usize,
}

/// A metadata filter the tool has already resolved (`apply_meta_data_filter`'s input).
#[derive(Clone, Debug, PartialEq)]
pub enum MetaFilter {
    /// `manual`: conditions `{key, op, value}` with references rendered, and their logic.
    Manual {
        conditions: Vec<Json>,
        logic: String,
    },
    /// `auto` / `semi_auto`: conditions a chat model writes from the store's metadata.
    Generated { method: String },
}

/// One `retriever.retrieval(...)` call: page 1 of `top_n` chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub question: String,
    pub dataset_ids: Vec<String>,
    pub top_n: usize,
    pub similarity_threshold: f64,
    /// `1 - keywords_similarity_weight`.
    pub vector_similarity_weight: f64,
    pub top_k: i64,
    pub rerank_id: String,
    pub meta_filter: Option<MetaFilter>,
    pub cross_languages: Vec<String>,
    pub use_kg: bool,
    pub toc_enhance: bool,
}

/// `kbinfos`: chunks in the retriever's shape (`chunk_id`, `content_with_weight`, `doc_id`,
/// `docnm_kwd`, `kb_id`, …, scores) and document aggregates (`doc_name`, `doc_id`, `count`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KbInfos {
    pub chunks: Vec<Map<String, Json>>,
    pub doc_aggs: Vec<Json>,
}

/// A document store the Retrieval tool searches. Errors are the text of the exception
/// RAGFlow's tool would raise (it becomes `_ERROR`).
pub trait RetrievalService: Send + Sync + 'static {
    /// `KnowledgebaseService.get_by_name(x, tenant)`, else `get_by_id(x)`: the dataset's id,
    /// `None` when neither finds one.
    fn resolve<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        name_or_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, String>>;

    /// `KnowledgebaseService.get_by_ids(ids)`: the datasets among `ids` that exist.
    fn datasets<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Dataset>, String>>;

    /// The search itself, with everything the store does around it (metadata filter,
    /// cross-language rewrite, rerank, knowledge graph, TOC) that it supports.
    fn retrieve<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<KbInfos, String>>;

    /// `MemoryService.get_by_ids(ids)`: the memories among `ids` that exist. A store that
    /// keeps no memories (canvasc's local knowledge base) finds none.
    fn memories<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Memory>, String>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// `query_message`: the messages found, best first, each an object with its `content`.
    fn search_memories<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _query: &'a MemoryQuery,
    ) -> BoxFuture<'a, Result<Vec<Json>, String>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// The store of a build with no knowledge base and no RAGFlow server configured: it holds no
/// dataset, so every canvas gets RAGFlow's answer for datasets that do not exist.
pub struct NoStore;

impl RetrievalService for NoStore {
    fn resolve<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _name_or_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async { Ok(None) })
    }

    fn datasets<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Dataset>, String>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn retrieve<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        _request: &'a Request,
    ) -> BoxFuture<'a, Result<KbInfos, String>> {
        Box::pin(async { Ok(KbInfos::default()) })
    }
}
