//! The Retrieval tool's store on canvasc's local knowledge base (`crate::kb`): datasets made
//! with `canvasc dataset add`, found by name or id, searched with the configured embedding
//! endpoint when the datasets have vectors.
//!
//! What RAGFlow does around the search, and what it amounts to here:
//! * a manual metadata filter: local documents carry no metadata, so conditions select no
//!   document and nothing is found (RAGFlow's `["-999"]`); a generated (`auto`/`semi_auto`)
//!   filter finds no condition that holds, and RAGFlow then searches unfiltered;
//! * the knowledge graph (`use_kg`) and TOC enhancement (`toc_enhance`): local datasets have
//!   neither, so the chunks are those of the search, as RAGFlow's are without them;
//! * `cross_languages`: the rewrite needs the tenant's chat model, which the local store has
//!   not got; the query is searched as written (RAGFlow's fallback when the rewrite fails);
//! * `rerank_id`: no rerank model is available locally; naming one is an error.

use super::service::{Dataset, KbInfos, MetaFilter, Request, RetrievalService};
use crate::kb::embed::Embedder;
use crate::kb::{DatasetStore, Search};
use canvasc_engine::external::ToolCx;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

pub struct LocalStore {
    store: Arc<DatasetStore>,
    /// The `[embedding]` endpoint; its client is the run's.
    embedding: Option<crate::kb::embed::EmbeddingConfig>,
}

impl LocalStore {
    pub fn new(
        store: Arc<DatasetStore>,
        embedding: Option<crate::kb::embed::EmbeddingConfig>,
    ) -> Self {
        LocalStore { store, embedding }
    }
}

/// The retriever's chunk for a hit (`Dealer.retrieval`'s dict, without the vector and the
/// tokenised content, which the tool removes).
fn chunk_json(hit: &crate::kb::Hit) -> Map<String, Json> {
    let v = serde_json::json!({
        "chunk_id": hit.chunk.id,
        "content_with_weight": hit.chunk.content,
        "doc_id": hit.chunk.doc_id,
        "docnm_kwd": hit.chunk.docnm,
        "kb_id": hit.kb_id,
        "important_kwd": [],
        "tag_kwd": [],
        "image_id": "",
        "similarity": hit.similarity,
        "vector_similarity": hit.vector_similarity,
        "term_similarity": hit.term_similarity,
        "positions": [],
        "doc_type_kwd": "",
        "mom_id": "",
        "row_id": null,
    });
    match v {
        Json::Object(m) => m,
        _ => Map::new(),
    }
}

impl RetrievalService for LocalStore {
    fn resolve<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        name_or_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async move {
            if let Some(d) = self.store.by_name(name_or_id)? {
                return Ok(Some(d.id));
            }
            Ok(self.store.by_id(name_or_id)?.map(|d| d.id))
        })
    }

    fn datasets<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Dataset>, String>> {
        Box::pin(async move {
            let all = self.store.list()?;
            Ok(all
                .into_iter()
                .filter(|d| ids.contains(&d.id))
                .map(|d| Dataset {
                    id: d.id,
                    embd_id: Some(d.embd_id),
                })
                .collect())
        })
    }

    fn retrieve<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<KbInfos, String>> {
        Box::pin(async move {
            if !request.rerank_id.is_empty() {
                return Err(format!(
                    "Retrieval: rerank model `{}` is not available to canvasc's local knowledge base",
                    request.rerank_id
                ));
            }
            let doc_ids = match &request.meta_filter {
                Some(MetaFilter::Manual { conditions, .. }) if !conditions.is_empty() => {
                    Some(Vec::new())
                }
                _ => None,
            };
            let top_k = usize::try_from(request.top_k).unwrap_or(0);
            if top_k == 0 {
                return Err("`top_k` must be greater than 0".into());
            }
            let search = Search {
                question: request.question.clone(),
                dataset_ids: request.dataset_ids.clone(),
                top_n: request.top_n,
                top_k,
                similarity_threshold: request.similarity_threshold,
                vector_similarity_weight: request.vector_similarity_weight,
                doc_ids,
            };
            let embedder = self
                .embedding
                .clone()
                .map(|c| Embedder::new(c, cx.http().clone()));
            let found = self.store.search(search, embedder.as_ref()).await?;
            Ok(KbInfos {
                chunks: found.hits.iter().map(chunk_json).collect(),
                doc_aggs: found
                    .doc_aggs
                    .into_iter()
                    .map(|(name, id, count)| {
                        serde_json::json!({"doc_name": name, "doc_id": id, "count": count})
                    })
                    .collect(),
            })
        })
    }
}
