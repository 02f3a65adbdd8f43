//! Retrieval (tools.md §19, `agent/tools/retrieval.py`): a knowledge-base search, as a canvas
//! node and as an Agent's `search_my_dateset` call. The tool resolves the datasets a canvas
//! names (ids, or references to names or ids), formats the query, resolves a manual metadata
//! filter and hands the search to a [`RetrievalService`]; the chunks it gets back join the
//! turn's references and become `formalized_content` as `kb_prompt` writes it.
//!
//! Stores: a RAGFlow server's retrieval API (`[tools.retrieval] base_url`) or canvasc's local
//! knowledge base (`canvasc dataset add`, feature `kb`). Memories (`memory_ids`,
//! `retrieval_from: memory`) are searched on a RAGFlow server's memory API; the local knowledge
//! base keeps no memories, so there the tool answers as RAGFlow does when none of the ids is a
//! memory.

pub mod ragflow_api;
pub mod service;

#[cfg(feature = "kb")]
pub mod local;

use crate::common::{kb_prompt, keyword_thoughts, text};
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::{element_str, string_format};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use regex::Regex;
use service::{MemoryQuery, MetaFilter, Request, RetrievalService};
use std::sync::{Arc, LazyLock};

/// `re.sub(r"^user[:：\s]*", "", query, flags=re.IGNORECASE)`.
static USER_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^user[:：\s]*").expect("valid pattern"));

/// `ComponentBase.variable_ref_patt`: the references a manual metadata filter's value holds.
static VARIABLE_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\{* *\{([a-zA-Z0-9_:]+@[A-Za-z0-9_.-]+|sys\.[A-Za-z0-9_.]+|env\.[A-Za-z0-9_.]+)\} *\}*",
    )
    .expect("valid pattern")
});

/// `kb_prompt`'s token budget in the tool.
const PROMPT_TOKENS: usize = 200_000;

pub struct Retrieval {
    store: Arc<dyn RetrievalService>,
}

impl Retrieval {
    pub fn new(store: Arc<dyn RetrievalService>) -> Self {
        Retrieval { store }
    }
}

/// A parameter as a float (`None` when unset or not a number).
fn param_f64(cx: &ToolCx<'_>, key: &str, default: f64) -> f64 {
    match cx.param(key) {
        Some(Json::Number(n)) => n.as_f64().unwrap_or(default),
        Some(Json::String(s)) => s.trim().parse().unwrap_or(default),
        Some(Json::Bool(b)) => f64::from(u8::from(*b)),
        _ => default,
    }
}

/// A list parameter (`[]` when unset or not a list).
fn param_list<'a>(cx: &'a ToolCx<'_>, key: &str) -> &'a [Json] {
    match cx.param(key) {
        Some(Json::Array(items)) => items,
        _ => &[],
    }
}

impl External for Retrieval {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let empty_response = Json::String(text(cx.param("empty_response")));
            let query = match args.get("query").filter(|q| py::truthy(q)) {
                Some(q) => text(Some(q)),
                None => {
                    cx.set_output("formalized_content", empty_response);
                    return Ok(Json::Null);
                }
            };
            let from = text(cx.param("retrieval_from"));
            let datasets = dataset_entries(cx);
            let memories = cx.param("memory_ids").is_some_and(py::truthy);
            if from == "dataset" || (from != "memory" && !datasets.is_empty()) {
                self.retrieve_kb(cx, &query, datasets).await
            } else if from == "memory" || memories {
                self.retrieve_memory(cx, &query).await
            } else {
                cx.set_output("formalized_content", empty_response);
                Ok(Json::Null)
            }
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        Some(keyword_thoughts(
            input,
            "Looking for the most relevant articles.",
            8,
        ))
    }
}

/// `memory_prompt(message_list, max_tokens)`: the messages' contents while they fit in 97% of
/// the budget.
fn memory_prompt(messages: &[Json], max_tokens: usize) -> Vec<String> {
    let budget = max_tokens as f64 * 0.97;
    let mut used = 0usize;
    let mut out = Vec::new();
    for m in messages {
        let content = text(m.get("content"));
        let n = canvasc_engine::llm::fit::num_tokens(Some(&content));
        if (used + n) as f64 > budget {
            tracing::warn!(
                "Not all the retrieval into prompt: {}/{}",
                out.len(),
                messages.len()
            );
            break;
        }
        out.push(content);
        used += n;
    }
    out
}

