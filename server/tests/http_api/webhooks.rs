//! Webhooks over real HTTP (http-api.md §12), replaying RAGFlow's own answers: every request of
//! `tests/golden/webhook/cases.json` is sent, byte for byte, on a raw TCP connection (so the
//! headers are exactly the case's, in its order) to a fresh agent holding the case's canvas,
//! and must get the HTTP status, content type and body of `expected.json` (RAGFlow's webhook
//! code on the same requests); a `/webhook/test` case must also leave RAGFlow's trace for the
//! editor's poll. One test per case.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use reqwest::Method;

use crate::harness::{
    agent_with, api_key_at, call_at, replica_pair, server, tenant, unique, Tenant,
};

fn golden(file: &str) -> Value {
    let path = format!(
        "{}/../tests/golden/webhook/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn canvas(rel: &str) -> Value {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An HTTP answer as read off the socket.
struct Raw {
    status: u16,
    content_type: String,
    body: String,
}

/// Sends one request with exactly `headers` (after `Host`; `Content-Length` last when there is
/// a body, or a chunked body) and reads the answer.
async fn send(path_and_query: &str, request: &Value, auth: Option<&str>) -> Raw {
    send_to(&server().base, path_and_query, request, auth).await
}

/// [`send`] to the server at `base`.
async fn send_to(base: &str, path_and_query: &str, request: &Value, auth: Option<&str>) -> Raw {
    let host = base.trim_start_matches("http://");
    let method = request["method"].as_str().expect("a method");
    let mut head = format!("{method} {path_and_query} HTTP/1.1\r\nHost: {host}\r\n");
    for pair in request["headers"].as_array().cloned().unwrap_or_default() {
        head.push_str(&format!(
            "{}: {}\r\n",
            pair[0].as_str().expect("a header name"),
            pair[1].as_str().expect("a header value")
        ));
    }
    if let Some(auth) = auth {
        head.push_str(&format!("Authorization: {auth}\r\n"));
    }
    let body = request["body"].as_str();
    let chunked = request["chunked"] == json!(true);
    let mut bytes = Vec::new();
    match (body, chunked) {
        (Some(body), true) => {
            head.push_str("Transfer-Encoding: chunked\r\n\r\n");
            bytes.extend_from_slice(head.as_bytes());
            bytes.extend_from_slice(format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len()).as_bytes());
        }
        (Some(body), false) => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
            bytes.extend_from_slice(head.as_bytes());
            bytes.extend_from_slice(body.as_bytes());
        }
        (None, _) => {
            head.push_str("\r\n");
            bytes.extend_from_slice(head.as_bytes());
        }
    }
    let mut stream = tokio::net::TcpStream::connect(host)
        .await
        .expect("the server accepts");
    stream.write_all(&bytes).await.expect("the request is sent");
    read_answer(&mut stream, method == "HEAD").await
}

async fn read_answer(stream: &mut tokio::net::TcpStream, head_only: bool) -> Raw {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let split = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut chunk))
            .await
            .expect("the answer comes within 30 s")
            .expect("the answer reads");
        assert!(n > 0, "the server closed before its answer's head");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let mut content_type = String::new();
    let mut length = 0usize;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-type" => content_type = value.trim().to_string(),
                "content-length" => length = value.trim().parse().expect("a length"),
                _ => {}
            }
        }
    }
    let mut body = buf[split + 4..].to_vec();
    while !head_only && body.len() < length {
        let n = stream.read(&mut chunk).await.expect("the body reads");
        assert!(n > 0, "the server closed mid-body");
        body.extend_from_slice(&chunk[..n]);
    }
    Raw {
        status,
        content_type,
        body: String::from_utf8(body).expect("a UTF-8 body"),
    }
}

