//! A chat model whose calls end the moment the run is cancelled. RAGFlow's `is_canceled()` is
//! only read between steps; a 20 s answer in flight would hold Ctrl-C (or a disconnected
//! client) for 20 s. The call is dropped instead, which closes its request, and answers with
//! RAGFlow's cancellation text; the component then sees the cancelled run as RAGFlow's does.
//!
//! Every model call of a run passes here, so this is also where its span is made, after
//! OpenTelemetry's GenAI semantic conventions: `gen_ai.request.model`, the tokens in and out
//! and, for a streamed answer, the time to its first token.

use super::{ChatProvider, ChatRequest, ChatResponse, Delta, LlmError};
use crate::cancel::CancelFlag;
use crate::error::CANCELED;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::StreamExt;
use std::sync::Arc;
use tracing::{Instrument, Span};

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

/// One model call's span (GenAI semantic conventions; the model is the `llm_id`'s name, without
/// its `@Factory`).
fn model_span(llm_id: &str, stream: bool) -> Span {
    let model = llm_id.split('@').next().unwrap_or(llm_id);
    let span = tracing::info_span!(
        target: "canvasc",
        "canvasc.model",
        otel.name = tracing::field::Empty,
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        gen_ai.operation.name = "chat",
        gen_ai.request.model = model,
        gen_ai.request.stream = stream,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        gen_ai.response.time_to_first_token = tracing::field::Empty,
        error.type = tracing::field::Empty,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("chat {model}").as_str());
    }
    span
}

fn record_usage(span: &Span, usage: &super::TokenUsage) {
    span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
    span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
}

/// A failed call: its RAGFlow error code (never the message, which may quote a provider's
/// answer).
fn record_error(span: &Span, e: &LlmError) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", e.code.as_str());
    span.record("otel.status_code", "ERROR");
}

impl ChatProvider for Cancelable {
    fn chat(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        let span = model_span(&request.llm_id, false);
        Box::pin(async move {
            let answer = self
                .cancel
                .or_cancel(self.inner.chat(request))
                .instrument(span.clone())
                .await
                .unwrap_or_else(|| Err(canceled()));
            match &answer {
                Ok(response) => {
                    if let Some(usage) = &response.usage {
                        record_usage(&span, usage);
                    }
                    if let Some(reason) = &response.finish_reason {
                        span.record("gen_ai.response.finish_reasons", reason.as_str());
                    }
                }
                Err(e) => record_error(&span, e),
            }
            answer
        })
    }

    fn chat_stream(&self, request: ChatRequest) -> BoxStream<'static, Result<Delta, LlmError>> {
        let span = model_span(&request.llm_id, true);
        // The provider's stream starts its request when first polled: inside the span, so the
        // request carries the span's trace context.
        let inner = {
            let _entered = span.enter();
            self.inner.chat_stream(request)
        };
        let cancel = self.cancel.clone();
        Box::pin(async_stream::stream! {
            let mut inner = inner;
            let started = std::time::Instant::now();
            let mut first = true;
            loop {
                match cancel.or_cancel(inner.next()).instrument(span.clone()).await {
                    Some(Some(item)) => {
                        if !span.is_disabled() {
                            match &item {
                                Ok(Delta::Content(_) | Delta::Reasoning(_) | Delta::ToolCall(_))
                                    if first =>
                                {
                                    first = false;
                                    span.record(
                                        "gen_ai.response.time_to_first_token",
                                        started.elapsed().as_secs_f64(),
                                    );
                                }
                                Ok(Delta::Usage(usage)) => record_usage(&span, usage),
                                Err(e) => record_error(&span, e),
                                _ => {}
                            }
                        }
                        yield item
                    }
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