/// `self._param.dataset_ids or self._param.kb_ids or []`.
fn dataset_entries<'a>(cx: &'a ToolCx<'_>) -> &'a [Json] {
    let ids = param_list(cx, "dataset_ids");
    if ids.is_empty() {
        param_list(cx, "kb_ids")
    } else {
        ids
    }
}

impl Retrieval {
    /// `_retrieve_kb`.
    async fn retrieve_kb(
        &self,
        cx: &ToolCx<'_>,
        query_text: &str,
        entries: &[Json],
    ) -> Result<Json, RunError> {
        let mut kb_ids: Vec<String> = Vec::new();
        for entry in entries {
            let id = text(Some(entry));
            if !id.contains('@') {
                kb_ids.push(id);
                continue;
            }
            let value = element_str(&cx.value(&id)?);
            let names = match value {
                Json::Array(items) => items,
                other => vec![other],
            };
            for name in names {
                let key = text(Some(&name));
                match self.store.resolve(cx, &key).await.map_err(RunError::msg)? {
                    Some(found) => kb_ids.push(found),
                    None => {
                        return Err(RunError::msg(format!(
                            "Dataset({}) does not exist.",
                            py::str_of(&name)
                        )))
                    }
                }
            }
        }
        // `list(set(...))`: unique, non-empty (Python's set order is arbitrary; first seen here).
        let mut filtered: Vec<String> = Vec::new();
        for id in kb_ids {
            if !id.is_empty() && !filtered.contains(&id) {
                filtered.push(id);
            }
        }
        let kbs = self
            .store
            .datasets(cx, &filtered)
            .await
            .map_err(RunError::msg)?;
        if kbs.is_empty() {
            return Err(RunError::msg("No dataset is selected."));
        }
        let mut models: Vec<&str> = kbs.iter().filter_map(|k| k.embd_id.as_deref()).collect();
        models.sort_unstable();
        models.dedup();
        if models.len() > 1 {
            return Err(RunError::raised(
                "AssertionError",
                "Knowledge bases use different embedding models.",
            ));
        }

        let mut kv = Vec::new();
        for (k, v) in cx.elements_from_text(query_text)? {
            kv.push((k, element_str(&v)));
        }
        let query = string_format(query_text, &kv);
        let meta_filter = self.meta_filter(cx)?;
        let query = USER_PREFIX.replace(&query, "").into_owned();
        let request = Request {
            question: query,
            dataset_ids: kbs.into_iter().map(|k| k.id).collect(),
            top_n: usize::try_from(crate::common::param_int(cx, "top_n", 8)).unwrap_or(0),
            similarity_threshold: param_f64(cx, "similarity_threshold", 0.2),
            vector_similarity_weight: 1.0 - param_f64(cx, "keywords_similarity_weight", 0.5),
            top_k: crate::common::param_int(cx, "top_k", 1024),
            rerank_id: text(cx.param("rerank_id")),
            meta_filter,
            cross_languages: param_list(cx, "cross_languages")
                .iter()
                .map(|l| text(Some(l)))
                .collect(),
            use_kg: crate::common::param_bool(cx, "use_kg"),
            toc_enhance: crate::common::param_bool(cx, "toc_enhance"),
        };
        let mut kbinfos = self
            .store
            .retrieve(cx, &request)
            .await
            .map_err(RunError::msg)?;
        if cx.check_canceled() {
            return Ok(Json::Null);
        }
        for chunk in &mut kbinfos.chunks {
            chunk.shift_remove("vector");
            chunk.shift_remove("content_ltks");
        }
        if kbinfos.chunks.is_empty() {
            cx.set_output(
                "formalized_content",
                Json::String(text(cx.param("empty_response"))),
            );
            return Ok(Json::Null);
        }
        let chunks: Vec<Json> = kbinfos.chunks.into_iter().map(Json::Object).collect();
        cx.add_reference(&chunks, &kbinfos.doc_aggs);
        let content = kb_prompt(&chunks, PROMPT_TOKENS).join("\n");
        cx.set_output("formalized_content", Json::String(content.clone()));
        cx.set_output("json", Json::Array(chunks));
        Ok(Json::String(content))
    }