/// The oracle's placeholders for what changes from run to run.
fn normalize(v: &Value) -> Value {
    const VOLATILE: [(&str, &str); 6] = [
        ("message_id", "<message_id>"),
        ("task_id", "<task_id>"),
        ("created_at", "<created_at>"),
        ("elapsed_time", "<elapsed_time>"),
        ("_created_time", "<created_time>"),
        ("_elapsed_time", "<elapsed_time>"),
    ];
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "ts")
                .map(|(k, x)| match VOLATILE.iter().find(|(name, _)| name == k) {
                    Some((_, placeholder)) if !x.is_null() => (k.clone(), json!(placeholder)),
                    _ => (k.clone(), normalize(x)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

/// The raw request headers a trace shows, as RAGFlow's would be: `Host` as the oracle
/// modelled it, without the owner's key the test route needs here (the oracle assumed it),
/// and the webhook's token (`X-Token` in these canvases) hidden, as canvasc's traces hide
/// credentials (RAGFlow's shows them).
fn as_modelled(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(headers)) = m.get_mut("headers") {
                if headers.contains_key("Remote-Addr") {
                    headers.insert("Host".into(), json!("127.0.0.1"));
                    headers.remove("Authorization");
                    if let Some(token) = headers.get_mut("X-Token") {
                        *token = json!("[redacted]");
                    }
                }
            }
            m.values_mut().for_each(as_modelled);
        }
        Value::Array(items) => items.iter_mut().for_each(as_modelled),
        _ => {}
    }
}

