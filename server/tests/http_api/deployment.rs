//! The two deployments the run-control features must behave alike on: the shared server alone
//! (coordination in memory), and two replicas sharing a database and Redis, where a request
//! may land on either. Requests and streams go to a replica by its base URL.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::chat_dsl;
use crate::harness::{api_key_at, call_at, replica_pair, server, tenant, unique, Answer};

pub struct Deployment {
    /// Where runs start.
    pub a: String,
    /// Where a second request goes: the other replica, or the same server.
    pub b: String,
    /// `Authorization` of one tenant on both.
    pub auth: String,
}

impl Deployment {
    /// The shared server, coordination in memory.
    pub async fn in_memory() -> Deployment {
        let t = tenant().await;
        let base = server().base.clone();
        Deployment {
            a: base.clone(),
            b: base,
            auth: format!("Bearer {}", t.api_key),
        }
    }

    /// Two replicas on one database and one Redis (a prefix of their own).
    pub async fn redis_pair(name: &str) -> Deployment {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let prefix = format!("canvasc-test:{name}:{}:{nanos:x}:", std::process::id());
        let (a, b) = replica_pair(|config| {
            config.registration = canvasc_server::Registration::Open;
            config.redis_url = Some(crate::quotas::redis_url());
            config.redis_prefix = prefix.clone();
        })
        .await;
        let auth = api_key_at(&a, &format!("{}@example.com", unique(name))).await;
        Deployment { a, b, auth }
    }

    pub async fn call(
        &self,
        base: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Answer {
        call_at(base, method, path, Some(&self.auth), body, &[]).await
    }

    /// A draft agent on the test's chat canvas (Begin → LLM → Message).
    pub async fn chat_agent(&self) -> String {
        let body = json!({"title": unique("chat"), "dsl": chat_dsl()});
        let created = self
            .call(&self.a, Method::POST, "/agents", Some(body))
            .await;
        created.expect(0)["id"]
            .as_str()
            .expect("an agent id")
            .to_string()
    }

    /// Starts a streamed run on `base`; the response is read with [`Stream`].
    pub async fn stream(&self, base: &str, path: &str, body: Value) -> Stream {
        self.stream_with(base, Method::POST, path, Some(body), &[])
            .await
    }

    pub async fn stream_with(
        &self,
        base: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Stream {
        let mut request = reqwest::Client::new()
            .request(method, format!("{base}/api/v1{path}"))
            .header("Authorization", &self.auth)
            .header("Content-Type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        let response = request.send().await.expect("the server answers");
        Stream {
            response,
            text: String::new(),
            read: 0,
        }
    }

    /// The session as stored (`GET /agents/{id}/sessions/{sid}`).
    pub async fn session(&self, agent: &str, session: &str) -> Value {
        let path = format!("/agents/{agent}/sessions/{session}");
        self.call(&self.b, Method::GET, &path, None)
            .await
            .expect(0)
            .clone()
    }

    /// The run's status word once it left `running` (within 15 s).
    pub async fn ended_status(&self, agent: &str, run: &str) -> String {
        let path = format!("/agents/{agent}/runs/{run}");
        for _ in 0..750 {
            let answer = self.call(&self.a, Method::GET, &path, None).await;
            let status = answer.expect(0)["status"]
                .as_str()
                .unwrap_or("")
                .to_string();
            if status != "running" {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("run {run} is still running after 15 s");
    }
}

/// One SSE event as sent: its `id:` (when the stream gives ids) and its data.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: Option<u64>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// A streamed response, read event by event.
pub struct Stream {
    pub response: reqwest::Response,
    text: String,
    /// Bytes of `text` already parsed into events.
    read: usize,
}

impl Stream {
    /// The next event (comments skipped), `None` when the body ended; panics after 20 s.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.text[self.read..].find("\n\n") {
                let block = self.text[self.read..self.read + end].to_string();
                self.read += end + 2;
                let mut event = Event {
                    id: None,
                    data: String::new(),
                };
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        event.id = id.trim().parse().ok();
                    } else if let Some(data) = line.strip_prefix("data:") {
                        event.data.push_str(data);
                    }
                }
                if event.data.is_empty() {
                    continue;
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.response.chunk())
                .await
                .expect("the stream stalled for 20 s")
                .expect("a chunk")?;
            self.text.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Every event up to the end of the body.
    pub async fn rest(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }

    /// Events until one whose JSON satisfies `until` (included).
    pub async fn until(&mut self, until: fn(&Value) -> bool) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            let done = until(&event.json());
            events.push(event);
            if done {
                break;
            }
        }
        events
    }
}

/// The words of the answer's `message` frames.
pub fn answered(events: &[Event]) -> String {
    events
        .iter()
        .map(Event::json)
        .filter(|f| f["event"] == "message")
        .filter_map(|f| f["data"]["content"].as_str().map(String::from))
        .collect()
}
