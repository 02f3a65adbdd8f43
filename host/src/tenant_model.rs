//! A tenant's default chat model (`PATCH /api/v1/models/default`) for one run: an LLM that
//! names no model (an empty `llm_id`, as RAGFlow's templates leave it) is sent to the tenant's
//! default instead of the configuration's `[llm] default`, as RAGFlow's `LLMBundle` falls back
//! to the tenant's `llm_id`. Every other llm_id passes through unchanged.

use std::sync::Arc;

use canvasc_engine::llm::{ChatProvider, ChatRequest, ChatResponse, Delta, LlmError};
use futures::future::BoxFuture;
use futures::stream::BoxStream;

/// `inner` with an empty llm_id meaning `default_llm`.
pub fn with_default(inner: Arc<dyn ChatProvider>, default_llm: String) -> Arc<dyn ChatProvider> {
    Arc::new(TenantDefault { inner, default_llm })
}

struct TenantDefault {
    inner: Arc<dyn ChatProvider>,
    default_llm: String,
}

impl TenantDefault {
    fn llm_id<'a>(&'a self, llm_id: &'a str) -> &'a str {
        match llm_id.trim() {
            "" => &self.default_llm,
            _ => llm_id,
        }
    }

    fn request(&self, mut request: ChatRequest) -> ChatRequest {
        if request.llm_id.trim().is_empty() {
            request.llm_id = self.default_llm.clone();
        }
        request
    }
}

impl ChatProvider for TenantDefault {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        self.inner.chat(self.request(request))
    }

    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>> {
        self.inner.chat_stream(self.request(request))
    }

    fn context_length(&self, llm_id: &str) -> Result<u64, LlmError> {
        self.inner.context_length(self.llm_id(llm_id))
    }

    fn is_vision(&self, llm_id: &str) -> bool {
        self.inner.is_vision(self.llm_id(llm_id))
    }
}

/// What `GET /api/v1/models` lists: the models `config` serves.
pub fn configured_models(
    config: &canvasc_engine::llm::config::LlmConfig,
) -> Vec<canvasc_server::ConfiguredModel> {
    config
        .catalog()
        .into_iter()
        .map(|entry| canvasc_server::ConfiguredModel {
            model: entry.model,
            factory: entry.factory,
            vision: entry.vision,
        })
        .collect()
}
