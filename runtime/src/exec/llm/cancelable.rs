//! A chat model whose calls end the moment the run is cancelled. RAGFlow's `is_canceled()` is
//! only read between steps; a 20 s answer in flight would hold Ctrl-C (or a disconnected
//! client) for 20 s. The call is dropped instead, which closes its request, and answers with
//! RAGFlow's cancellation text; the component then sees the cancelled run as RAGFlow's does.

use super::{ChatProvider, ChatRequest, ChatResponse, Delta, LlmError};
use crate::exec::cancel::CancelFlag;
use crate::exec::error::CANCELED;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::StreamExt;
use std::sync::Arc;

/// `inner`, raced against the run's cancellation.
pub struct Cancelable {
    pub inner: Arc<dyn ChatProvider>,
    pub cancel: CancelFlag,
}

/// The failure a cancelled call answers with (`**ERROR**: GENERIC_ERROR - Task has been
/// canceled`), which every component already treats as a failed call.
fn canceled() -> LlmError {
    LlmError::new(super::error::ERROR_GENERIC, CANCELED)
}

impl ChatProvider for Cancelable {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            self.cancel
                .or_cancel(self.inner.chat(request))
                .await
                .unwrap_or_else(|| Err(canceled()))
        })
    }

    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>> {
        let inner = self.inner.chat_stream(request);
        let cancel = self.cancel.clone();
        Box::pin(async_stream::stream! {
            let mut inner = inner;
            loop {
                match cancel.or_cancel(inner.next()).await {
                    Some(Some(item)) => yield item,
                    Some(None) => break,
                    None => {
                        yield Err(canceled());
                        break;
                    }
                }
            }
        })
    }

    fn context_length(&self, llm_id: &str) -> Result<u64, LlmError> {
        self.inner.context_length(llm_id)
    }

    fn is_vision(&self, llm_id: &str) -> bool {
        self.inner.is_vision(llm_id)
    }
}
