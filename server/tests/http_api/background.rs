//! Background runs (issue 42): `"background": true` answers 202 with the run's id at once,
//! `GET /agents/{id}/runs/{message_id}` tells how the run stands and then its answer, and a
//! `webhook_url` receives one signed delivery when the run ends, retried with backoff.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{json, Value};
use sha2::Sha256;

use crate::engine::engine_reaching_loopback;
use crate::harness::{
    agent, api_key_at, call_at, extra_server_running, minimal_dsl, tenant, unique,
};

/// The run's record until it is no longer running.
async fn finished(get: impl Fn() -> futures::future::BoxFuture<'static, Value>) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let data = get().await;
        if data["status"] != "running" {
            return data;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run did not end: {data}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_background_run_answers_at_once_and_its_record_tells_how_it_ended() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("background")).await;
    let started = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "in the background", "background": true, "stream": true}),
        )
        .await;
    assert_eq!(started.status, 202, "{}", started.body);
    assert_eq!(started.code(), 0);
    let data = started.body["data"].clone();
    assert_eq!(data["status"], "running");
    let message_id = data["message_id"]
        .as_str()
        .expect("a message id")
        .to_string();
    let path = format!("/agents/{id}/runs/{message_id}");
    let api = t.api.clone();
    let run = finished(move || {
        let (api, path) = (api.clone(), path.clone());
        Box::pin(async move { api.get(&path).await.expect(0).clone() })
    })
    .await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["session_id"], data["session_id"]);
    assert_eq!(run["answer"]["content"], "in the background", "{run}");
    assert!(run["finished_at"].as_i64() >= run["started_at"].as_i64());

    let missing = t.api.get(&format!("/agents/{id}/runs/nope")).await;
    assert_eq!((missing.code(), missing.message()), (102, "Run not found."));
    let other = tenant().await;
    let hidden = other
        .api
        .get(&format!("/agents/{id}/runs/{message_id}"))
        .await;
    assert_eq!(hidden.code(), 103);
    let wrong = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "x", "webhook_url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert_eq!(
        wrong.code(),
        101,
        "a webhook without a background run: {}",
        wrong.body
    );
}

/// What the receiver got: each request's headers and body.
type Received = Arc<Mutex<Vec<(reqwest::header::HeaderMap, String)>>>;

/// A receiver on 127.0.0.1 that answers 500 to its first `failures` requests, then 200.
async fn receiver(failures: usize) -> (String, Received) {
    let received: Received = Arc::default();
    let seen = received.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
                let mut copied = reqwest::header::HeaderMap::new();
                for (k, v) in &headers {
                    if let (Ok(k), Ok(v)) = (
                        reqwest::header::HeaderName::from_bytes(k.as_str().as_bytes()),
                        reqwest::header::HeaderValue::from_bytes(v.as_bytes()),
                    ) {
                        copied.insert(k, v);
                    }
                }
                seen.push((copied, body));
                match seen.len() <= failures {
                    true => axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    false => axum::http::StatusCode::OK,
                }
            }
        }),
    );
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("the receiver binds");
    let addr = socket.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(socket, app).await });
    (format!("http://{addr}/hook"), received)
}

fn signed(secret: &str, signature: &str, body: &str) -> bool {
    let Some((t, v1)) = signature
        .strip_prefix("t=")
        .and_then(|rest| rest.split_once(",v1="))
    else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("a key");
    mac.update(format!("{t}.{body}").as_bytes());
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    hex == v1
}

#[tokio::test]
async fn a_webhook_that_fails_twice_gets_one_signed_delivery_on_the_third_try() {
    let base = extra_server_running(engine_reaching_loopback(), |config| {
        config.registration = canvasc_server::Registration::Open;
    })
    .await;
    let auth = api_key_at(&base, &format!("{}@example.com", unique("hook"))).await;
    let created = call_at(
        &base,
        Method::POST,
        "/agents",
        Some(&auth),
        Some(json!({"title": unique("background"), "dsl": minimal_dsl()})),
        &[],
    )
    .await;
    let id = created.expect(0)["id"].as_str().expect("an id").to_string();
    let (url, received) = receiver(2).await;
    let started = call_at(
        &base,
        Method::POST,
        "/agents/chat/completions",
        Some(&auth),
        Some(
            json!({"agent_id": id, "query": "hook me", "background": true,
            "webhook_url": url, "webhook_secret": "shh"}),
        ),
        &[],
    )
    .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let message_id = started.body["data"]["message_id"]
        .as_str()
        .expect("an id")
        .to_string();
    // 1 s, then 2 s between the tries.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while received.lock().unwrap_or_else(|p| p.into_inner()).len() < 3 {
        assert!(tokio::time::Instant::now() < deadline, "no third try");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Nothing more after the delivery that succeeded.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let received = received.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert_eq!(received.len(), 3, "exactly three tries");
    let deliveries: Vec<&str> = received
        .iter()
        .map(|(h, _)| h["x-canvasc-delivery"].to_str().unwrap_or(""))
        .collect();
    assert!(
        deliveries
            .iter()
            .all(|d| *d == deliveries[0] && !d.is_empty()),
        "{deliveries:?}"
    );
    let (headers, body) = &received[2];
    assert_eq!(headers["x-canvasc-attempt"], "3");
    let signature = headers["x-canvasc-signature"]
        .to_str()
        .expect("a signature");
    assert!(signed("shh", signature, body), "{signature}");
    assert!(!signed("other", signature, body));
    let payload: Value = serde_json::from_str(body).expect("JSON");
    assert_eq!(payload["event"], "run.finished");
    assert_eq!(payload["message_id"], message_id.as_str());
    assert_eq!(payload["status"], "succeeded");
    assert_eq!(payload["answer"]["data"]["content"], "hook me", "{payload}");
}

#[tokio::test]
async fn a_webhook_url_the_guard_refuses_or_without_a_secret_is_refused_up_front() {
    // The shared server's guard refuses loopback, as a production server's does.
    let t = tenant().await;
    let id = agent(&t.api, &unique("background")).await;
    let (url, received) = receiver(0).await;
    let refused = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "x", "background": true, "webhook_url": url,
                "webhook_secret": "shh"}),
        )
        .await;
    assert_eq!(refused.code(), 101, "{}", refused.body);
    assert!(
        refused
            .message()
            .starts_with("`webhook_url` is not allowed: "),
        "{}",
        refused.body
    );
    let unsigned = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "x", "background": true,
                "webhook_url": "https://hooks.example.com/x"}),
        )
        .await;
    assert_eq!(
        unsigned.code(),
        101,
        "a webhook needs its secret: {}",
        unsigned.body
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(received
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .is_empty());
}
