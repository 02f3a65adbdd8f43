//! A run's events, counted for its tenant's quotas on their way to the driver: the tokens
//! `workflow_finished` reports are spent, and the run's slot freed, when the turn's end
//! passes, before the driver saves the turn and answers the client. The next run of the
//! tenant is judged with them; the run itself is never cut.

use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::Value;

use super::Ticket;
use crate::turn::TurnEvent;

/// `events` with `ticket` held until the turn ends (or the stream is dropped).
pub(crate) fn metered(
    events: BoxStream<'static, TurnEvent>,
    mut ticket: Ticket,
) -> BoxStream<'static, TurnEvent> {
    ticket.started();
    futures::stream::unfold(
        (events, Some(ticket), 0u64),
        |(mut events, mut ticket, mut tokens)| async move {
            let next = events.next().await;
            match &next {
                Some(TurnEvent::Event { event, data }) if event == "workflow_finished" => {
                    tokens = total_tokens(data);
                }
                Some(TurnEvent::Event { .. }) => {}
                Some(TurnEvent::Ended { .. }) | None => {
                    if let Some(ticket) = ticket.take() {
                        ticket.end(tokens).await;
                    }
                }
            }
            next.map(|item| (item, (events, ticket, tokens)))
        },
    )
    .boxed()
}

/// `usage.total_tokens` of a `workflow_finished` (the run's, RAGFlow's count).
fn total_tokens(data: &Value) -> u64 {
    data.pointer("/usage/total_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0)
}
