//! Webhook test runs (`/webhook/test`) record every event for the editor, which polls
//! `GET /agents/{agent_id}/webhook/logs` (RAGFlow's `webhook_trace`): runs are announced by
//! an opaque id derived from their start time, and their events are paged by time.

use axum::extract::{Path, State};
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;
use std::time::{Duration, Instant};

use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::Params;
use crate::shared::AppRef;

/// What one recorded run keeps: its events' JSON up to this size; later ones are dropped (its
/// `error` and `finished` events are always kept).
const MAX_BYTES: usize = 1 << 20;

/// A run's trace is stored at most this often while it runs (and once more at its end), so a
/// long run costs a few writes a second, not one per event.
const STORE_EVERY: Duration = Duration::from_millis(200);

/// Request headers that carry credentials: a trace shows them as this.
const REDACTED: &str = "[redacted]";
const SECRET_HEADERS: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

/// The key RAGFlow derives a run's opaque id with (`webhook_id_secret`).
const ID_KEY: &[u8] = b"webhook_id_secret";

/// A test run being recorded.
pub(crate) struct Recorder {
    app: AppRef,
    agent_id: String,
    /// `str(start_ts)`: the run's key.
    start: String,
    start_ts: f64,
    /// Each recorded event's JSON.
    events: Vec<String>,
    bytes: usize,
    stored_at: Option<Instant>,
    /// Header names (lower case) whose values the trace does not show: credentials, and the
    /// webhook's own token header.
    secrets: Vec<String>,
}

