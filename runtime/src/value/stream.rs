//! A lazy stream of text chunks (RAGFlow's `functools.partial` over a generator).

use futures::stream::BoxStream;
use std::sync::Arc;

/// The chunks a stream yields: answer text, or the think markers `<think>` / `</think>` as
/// separate items. An error is an exception raised inside the generator: it escapes to whoever
/// consumes the stream.
pub type TextStream = BoxStream<'static, Result<String, crate::exec::RunError>>;

/// A stream that has not been started. Opening it runs the producer (for an LLM: the model
/// call); each open starts over, exactly as calling the Python partial again would.
#[derive(Clone)]
pub struct LazyStream(Arc<dyn Fn() -> TextStream + Send + Sync>);

impl LazyStream {
    pub fn new(open: impl Fn() -> TextStream + Send + Sync + 'static) -> Self {
        LazyStream(Arc::new(open))
    }

    pub fn open(&self) -> TextStream {
        (self.0)()
    }

    /// Run the stream to its end and return the concatenated text.
    pub async fn collect(&self) -> Result<String, crate::exec::RunError> {
        use futures::StreamExt;
        let mut s = self.open();
        let mut out = String::new();
        while let Some(chunk) = s.next().await {
            out.push_str(&chunk?);
        }
        Ok(out)
    }
}
