//! The Retrieval tool's store on a RAGFlow server: its HTTP API (`POST /api/v1/retrieval`,
//! `GET /api/v1/datasets`), with the server's API key as a bearer token (`[tools.retrieval]
//! base_url`, `api_key`; `RAGFLOW_TOOL_RETRIEVAL_*`). The server runs the same retriever the
//! tool calls in-process, so the tool's parameters map onto the request one to one, and the
//! API's chunk keys (`id`, `content`, `document_id`, …) are mapped back to the retriever's
//! (`chunk_id`, `content_with_weight`, `doc_id`, …), the inverse of `retrieval_test`'s
//! `key_mapping`.
//!
//! Done by the server rather than the tool: the cross-language rewrite (`cross_languages`),
//! rerank, knowledge graph and TOC enhancement, and a manual metadata filter (sent as the API's
//! `metadata_condition`). A generated (`auto`/`semi_auto`) filter needs the server's metadata
//! and the tenant's chat model, which the API does not offer: it fails with a clear error.
//!
//! Memories: `GET /api/v1/memories?ids=…` says which of the node's memories exist (and their
//! embedding models), `GET /api/v1/messages/search` runs `query_message` on them.

use super::service::{
    Dataset, KbInfos, Memory, MemoryQuery, MetaFilter, Request, RetrievalService,
};
use crate::common::send_raw;
use crate::config::Secret;
use canvasc_engine::external::ToolCx;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use std::time::Duration;

/// The retriever's chunk keys the API renames (`retrieval_test`'s `key_mapping`), API → tool.
const KEYS: &[(&str, &str)] = &[
    ("id", "chunk_id"),
    ("content", "content_with_weight"),
    ("document_id", "doc_id"),
    ("important_keywords", "important_kwd"),
    ("questions", "question_kwd"),
    ("document_keyword", "docnm_kwd"),
    ("dataset_id", "kb_id"),
];

/// How long one API call may take (a search with rerank or a knowledge graph is slow).
const TIMEOUT: Duration = Duration::from_secs(60);

pub struct RagflowApi {
    base_url: String,
    api_key: Secret,
}

impl RagflowApi {
    /// `base_url` is the server's address (`http://ragflow:9380`), without `/api/v1`.
    pub fn new(base_url: &str, api_key: Secret) -> Self {
        RagflowApi {
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base_url)
    }

    /// One call: RAGFlow's envelope `{"code", "message", "data"}`; `data` when `code` is 0,
    /// else the server's message.
    async fn call(&self, req: reqwest::RequestBuilder, url: &str) -> Result<Json, String> {
        let req = req.header("Authorization", format!("Bearer {}", self.api_key.expose()));
        let (status, body) = send_raw(req, TIMEOUT, url).await?;
        let parsed: Json = serde_json::from_str(&body).map_err(|_| {
            format!(
                "RAGFlow's API at {url} answered HTTP {} with no JSON envelope",
                status.as_u16()
            )
        })?;
        match parsed.get("code").and_then(Json::as_i64) {
            Some(0) => Ok(parsed.get("data").cloned().unwrap_or(Json::Null)),
            code => Err(match parsed.get("message").and_then(Json::as_str) {
                Some(m) if !m.is_empty() => m.to_string(),
                _ => format!(
                    "RAGFlow's API at {url} answered code {} (HTTP {})",
                    code.map_or_else(|| "none".to_string(), |c| c.to_string()),
                    status.as_u16()
                ),
            }),
        }
    }

    /// `GET <path>?<pairs>`: the envelope's `data`.
    async fn get(
        &self,
        cx: &ToolCx<'_>,
        path: &str,
        pairs: &[(&str, String)],
    ) -> Result<Json, String> {
        let url = self.url(path);
        let mut full = url::Url::parse(&url).map_err(|e| format!("Invalid URL {url:?}: {e}"))?;
        for (k, v) in pairs {
            full.query_pairs_mut().append_pair(k, v);
        }
        let req = cx.http().get(full.as_str());
        self.call(req, &url).await
    }

    /// The first dataset `GET /datasets?<key>=<value>` lists, if the server finds one.
    async fn find(
        &self,
        cx: &ToolCx<'_>,
        key: &str,
        value: &str,
    ) -> Result<Option<String>, String> {
        let url = self.url("/datasets");
        let mut full = url::Url::parse(&url).map_err(|e| format!("Invalid URL {url:?}: {e}"))?;
        full.query_pairs_mut()
            .append_pair(key, value)
            .append_pair("page", "1")
            .append_pair("page_size", "1");
        let req = cx.http().get(full.as_str());
        // The server answers a name or id it does not know (or the key may not see) with an
        // error envelope: that is "not found" here, as `get_by_name` returning nothing is.
        let data = match self.call(req, &url).await {
            Ok(data) => data,
            Err(_) => return Ok(None),
        };
        let first = match &data {
            Json::Array(items) => items.first(),
            Json::Object(o) => o
                .get("data")
                .and_then(Json::as_array)
                .and_then(|a| a.first()),
            _ => None,
        };
        Ok(first
            .and_then(|d| d.get("id"))
            .and_then(Json::as_str)
            .map(str::to_string))
    }
}

