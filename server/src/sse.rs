//! Server-sent event bodies: the frames a turn produces, a keep-alive comment whenever the run
//! has been quiet for the configured interval (proxies close idle connections while an LLM is
//! thinking; clients skip comment lines), and the terminator once the turn has ended.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use tokio::sync::mpsc;

use crate::run::{Ended, Frame, Launched, Out};
use crate::turn::ProgramKind;

/// The header every run's response names its program in.
pub(crate) const PROGRAM_HEADER: &str = "x-canvasc-program";

/// Turns a turn's frames into SSE text; `end` writes the closing frames (error frame,
/// terminator) from how the turn ended.
pub(crate) trait Framing: Send + 'static {
    /// Text for one event frame (empty: nothing to send).
    fn event(&mut self, frame: &Frame) -> String;
    /// The closing frames.
    fn end(&mut self, ended: &Ended) -> String;
}

/// An SSE response for a launched turn. Dropping the body (a client that went away) drops
/// the frames' receiver, which cancels the run.
pub(crate) fn response(
    launched: Launched,
    keep_alive: Duration,
    framing: impl Framing,
) -> Response {
    let program = launched.program;
    let state = (launched.frames, framing, false);
    let stream =
        futures::stream::unfold(state, move |(mut frames, mut framing, done)| async move {
            if done {
                return None;
            }
            loop {
                let next = tokio::time::timeout(keep_alive, frames.recv()).await;
                let (text, done) = match next {
                    Err(_) => (": keep-alive\n\n".to_string(), false),
                    Ok(Some(Out::Event(frame))) => (framing.event(&frame), false),
                    Ok(Some(Out::End(ended))) => (framing.end(&ended), true),
                    Ok(None) => return None,
                };
                if text.is_empty() && !done {
                    continue;
                }
                let chunk: Result<Bytes, Infallible> = Ok(Bytes::from(text));
                return Some((chunk, (frames, framing, done)));
            }
        });
    sse_response(Body::from_stream(stream), program)
}

pub(crate) fn sse_response(body: Body, program: ProgramKind) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    headers.insert(PROGRAM_HEADER, HeaderValue::from_static(program.as_str()));
    response
}

/// Waits for the end of a turn (the non-streaming answers), dropping the event frames; the
/// summary carries what they added up to. `None`: the driver went away without an end.
pub(crate) async fn finish(frames: &mut mpsc::Receiver<Out>) -> Option<Box<Ended>> {
    while let Some(out) = frames.recv().await {
        if let Out::End(ended) = out {
            return Some(ended);
        }
    }
    None
}
