//! The legacy HTTP+SSE MCP transport (RAGFlow's `server_type = "sse"`), which rmcp no longer
//! ships: a GET opens an event stream whose first `endpoint` event names the URL the client
//! POSTs its messages to; the server's messages arrive as `message` events.

use eventsource_stream::Eventsource;
use futures::{Sink, Stream, StreamExt};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::RoleClient;
use std::pin::Pin;

/// Why the transport failed.
#[derive(Debug)]
pub struct SseError(String);

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SseError {}

type Outgoing = Pin<Box<dyn Sink<TxJsonRpcMessage<RoleClient>, Error = SseError> + Send>>;
type Incoming = Pin<Box<dyn Stream<Item = RxJsonRpcMessage<RoleClient>> + Send>>;

/// Opens the event stream and waits for the `endpoint` event.
pub async fn connect(http: reqwest::Client, url: &str) -> Result<(Outgoing, Incoming), SseError> {
    let fail = |e: &dyn std::fmt::Display| SseError(e.to_string());
    let base = reqwest::Url::parse(url).map_err(|e| fail(&e))?;
    let resp = http
        .get(base.clone())
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| fail(&e))?;
    let mut events = resp.bytes_stream().eventsource();
    let endpoint = loop {
        match events.next().await {
            Some(Ok(ev)) if ev.event == "endpoint" => {
                break base.join(ev.data.trim()).map_err(|e| fail(&e))?
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(fail(&e)),
            None => return Err(SseError("the event stream ended before `endpoint`".into())),
        }
    };
    let incoming = events.filter_map(|ev| async move {
        match ev {
            Ok(ev) if ev.event == "message" || ev.event.is_empty() => {
                serde_json::from_str(&ev.data).ok()
            }
            _ => None,
        }
    });
    let outgoing = futures::sink::unfold(
        (http, endpoint),
        |(http, endpoint), msg: TxJsonRpcMessage<RoleClient>| async move {
            http.post(endpoint.clone())
                .json(&msg)
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .map_err(|e| SseError(e.to_string()))?;
            Ok::<_, SseError>((http, endpoint))
        },
    );
    Ok((Box::pin(outgoing), Box::pin(incoming)))
}