/// The API's `metadata_condition` for a manual filter: `convert_conditions` inverted
/// (`=` → `is`, `≠` → `not is`, `≥` → `>=`, `≤` → `<=`).
fn metadata_condition(conditions: &[Json], logic: &str) -> Json {
    let conditions: Vec<Json> = conditions
        .iter()
        .map(|c| {
            let op = c.get("op").and_then(Json::as_str).unwrap_or("");
            let op = match op {
                "=" => "is",
                "≠" => "not is",
                "≥" => ">=",
                "≤" => "<=",
                other => other,
            };
            serde_json::json!({
                "name": c.get("key").cloned().unwrap_or(Json::Null),
                "comparison_operator": op,
                "value": c.get("value").cloned().unwrap_or(Json::Null),
            })
        })
        .collect();
    serde_json::json!({"logic": logic, "conditions": conditions})
}

/// The request body of `POST /api/v1/retrieval` for `request`.
pub fn request_body(request: &Request) -> Result<Json, String> {
    let mut body = serde_json::json!({
        "question": request.question,
        "dataset_ids": request.dataset_ids,
        "page": 1,
        "page_size": request.top_n,
        "similarity_threshold": request.similarity_threshold,
        "vector_similarity_weight": request.vector_similarity_weight,
        "top_k": request.top_k,
        "rerank_id": request.rerank_id,
        "use_kg": request.use_kg,
        "toc_enhance": request.toc_enhance,
        "cross_languages": request.cross_languages,
        "keyword": false,
        "highlight": false,
    });
    match &request.meta_filter {
        None => {}
        Some(MetaFilter::Manual { conditions, .. }) if conditions.is_empty() => {}
        Some(MetaFilter::Manual { conditions, logic }) => {
            body["metadata_condition"] = metadata_condition(conditions, logic);
        }
        Some(MetaFilter::Generated { method }) => {
            return Err(format!(
                "Retrieval: a `{method}` metadata filter needs RAGFlow's chat model and document metadata, which its HTTP API does not offer; use a `manual` filter"
            ))
        }
    }
    Ok(body)
}

/// A chunk of the API's answer in the retriever's shape (keys renamed back, order kept).
pub fn chunk_from_api(chunk: &Map<String, Json>) -> Map<String, Json> {
    chunk
        .iter()
        .map(|(k, v)| {
            let key = KEYS
                .iter()
                .find(|(api, _)| api == k)
                .map_or(k.as_str(), |(_, tool)| tool);
            (key.to_string(), v.clone())
        })
        .collect()
}

impl RetrievalService for RagflowApi {
    fn resolve<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        name_or_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, String>> {
        Box::pin(async move {
            if name_or_id.is_empty() {
                return Ok(None);
            }
            if let Some(id) = self.find(cx, "name", name_or_id).await? {
                return Ok(Some(id));
            }
            self.find(cx, "id", name_or_id).await
        })
    }

    fn datasets<'a>(
        &'a self,
        _cx: &'a ToolCx<'a>,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Dataset>, String>> {
        // The retrieval call itself checks that the key may read each dataset and that they
        // share one embedding model, in RAGFlow's words.
        Box::pin(async move {
            Ok(ids
                .iter()
                .map(|id| Dataset {
                    id: id.clone(),
                    embd_id: None,
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
            let url = self.url("/retrieval");
            let body = request_body(request)?;
            let req = cx
                .http()
                .post(&url)
                .header("Content-Type", "application/json")
                .body(serde_json::to_vec(&body).map_err(|e| e.to_string())?);
            let data = self.call(req, &url).await?;
            let chunks = match data.get("chunks") {
                Some(Json::Array(chunks)) => chunks
                    .iter()
                    .filter_map(Json::as_object)
                    .map(chunk_from_api)
                    .collect(),
                _ => Vec::new(),
            };
            // An empty answer carries `doc_aggs: {}`.
            let doc_aggs = match data.get("doc_aggs") {
                Some(Json::Array(aggs)) => aggs.clone(),
                _ => Vec::new(),
            };
            Ok(KbInfos { chunks, doc_aggs })
        })
    }

    fn memories<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Memory>, String>> {
        Box::pin(async move {
            let wanted: Vec<&String> = ids.iter().filter(|i| !i.is_empty()).collect();
            if wanted.is_empty() {
                return Ok(Vec::new());
            }
            let ids_csv = wanted
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(",");
            let data = self
                .get(
                    cx,
                    "/memories",
                    &[
                        ("ids", ids_csv),
                        ("page", "1".into()),
                        ("page_size", wanted.len().to_string()),
                    ],
                )
                .await?;
            let list = data
                .get("memory_list")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(list
                .iter()
                .filter_map(|m| {
                    let id = m.get("id")?.as_str()?.to_string();
                    let embd_id = m.get("embd_id").and_then(Json::as_str).map(str::to_string);
                    Some(Memory { id, embd_id })
                })
                .collect())
        })
    }

    fn search_memories<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        query: &'a MemoryQuery,
    ) -> BoxFuture<'a, Result<Vec<Json>, String>> {
        Box::pin(async move {
            let mut pairs = vec![
                ("memory_id", query.memory_ids.join(",")),
                ("query", query.query.clone()),
                (
                    "similarity_threshold",
                    query.similarity_threshold.to_string(),
                ),
                (
                    "keywords_similarity_weight",
                    query.keywords_similarity_weight.to_string(),
                ),
                ("top_n", query.top_n.to_string()),
            ];
            if let Some(user) = &query.user_id {
                pairs.push(("user_id", user.clone()));
            }
            match self.get(cx, "/messages/search", &pairs).await? {
                Json::Array(messages) => Ok(messages),
                Json::Null => Ok(Vec::new()),
                other => Err(format!(
                    "RAGFlow's message search answered {} instead of a list of messages",
                    canvasc_value::py::json_dumps(&other)
                )),
            }
        })
    }
}