    /// `_retrieve_memory`: the messages of the node's memories that match the query, joined
    /// as `memory_prompt` joins them.
    async fn retrieve_memory(&self, cx: &ToolCx<'_>, query_text: &str) -> Result<Json, RunError> {
        let ids: Vec<String> = param_list(cx, "memory_ids")
            .iter()
            .map(|v| text(Some(v)))
            .collect();
        let memories = self.store.memories(cx, &ids).await.map_err(RunError::msg)?;
        if memories.is_empty() {
            return Err(RunError::msg("No memory is selected."));
        }
        let mut models: Vec<&str> = memories
            .iter()
            .filter_map(|m| m.embd_id.as_deref())
            .collect();
        models.sort_unstable();
        models.dedup();
        if models.len() > 1 {
            return Err(RunError::raised(
                "AssertionError",
                "Memory use different embedding models.",
            ));
        }
        let mut kv = Vec::new();
        for (k, v) in cx.elements_from_text(query_text)? {
            kv.push((k, element_str(&v)));
        }
        let query = string_format(query_text, &kv);
        // A `{reference}` user id is the variable's value (`get_variable_value`).
        let user_id = match cx.param("user_id") {
            Some(v) if py::truthy(v) => {
                let raw = text(Some(v));
                if raw.starts_with('{') && raw.ends_with('}') {
                    let name = raw.trim_matches(|c| c == '{' || c == '}' || c == ' ');
                    Some(text(Some(&element_str(&cx.value(name)?))))
                } else {
                    Some(raw)
                }
            }
            _ => None,
        };
        let request = MemoryQuery {
            memory_ids: ids,
            user_id,
            query,
            similarity_threshold: param_f64(cx, "similarity_threshold", 0.2),
            keywords_similarity_weight: param_f64(cx, "keywords_similarity_weight", 0.5),
            top_n: usize::try_from(crate::common::param_int(cx, "top_n", 8)).unwrap_or(0),
        };
        let messages = self
            .store
            .search_memories(cx, &request)
            .await
            .map_err(RunError::msg)?;
        if messages.is_empty() {
            cx.set_output(
                "formalized_content",
                Json::String(text(cx.param("empty_response"))),
            );
            return Ok(Json::String(String::new()));
        }
        let content = memory_prompt(&messages, PROMPT_TOKENS).join("\n");
        cx.set_output("formalized_content", Json::String(content.clone()));
        Ok(Json::String(content))
    }

    /// The metadata filter of `meta_data_filter` (`None` for `{}`): a manual one with every
    /// reference in its values rendered (`_resolve_manual_filter`).
    fn meta_filter(&self, cx: &ToolCx<'_>) -> Result<Option<MetaFilter>, RunError> {
        let Some(Json::Object(filter)) = cx.param("meta_data_filter") else {
            return Ok(None);
        };
        if filter.is_empty() {
            return Ok(None);
        }
        let method = text(filter.get("method"));
        if method == "auto" || method == "semi_auto" {
            return Ok(Some(MetaFilter::Generated { method }));
        }
        if method != "manual" {
            // `apply_meta_data_filter` leaves the documents unfiltered for any other method.
            return Ok(None);
        }
        let mut conditions = Vec::new();
        if let Some(Json::Array(manual)) = filter.get("manual") {
            for flt in manual {
                let Json::Object(flt) = flt else {
                    conditions.push(flt.clone());
                    continue;
                };
                let mut resolved = flt.clone();
                let value = text(flt.get("value"));
                let mut out = String::new();
                let mut last = 0;
                for m in VARIABLE_REF.captures_iter(&value) {
                    let (Some(whole), Some(key)) = (m.get(0), m.get(1)) else {
                        continue;
                    };
                    out.push_str(&value[last..whole.start()]);
                    match element_str(&cx.value(key.as_str())?) {
                        Json::Null => {}
                        Json::String(s) => out.push_str(&s),
                        other => out.push_str(&py::json_dumps(&other)),
                    }
                    last = whole.end();
                }
                out.push_str(&value[last..]);
                resolved.insert("value".into(), Json::String(out));
                conditions.push(Json::Object(resolved));
            }
        }
        let logic = match filter.get("logic") {
            Some(l) => text(Some(l)),
            None => "and".into(),
        };
        Ok(Some(MetaFilter::Manual { conditions, logic }))
    }
}
