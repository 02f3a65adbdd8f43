//! Background runs (issue 42): a chat completion with `"background": true` is answered at once
//! with its `message_id`, and its run goes on with nobody reading its events; the turn is
//! saved as any other. `GET /agents/{id}/runs/{message_id}` (`api/runs.rs`) tells how it
//! stands. A `webhook_url` is called once the run ends: through the SSRF guard (the host's
//! `TurnRunner::deliver`), signed with the request's `webhook_secret`, and retried with
//! backoff while the receiver fails; every attempt is logged.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;

use crate::clock::new_id;
use crate::envelope::ApiError;
use crate::run::{Ended, Launched};
use crate::shared::AppRef;
use crate::turn::{Delivery, TurnEnd};

/// Tries of one delivery, and the wait before the second (doubled before each later one:
/// 1, 2, 4, 8 s).
const ATTEMPTS: u32 = 5;
const FIRST_WAIT: Duration = Duration::from_secs(1);

/// Where a run's end is announced, and the key its deliveries are signed with.
pub(crate) struct Webhook {
    url: String,
    secret: String,
}

impl Webhook {
    /// The request's `webhook_url` (http or https) and the `webhook_secret` its deliveries are
    /// signed with: a secret of the receiver's own, which the caller and the receiver share
    /// and which outlives any API key.
    pub(crate) fn from_request(body: &Map<String, Value>) -> Result<Option<Webhook>, ApiError> {
        let url = match body.get("webhook_url") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(url)) if url.is_empty() => return Ok(None),
            Some(Value::String(url)) => url.clone(),
            Some(_) => return Err(ApiError::argument("`webhook_url` must be a URL.")),
        };
        let scheme_ok = url::Url::parse(&url)
            .map(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or(false);
        if !scheme_ok {
            return Err(ApiError::argument(
                "`webhook_url` must be an http:// or https:// URL.",
            ));
        }
        let secret = match body.get("webhook_secret") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                return Err(ApiError::argument(
                    "`webhook_secret` is required with `webhook_url`: every delivery is signed with it.",
                ))
            }
        };
        Ok(Some(Webhook { url, secret }))
    }
}

impl Webhook {
    pub(crate) fn url(&self) -> &str {
        &self.url
    }
}

/// The run's names, for its announcement.
pub(crate) struct RunIds {
    pub agent_id: String,
    pub session_id: String,
    pub message_id: String,
}

/// How a run ended, in the run record's words.
pub(crate) fn status(ended: &Ended) -> &'static str {
    if ended.unsaved.is_some() {
        return "failed";
    }
    match ended.end {
        TurnEnd::Finished => "succeeded",
        TurnEnd::Paused => "waiting",
        TurnEnd::Canceled => "cancelled",
        TurnEnd::Failed(_) | TurnEnd::Aborted(_) => "failed",
    }
}

/// The answer a finished run announces, made by the endpoint that started it (the native
/// completion's final event), from the run's end and its session id.
pub(crate) type Answer = fn(&Ended, &str) -> Value;

/// Lets the run go on with nobody reading it (its events are drained, so the driver never
/// takes the reader's absence for a client that left), then announces its end.
pub(crate) fn detach(
    app: AppRef,
    launched: Launched,
    ids: RunIds,
    webhook: Option<Webhook>,
    answer: Answer,
) {
    tokio::spawn(async move {
        let mut frames = launched.frames;
        let ended = crate::sse::finish(&mut frames).await;
        let Some(webhook) = webhook else {
            return;
        };
        let payload = match &ended {
            Some(ended) => {
                json!({"event": "run.finished", "agent_id": ids.agent_id,
                    "session_id": ids.session_id, "message_id": ids.message_id,
                    "status": status(ended), "answer": answer(ended, &ids.session_id)})
            }
            None => json!({"event": "run.finished", "agent_id": ids.agent_id,
                "session_id": ids.session_id, "message_id": ids.message_id,
                "status": "failed", "answer": {"error": "the run stopped unexpectedly"}}),
        };
        deliver(&app, &webhook, &ids, payload.to_string().into_bytes()).await;
    });
}

/// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver checks the
/// signature with the secret and refuses old timestamps (replays).
fn signature(secret: &str, timestamp: u64, body: &[u8]) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        unreachable!("HMAC takes a key of any length")
    };
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={timestamp},v1={hex}")
}

/// The receiver's host, for the log (a URL's path and query may carry secrets).
fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

async fn deliver(app: &AppRef, webhook: &Webhook, ids: &RunIds, body: Vec<u8>) {
    let delivery = new_id();
    let host = host_of(&webhook.url);
    let mut wait = FIRST_WAIT;
    for attempt in 1..=ATTEMPTS {
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("X-Canvasc-Delivery".to_string(), delivery.clone()),
            ("X-Canvasc-Attempt".to_string(), attempt.to_string()),
            (
                "X-Canvasc-Signature".to_string(),
                signature(&webhook.secret, timestamp, &body),
            ),
        ];
        let outcome = app
            .runner
            .deliver(webhook.url.clone(), headers, body.clone())
            .await;
        match outcome {
            Ok(status) if (200..300).contains(&status) => {
                tracing::info!(agent = %ids.agent_id, message_id = %ids.message_id, %host, attempt, status,
                    "a background run's webhook was delivered");
                return;
            }
            // A timeout, throttling or a server error may pass; any other answer stands.
            Ok(status @ (408 | 429 | 500..)) => {
                tracing::warn!(agent = %ids.agent_id, message_id = %ids.message_id, %host, attempt, status,
                    "a background run's webhook failed at its receiver");
            }
            Ok(status) => {
                tracing::warn!(agent = %ids.agent_id, message_id = %ids.message_id, %host, attempt, status,
                    "a background run's webhook was refused by its receiver; not retried");
                return;
            }
            Err(Delivery::Refused(why)) => {
                tracing::warn!(agent = %ids.agent_id, message_id = %ids.message_id, %host, attempt,
                    "a background run's webhook is not retried: {why}");
                return;
            }
            Err(Delivery::Failed(why)) => {
                tracing::warn!(agent = %ids.agent_id, message_id = %ids.message_id, %host, attempt,
                    "a background run's webhook could not be sent: {why}");
            }
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
    }
    tracing::error!(agent = %ids.agent_id, message_id = %ids.message_id, %host,
        "a background run's webhook was not delivered after {ATTEMPTS} tries");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliveries_are_signed_over_the_timestamp_and_the_body() {
        // python3 -c 'import hmac,hashlib;print(hmac.new(b"k", b"1700000000.{}", hashlib.sha256).hexdigest())'
        assert_eq!(
            signature("k", 1_700_000_000, b"{}"),
            "t=1700000000,v1=c6ef4734033cee2367414a0939385eca0397754aa7a59716da7463a9298b5146"
        );
    }
}
