//! `GET /api/v1/agents/{agent_id}/runs/{message_id}/stream` (issue 42): reattaching to a run's
//! stream. What the client missed after its `Last-Event-ID` (the header a browser's
//! `EventSource` sends when it reconnects, or `?last_event_id=`) is replayed from the run's
//! kept stream (`coord/streams`), then the run is followed live until its terminator, on any
//! replica. Each frame carries its id: its position in the run's native stream, so a client
//! of `chat/completions` that read `n` frames reattaches with `Last-Event-ID: n`.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::auth::Tenant;
use crate::coord::streams::{Entry, Read, StreamReader, TERMINATOR};
use crate::coord::RunStatus;
use crate::envelope::ApiError;
use crate::shared::AppRef;

#[derive(serde::Deserialize)]
pub(crate) struct Params {
    last_event_id: Option<String>,
}

pub(crate) async fn stream(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path((agent_id, message_id)): Path<(String, String)>,
    Query(params): Query<Params>,
    headers: HeaderMap,
) -> Response {
    match reattach(app, tenant, agent_id, message_id, params, &headers).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

async fn reattach(
    app: AppRef,
    tenant: String,
    agent_id: String,
    message_id: String,
    params: Params,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let record = super::runs::run_of(&app, &tenant, &agent_id, &message_id).await?;
    let after = last_event_id(headers, params.last_event_id.as_deref())?;
    let mut reader = app.coord.streams().reader(&message_id);
    let first = match reader.read(after, std::time::Duration::ZERO).await? {
        Read::NotKept => {
            return Err(ApiError::data(format!(
                "The events of run {message_id} are no longer kept: a run's events are kept for a while after it ends, and that time is over."
            )))
        }
        Read::Entries(entries) => entries,
        // (A reader that read nothing yet follows whichever attempt it finds.)
        Read::Replaced => Vec::new(),
    };
    if let Some(gap) = first.first().filter(|e| e.id > after + 1) {
        return Err(ApiError::data(format!(
            "Events {} to {} of run {message_id} are no longer kept (a run keeps its latest events only); reattach from event {} on.",
            after + 1,
            gap.id - 1,
            gap.id - 1
        )));
    }
    // A client that read the terminator already has the whole stream.
    let whole = first.is_empty() && after > 0 && {
        match reader.read(after - 1, std::time::Duration::ZERO).await? {
            Read::Entries(last) => last
                .first()
                .is_some_and(|e| e.id == after && e.ends_stream()),
            Read::NotKept | Read::Replaced => false,
        }
    };
    let follow = Follow {
        app: app.clone(),
        session_id: record.session_id,
        message_id,
        reader,
        after,
        pending: first.into(),
        done: whole,
    };
    let body = futures::stream::unfold(follow, |mut follow| async move {
        let text = follow.next_chunk().await?;
        let chunk: Result<Bytes, Infallible> = Ok(Bytes::from(text));
        Some((chunk, follow))
    });
    Ok(crate::sse::sse_response(
        Body::from_stream(body),
        program(&record.mode),
    ))
}

fn program(mode: &str) -> crate::turn::ProgramKind {
    match mode {
        "compiled" => crate::turn::ProgramKind::Compiled,
        _ => crate::turn::ProgramKind::Interpreted,
    }
}

/// The event id to replay after: the header, else the query, else 0 (the whole stream).
fn last_event_id(headers: &HeaderMap, query: Option<&str>) -> Result<u64, ApiError> {
    let given = match headers.get("last-event-id") {
        Some(value) => Some(value.to_str().unwrap_or("?").trim().to_string()),
        None => query.map(str::to_string),
    };
    match given.as_deref() {
        None | Some("") => Ok(0),
        Some(text) => text.parse().map_err(|_| {
            ApiError::argument(format!(
                "`Last-Event-ID` must be the id of an event this stream sent (a whole number), not \"{text}\"."
            ))
        }),
    }
}

/// A reattached client's place in the run's stream.
struct Follow {
    app: AppRef,
    session_id: String,
    message_id: String,
    reader: Box<dyn StreamReader>,
    after: u64,
    pending: VecDeque<Entry>,
    done: bool,
}

impl Follow {
    /// The next text to send: the entries that came (all at once), a keep-alive comment after
    /// a quiet interval, or the end. `None` once the terminator was sent.
    async fn next_chunk(&mut self) -> Option<String> {
        if self.done {
            return None;
        }
        if self.pending.is_empty() {
            match self.reader.read(self.after, self.app.keep_alive).await {
                Ok(Read::Entries(entries)) if entries.is_empty() => {
                    return Some(match self.run_is_gone().await {
                        Some(why) => self.fail(&why),
                        None => ": keep-alive\n\n".to_string(),
                    })
                }
                Ok(Read::Entries(entries)) => self.pending = entries.into(),
                Ok(Read::NotKept) => return Some(self.fail("the run's events are no longer kept")),
                Ok(Read::Replaced) => {
                    return Some(self.fail(
                        "the run was resumed, and its new attempt's events are numbered from 1 again; reattach without Last-Event-ID",
                    ))
                }
                Err(e) => return Some(self.fail(&e.to_string())),
            }
        }
        if self.pending.front().is_some_and(|e| e.id != self.after + 1) {
            return Some(self.fail(
                "this client fell so far behind that the events it had not read are no longer kept",
            ));
        }
        let mut text = String::new();
        while let Some(entry) = self.pending.pop_front() {
            if entry.id != self.after + 1 {
                self.pending.push_front(entry);
                break;
            }
            text.push_str(&format!("id:{}\ndata:{}\n\n", entry.id, entry.data));
            self.after = entry.id;
            if entry.ends_stream() {
                self.done = true;
                break;
            }
        }
        Some(text)
    }

    /// Why nothing more will come, when the run stopped without its stream's end (its replica
    /// died, or its events could not be kept): its record says it ended (a run's stream is
    /// whole before its record is), or nobody holds its session any more, and its stream has
    /// nothing new.
    async fn run_is_gone(&mut self) -> Option<String> {
        let record = self.app.coord.run(&self.message_id).await.ok()?;
        let status = match record.map(|r| r.status) {
            Some(RunStatus::Running) => {
                if self.app.coord.is_running(&self.session_id).await.ok()? {
                    return None;
                }
                "interrupted"
            }
            Some(status) => status.as_str(),
            None => "unknown",
        };
        match self.reader.read(self.after, std::time::Duration::ZERO).await {
            Ok(Read::Entries(entries)) if !entries.is_empty() => {
                self.pending = entries.into();
                None
            }
            _ => Some(format!(
                "the run stopped ({status}) without the end of its stream; its replica may have stopped"
            )),
        }
    }

    /// RAGFlow's error frame and the terminator, ending the stream.
    fn fail(&mut self, why: &str) -> String {
        self.done = true;
        let frame = json!({"code": 500, "message": format!("Reattaching to run {}: {why}.", self.message_id),
            "data": false, "session_id": self.session_id});
        format!("data:{frame}\n\ndata:{TERMINATOR}\n\n")
    }
}