/// The recorded test run's events, once it has finished.
async fn trace(t: &Tenant, agent_id: &str) -> Vec<Value> {
    let path = format!("/agents/{agent_id}/webhook/logs?since_ts=0");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let announced = t.api.get(&path).await;
        let data = announced.expect(0).clone();
        if let Some(id) = data["webhook_id"].as_str() {
            let polled = t.api.get(&format!("{path}&webhook_id={id}")).await;
            let data = polled.expect(0).clone();
            if data["finished"] == json!(true) {
                return data["events"].as_array().cloned().unwrap_or_default();
            }
        }
        if tokio::time::Instant::now() > deadline {
            panic!("the test run's trace did not finish: {data}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn replay(name: &str) {
    let cases = golden("cases.json");
    let case = cases
        .as_array()
        .and_then(|all| all.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("cases.json has no case {name}"))
        .clone();
    let expected = golden("expected.json");
    let results = expected["cases"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["name"] == name))
        .and_then(|c| c["results"].as_array().cloned())
        .unwrap_or_else(|| panic!("expected.json has no case {name}"));
    let t = tenant().await;
    let dsl = canvas(case["canvas"].as_str().expect("a canvas"));
    let agent_id = agent_with(&t.api, &unique("webhook"), dsl).await;
    let is_test = case["test"] == json!(true);
    let route = match is_test {
        true => "webhook/test",
        false => "webhook",
    };
    let auth = is_test.then(|| format!("Bearer {}", t.api_key));
    let requests = case["requests"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        requests.len(),
        results.len(),
        "{name}: one result per request"
    );
    for (i, (request, want)) in requests.iter().zip(&results).enumerate() {
        let query = request["query"].as_str().unwrap_or("");
        let path = match query {
            "" => format!("/api/v1/agents/{agent_id}/{route}"),
            q => format!("/api/v1/agents/{agent_id}/{route}?{q}"),
        };
        let got = send(&path, request, auth.as_deref()).await;
        let at = format!("{name} request {}", i + 1);
        assert_eq!(
            u64::from(got.status),
            want["status"],
            "{at}: status; body {}",
            got.body
        );
        assert_eq!(got.content_type, want["content_type"], "{at}: content type");
        match want.get("body_text").and_then(Value::as_str) {
            Some(text) => assert_eq!(got.body, text, "{at}: body text"),
            None if got.content_type == "application/json" => {
                let body: Value = serde_json::from_str(&got.body)
                    .unwrap_or_else(|e| panic!("{at}: a JSON body ({e}): {}", got.body));
                assert_eq!(body, want["body"], "{at}: body");
            }
            None => assert_eq!(json!(got.body), want["body"], "{at}: body"),
        }
        if let Some(Value::Array(expected_trace)) = want.get("trace") {
            let mut ours = Value::Array(match expected_trace.is_empty() {
                // A request refused before its run records nothing.
                true => {
                    let polled = t
                        .api
                        .get(&format!("/agents/{agent_id}/webhook/logs?since_ts=0"))
                        .await;
                    assert_eq!(polled.expect(0)["webhook_id"], Value::Null, "{at}: no run");
                    Vec::new()
                }
                false => trace(&t, &agent_id).await,
            });
            as_modelled(&mut ours);
            let ours = normalize(&ours);
            let mut theirs = Value::Array(expected_trace.clone());
            as_modelled(&mut theirs);
            let theirs = normalize(&theirs);
            let ours_list = ours.as_array().cloned().unwrap_or_default();
            let theirs_list = theirs.as_array().cloned().unwrap_or_default();
            for (j, (a, b)) in ours_list.iter().zip(&theirs_list).enumerate() {
                assert_eq!(a, b, "{at}: trace event {}", j + 1);
            }
            assert_eq!(ours_list.len(), theirs_list.len(), "{at}: trace length");
        }
    }
}

/// One test per case of `cases.json` (`every_case_has_its_test` keeps the list whole).
macro_rules! cases {
    ($($test:ident => $name:literal,)*) => {
        const CASES: &[&str] = &[$($name),*];
        $(
            #[tokio::test]
            async fn $test() {
                replay($name).await;
            }
        )*
    };
}

cases! {
    json_valid => "json-valid",
    json_casts_from_strings => "json-casts-from-strings",
    json_defaults => "json-defaults",
    json_bool_is_number => "json-bool-is-number",
    json_missing_required_body => "json-missing-required-body",
    json_missing_required_header => "json-missing-required-header",
    json_query_cast_failure => "json-query-cast-failure",
    json_object_cast_failure => "json-object-cast-failure",
    json_type_mismatch_boolean => "json-type-mismatch-boolean",
    json_type_mismatch_array_items => "json-type-mismatch-array-items",
    json_type_mismatch_string => "json-type-mismatch-string",
    json_wrong_content_type => "json-wrong-content-type",
    json_content_type_case_sensitive => "json-content-type-case-sensitive",
    json_content_type_with_charset => "json-content-type-with-charset",
    json_no_content_type => "json-no-content-type",
    json_invalid_json => "json-invalid-json",
    json_duplicates => "json-duplicates",
    json_method_not_allowed => "json-method-not-allowed",
    json_put_allowed => "json-put-allowed",
    json_test_valid => "json-test-valid",
    json_test_schema_rejection => "json-test-schema-rejection",
    anon_denied_post => "anon-denied-post",
    anon_denied_get_method => "anon-denied-get-method",
    no_security => "no-security",
    token_valid => "token-valid",
    token_wrong => "token-wrong",
    token_missing => "token-missing",
    token_rate_limit_counts_failed_auth => "token-rate-limit-counts-failed-auth",
    token_cast_failure => "token-cast-failure",
    token_test_valid => "token-test-valid",
    basic_valid => "basic-valid",
    basic_wrong_password => "basic-wrong-password",
    basic_bearer_instead => "basic-bearer-instead",
    basic_count_cast_failure => "basic-count-cast-failure",
    basic_wrong_content_type => "basic-wrong-content-type",
    jwt_valid => "jwt-valid",
    jwt_expired => "jwt-expired",
    jwt_wrong_secret => "jwt-wrong-secret",
    jwt_wrong_audience => "jwt-wrong-audience",
    jwt_wrong_issuer => "jwt-wrong-issuer",
    jwt_missing_claim => "jwt-missing-claim",
    jwt_alg_not_allowed => "jwt-alg-not-allowed",
    jwt_lowercase_bearer => "jwt-lowercase-bearer",
    jwt_non_json_text => "jwt-non-json-text",
    ip_rate_size_sequence => "ip-rate-size-sequence",
    ip_rate_size_chunked_bypass => "ip-rate-size-chunked-bypass",
    ip_deny => "ip-deny",
    invalid_status_500 => "invalid-status-500",
    invalid_status_schema_first => "invalid-status-schema-first",
    conversational_not_configured => "conversational-not-configured",
    begin_without_mode => "begin-without-mode",
    failing_streaming => "failing-streaming",
    failing_test => "failing-test",
}

#[test]
fn every_case_has_its_test() {
    let names: Vec<String> = golden("cases.json")
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let listed: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        names, listed,
        "tests/golden/webhook/cases.json and this file's list"
    );
}

