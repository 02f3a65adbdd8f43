//! Run-time values: JSON, or the lazy text stream an LLM or a streaming Message produces and a
//! downstream Message consumes (RAGFlow's `functools.partial` over a generator).

use super::error::RunError;
use canvasc_value::Json;
use futures::stream::BoxStream;
use std::sync::Arc;

/// The value of a component output or of a resolved reference.
#[derive(Clone)]
pub enum Val {
    Json(Json),
    /// Not yet consumed: RAGFlow holds a `functools.partial` here until a Message (or a consumer
    /// that needs the text) runs it.
    Stream(LazyStream),
}

impl Val {
    pub const NULL: Val = Val::Json(Json::Null);

    pub fn json(&self) -> Option<&Json> {
        match self {
            Val::Json(j) => Some(j),
            Val::Stream(_) => None,
        }
    }

    pub fn is_stream(&self) -> bool {
        matches!(self, Val::Stream(_))
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Val::Json(Json::Null))
    }

    /// The value as it appears in events and saved state. An unconsumed stream has no JSON
    /// form: RAGFlow's serialiser writes `null` in events (callables) and `{}` in `str(canvas)`.
    pub fn to_event_json(&self) -> Json {
        match self {
            Val::Json(j) => j.clone(),
            Val::Stream(_) => Json::Null,
        }
    }
}

impl From<Json> for Val {
    fn from(j: Json) -> Self {
        Val::Json(j)
    }
}

impl std::fmt::Debug for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Json(j) => write!(f, "{j}"),
            Val::Stream(_) => f.write_str("<stream>"),
        }
    }
}

/// The chunks a stream yields: answer text, or the think markers `<think>` / `</think>` as
/// separate items. An error is an exception raised inside the generator: it escapes to whoever
/// consumes the stream.
pub type TextStream = BoxStream<'static, Result<String, RunError>>;

/// A stream that has not been started. Opening it runs the producer (for an LLM: the model
/// call); each open starts over, exactly as calling the Python partial again would.
#[derive(Clone)]
pub struct LazyStream(
    Arc<dyn Fn() -> TextStream + Send + Sync>,
    /// The span of the component that made the stream: opened (by a downstream Message, in
    /// the scheduler) inside it, the model call's span is that component's child.
    tracing::Span,
);

impl LazyStream {
    pub fn new(open: impl Fn() -> TextStream + Send + Sync + 'static) -> Self {
        LazyStream(Arc::new(open), tracing::Span::current())
    }

    pub fn open(&self) -> TextStream {
        let span = self.1.clone();
        if span.is_disabled() {
            return (self.0)();
        }
        let mut inner = {
            let _inside = span.enter();
            (self.0)()
        };
        // The producer runs as the stream is polled: every poll inside the span.
        Box::pin(futures::stream::poll_fn(move |cx| {
            let _inside = span.enter();
            futures::Stream::poll_next(inner.as_mut(), cx)
        }))
    }

    /// Run the stream to its end and return the concatenated text.
    pub async fn collect(&self) -> Result<String, RunError> {
        use futures::StreamExt;
        let mut s = self.open();
        let mut out = String::new();
        while let Some(chunk) = s.next().await {
            out.push_str(&chunk?);
        }
        Ok(out)
    }
}