/// Seconds since the epoch, as Python's `time.time()`.
pub(crate) fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Recorder {
    pub(crate) fn new(
        app: AppRef,
        agent_id: &str,
        start_ts: f64,
        token_header: Option<&str>,
    ) -> Recorder {
        let mut secrets: Vec<String> = SECRET_HEADERS.iter().map(|h| h.to_string()).collect();
        secrets.extend(token_header.map(str::to_lowercase));
        Recorder {
            app,
            agent_id: agent_id.to_string(),
            start: canvasc_value::py::float_repr(start_ts),
            start_ts,
            events: Vec::new(),
            bytes: 0,
            stored_at: None,
            secrets,
        }
    }

    /// Records `event` (stamped `ts`, credentials redacted), and stores the run's trace when
    /// it was last stored long enough ago.
    pub(crate) async fn record(&mut self, event: &Value) {
        let kind = event.get("event").and_then(Value::as_str);
        let last = matches!(kind, Some("finished" | "error"));
        let mut stamped = Map::new();
        stamped.insert("ts".into(), json!(now_s()));
        if let Value::Object(fields) = event {
            stamped.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let mut stamped = Value::Object(stamped);
        redact(&mut stamped, &self.secrets);
        let text = stamped.to_string();
        if self.bytes + text.len() > MAX_BYTES && !last {
            return;
        }
        self.bytes += text.len();
        self.events.push(text);
        let due = self.stored_at.is_none_or(|at| at.elapsed() >= STORE_EVERY);
        if due || kind == Some("finished") {
            self.store().await;
        }
    }

    async fn store(&mut self) {
        self.stored_at = Some(Instant::now());
        let run = format!(
            "{{\"start_ts\":{},\"events\":[{}]}}",
            json!(self.start_ts),
            self.events.join(",")
        );
        if let Err(e) = self
            .app
            .coord
            .put_webhook_trace(&self.agent_id, &self.start, &run)
            .await
        {
            tracing::warn!(agent = %self.agent_id, "a webhook test run's trace was not stored: {e}");
        }
    }

    /// The run's last event: `finished`, after an `error` event when it failed.
    pub(crate) async fn finish(&mut self, error: Option<(&str, &str)>) {
        let elapsed = now_s() - self.start_ts;
        if let Some((message, error_type)) = error {
            self.record(&json!({"event": "error", "message": message, "error_type": error_type}))
                .await;
        }
        self.record(
            &json!({"event": "finished", "elapsed_time": elapsed, "success": error.is_none()}),
        )
        .await;
    }
}

/// Hides the credentials of every request headers map in `v` (the map Begin's `request`
/// input carries, which Quart starts with `Remote-Addr`).
fn redact(v: &mut Value, secrets: &[String]) {
    match v {
        Value::Object(m) => {
            if m.contains_key("Remote-Addr") {
                for (name, value) in m.iter_mut() {
                    if secrets.contains(&name.to_lowercase()) {
                        *value = Value::String(REDACTED.into());
                    }
                }
            }
            m.values_mut().for_each(|x| redact(x, secrets));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| redact(x, secrets)),
        _ => {}
    }
}

/// RAGFlow's `encode_webhook_id`: HMAC-SHA256 of the start time, URL-safe base64 unpadded.
fn encode_id(start: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(ID_KEY) else {
        unreachable!("HMAC takes a key of any length")
    };
    mac.update(start.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// `GET /agents/{agent_id}/webhook/logs` (owner only).
pub(crate) async fn logs(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    params: Params,
) -> Answer {
    if !app.store.owns_agent(&tenant, &agent_id).await? {
        return Err(ApiError::data("Canvas not found."));
    }
    // `request.args.get("since_ts", type=float)`: absent or not a number is `None`.
    let since_ts = params
        .get("since_ts")
        .and_then(canvasc_value::py::parse_float);
    let Some(since) = since_ts else {
        return Ok(Reply::success(json!({"webhook_id": null, "events": [],
            "next_since_ts": now_s(), "finished": false})));
    };
    let runs = app.coord.webhook_traces(&agent_id).await?;
    if runs.is_empty() {
        return Ok(Reply::success(json!({"webhook_id": null, "events": [],
            "next_since_ts": since, "finished": false})));
    }
    let Some(webhook_id) = params.get("webhook_id") else {
        // The earliest run that started after `since` is announced.
        let first = runs
            .iter()
            .filter_map(|(start, _)| canvasc_value::py::parse_float(start).map(|t| (t, start)))
            .filter(|(t, _)| *t > since)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        return Ok(Reply::success(match first {
            None => json!({"webhook_id": null, "events": [], "next_since_ts": since,
                "finished": false}),
            Some((t, start)) => json!({"webhook_id": encode_id(start),
                "events": [], "next_since_ts": t, "finished": false}),
        }));
    };
    let Some((_, run)) = runs
        .iter()
        .find(|(start, _)| encode_id(start) == *webhook_id)
    else {
        return Ok(Reply::success(
            json!({"webhook_id": webhook_id, "events": [],
            "next_since_ts": since, "finished": true}),
        ));
    };
    let run: Value = serde_json::from_str(run)
        .map_err(|e| ApiError::exception(format!("a recorded webhook run is not JSON: {e}")))?;
    let ts = |e: &Value| e.get("ts").and_then(Value::as_f64).unwrap_or(0.0);
    let events: Vec<Value> = run["events"]
        .as_array()
        .map(|events| events.iter().filter(|e| ts(e) > since).cloned().collect())
        .unwrap_or_default();
    let next = events.iter().map(ts).fold(since, f64::max);
    let finished = events
        .iter()
        .any(|e| e.get("event").and_then(Value::as_str) == Some("finished"));
    Ok(Reply::success(
        json!({"webhook_id": webhook_id, "events": events,
        "next_since_ts": next, "finished": finished}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_a_request_headers_map_are_hidden() {
        let secrets = vec!["authorization".to_string(), "x-token".to_string()];
        let mut event = json!({"data": {"inputs": {"request": {"headers": {
            "Remote-Addr": "127.0.0.1", "Authorization": "Bearer k", "X-Token": "t", "X-Other": "o"}}}},
            "outputs": {"headers": {"X-Token": "t"}}});
        redact(&mut event, &secrets);
        let headers = &event["data"]["inputs"]["request"]["headers"];
        assert_eq!(
            (
                &headers["Authorization"],
                &headers["X-Token"],
                &headers["X-Other"]
            ),
            (&json!(REDACTED), &json!(REDACTED), &json!("o"))
        );
        // Only the raw request's map: what the schema picked is the canvas's data.
        assert_eq!(event["outputs"]["headers"]["X-Token"], "t");
    }

    #[test]
    fn run_ids_are_ragflows_hmac_of_the_start_time() {
        // python3 -c 'import hmac,hashlib,base64; print(base64.urlsafe_b64encode(hmac.new(b"webhook_id_secret", b"1700000000.5", hashlib.sha256).digest()).decode().rstrip("="))'
        assert_eq!(
            encode_id("1700000000.5"),
            "3nPKkyoN2tVor0LXHVNPx1r_NEc3mhr1cZ6Mud8Y9xY"
        );
    }
}