#[tokio::test]
async fn the_test_route_is_the_owners_and_an_unknown_agent_is_refused() {
    let owner = tenant().await;
    let other = tenant().await;
    let agent_id = agent_with(
        &owner.api,
        &unique("webhook"),
        canvas("fixtures/webhook/json-streaming.json"),
    )
    .await;
    let request = json!({"method": "POST", "headers": [["Content-Type", "application/json"], ["X-Trace", "t"]],
        "body": "{\"name\": \"x\"}"});
    let path = format!("/api/v1/agents/{agent_id}/webhook/test");
    let anonymous = send(&path, &request, None).await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    let stranger = send(&path, &request, Some(&format!("Bearer {}", other.api_key))).await;
    let body: Value = serde_json::from_str(&stranger.body).expect("JSON");
    assert_eq!(
        body,
        json!({"code": 103, "message": "Only the owner of the agent is authorized for this operation.", "data": false})
    );
    // The owner's poll only: another tenant's is RAGFlow's "not found".
    let polled = other
        .api
        .get(&format!("/agents/{agent_id}/webhook/logs?since_ts=0"))
        .await;
    assert_eq!(polled.code(), 102);
    // Once a run is recorded, an id that names none of its runs is a finished, empty one.
    let ran = send(&path, &request, Some(&format!("Bearer {}", owner.api_key))).await;
    assert_eq!(ran.status, 201, "{}", ran.body);
    assert!(!trace(&owner, &agent_id).await.is_empty());
    let unknown = owner
        .api
        .get(&format!(
            "/agents/{agent_id}/webhook/logs?since_ts=12.5&webhook_id=abc"
        ))
        .await;
    assert_eq!(
        unknown.expect(0),
        &json!({"webhook_id": "abc", "events": [], "next_since_ts": 12.5, "finished": true})
    );
    let missing = send("/api/v1/agents/nope/webhook", &request, None).await;
    assert_eq!(missing.status, 400);
    let body: Value = serde_json::from_str(&missing.body).expect("JSON");
    assert_eq!(body, json!({"code": 400, "message": "Canvas not found."}));
}

/// On Redis, a webhook's rate limit is one bucket for every replica (RAGFlow's
/// `rl:tb:{canvas_id}`), and a test run recorded by one replica is polled from the other.
#[tokio::test]
async fn replicas_on_redis_share_a_webhooks_rate_limit_and_its_test_runs() {
    if !crate::quotas::redis_reachable().await {
        return;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let prefix = format!("canvasc-test:webhooks:{}:{nanos:x}:", std::process::id());
    let (a, b) = replica_pair(|config| {
        config.registration = canvasc_server::Registration::Open;
        config.redis_url = Some(crate::quotas::redis_url());
        config.redis_prefix = prefix.clone();
    })
    .await;
    let auth = api_key_at(&a, &format!("{}@example.com", unique("hooks"))).await;
    let create = |canvas_file: &str| {
        let body = json!({"title": unique("webhook"), "dsl": canvas(canvas_file)});
        let a = a.clone();
        let auth = auth.clone();
        async move {
            let created = call_at(&a, Method::POST, "/agents", Some(&auth), Some(body), &[]).await;
            created.expect(0)["id"].as_str().expect("an id").to_string()
        }
    };
    // token-form: two requests a minute, shared by the replicas.
    let limited = create("fixtures/webhook/token-form.json").await;
    let request = json!({"method": "POST", "headers": [
        ["Content-Type", "application/x-www-form-urlencoded"], ["X-Token", "s3cret"]],
        "body": "item=widget"});
    let path = format!("/api/v1/agents/{limited}/webhook");
    let statuses = [
        send_to(&a, &path, &request, None).await.status,
        send_to(&b, &path, &request, None).await.status,
    ];
    assert_eq!(statuses, [202, 202]);
    let third = send_to(&a, &path, &request, None).await;
    assert_eq!(third.status, 400);
    assert!(
        third.body.contains("Rate limit error: Too many requests"),
        "{}",
        third.body
    );
    let mut conn = redis::Client::open(crate::quotas::redis_url())
        .expect("a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis answers");
    let bucket: std::collections::HashMap<String, String> = redis::cmd("HGETALL")
        .arg(format!("{prefix}rl:tb:{limited}"))
        .query_async(&mut conn)
        .await
        .expect("the bucket reads");
    assert!(
        bucket.contains_key("tokens") && bucket.contains_key("timestamp"),
        "{bucket:?}"
    );

    // A test run on A, polled on B.
    let traced = create("fixtures/webhook/json-streaming.json").await;
    let request = json!({"method": "POST", "headers": [["Content-Type", "application/json"],
        ["X-Trace", "t-1"]], "body": "{\"name\": \"Ada\"}"});
    let ran = send_to(
        &a,
        &format!("/api/v1/agents/{traced}/webhook/test"),
        &request,
        Some(&auth),
    )
    .await;
    assert_eq!(ran.status, 201, "{}", ran.body);
    let logs = format!("/agents/{traced}/webhook/logs?since_ts=0");
    let announced = call_at(&b, Method::GET, &logs, Some(&auth), None, &[]).await;
    let id = announced.expect(0)["webhook_id"]
        .as_str()
        .expect("a run is announced")
        .to_string();
    let polled = call_at(
        &b,
        Method::GET,
        &format!("{logs}&webhook_id={id}"),
        Some(&auth),
        None,
        &[],
    )
    .await;
    let data = polled.expect(0);
    assert_eq!(data["finished"], json!(true), "{data}");
    let events: Vec<&str> = data["events"]
        .as_array()
        .map(|e| e.iter().filter_map(|e| e["event"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(events.first(), Some(&"workflow_started"), "{events:?}");
    assert_eq!(events.last(), Some(&"finished"), "{events:?}");

    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut conn)
        .await
        .expect("the keys list");
    assert!(
        keys.contains(&format!("{prefix}agent:webhook-trace:{traced}")),
        "{keys:?}"
    );
    let _: () = redis::cmd("DEL")
        .arg(keys)
        .query_async(&mut conn)
        .await
        .expect("the keys go");
}

/// An agent whose stored DSL is its own reset (`POST /agents/{id}/reset`) runs from the
/// prepared canvas, not from a read of the stored DSL: the answer is RAGFlow's all the same.
#[tokio::test]
async fn a_reset_agent_answers_as_ragflow_does() {
    let t = tenant().await;
    let agent_id = agent_with(
        &t.api,
        &unique("webhook"),
        canvas("fixtures/webhook/json-streaming.json"),
    )
    .await;
    t.api
        .post(&format!("/agents/{agent_id}/reset"), json!({}))
        .await
        .expect(0);
    let cases = golden("cases.json");
    let case = cases
        .as_array()
        .and_then(|all| all.iter().find(|c| c["name"] == "json-valid"))
        .expect("the json-valid case")
        .clone();
    let request = &case["requests"][0];
    let path = format!(
        "/api/v1/agents/{agent_id}/webhook?{}",
        request["query"].as_str().unwrap_or("")
    );
    let got = send(&path, request, None).await;
    let expected = golden("expected.json");
    let want = expected["cases"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["name"] == "json-valid"))
        .map(|c| c["results"][0].clone())
        .expect("its answer");
    assert_eq!(u64::from(got.status), want["status"]);
    assert_eq!(got.body, want["body_text"].as_str().unwrap_or_default());
}

/// A Message status that is not a number ends a waiting webhook's run at its `message_end`
/// (RAGFlow's `int(status)` raises there): the answer is the error, the trace ends with it,
/// and the next Message never runs.
#[tokio::test]
async fn a_status_that_is_not_a_number_ends_the_run_where_it_is_read() {
    let t = tenant().await;
    let text = serde_json::to_string(&canvas("fixtures/webhook/json-streaming.json"))
        .expect("JSON")
        .replace("\"status\":201", "\"status\":\"abc\"");
    let dsl: Value = serde_json::from_str(&text).expect("JSON");
    assert!(
        text.contains("\"status\":\"abc\""),
        "the fixture's Message status moved"
    );
    let agent_id = agent_with(&t.api, &unique("webhook"), dsl).await;
    let request = json!({"method": "POST", "headers": [["Content-Type", "application/json"],
        ["X-Trace", "t-1"]], "body": "{\"name\": \"Ada\"}"});
    let path = format!("/api/v1/agents/{agent_id}/webhook/test");
    let got = send(&path, &request, Some(&format!("Bearer {}", t.api_key))).await;
    assert_eq!(got.status, 400, "{}", got.body);
    assert_eq!(
        got.body,
        r#"{"code": 400, "message": "invalid literal for int() with base 10: 'abc'", "success": false}"#
    );
    let events = trace(&t, &agent_id).await;
    let names: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(names[names.len() - 2..], ["error", "finished"], "{names:?}");
    assert_eq!(events[events.len() - 2]["error_type"], "ValueError");
    assert_eq!(events[events.len() - 1]["success"], false);
    assert!(
        !events
            .iter()
            .any(|e| e["data"]["component_id"] == "Message:Dump"),
        "the Message after the bad status ran: {names:?}"
    );
}
