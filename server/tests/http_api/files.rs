//! Uploads for run inputs and their download.

use reqwest::multipart::{Form, Part};
use reqwest::Method;

use crate::harness::{agent, tenant, unique, Client};

fn form(files: &[(&str, &'static [u8])]) -> Form {
    files.iter().fold(Form::new(), |form, (name, bytes)| {
        let part = Part::bytes(*bytes)
            .file_name(name.to_string())
            .mime_str("text/plain")
            .expect("a mime type");
        form.part("file", part)
    })
}

#[tokio::test]
async fn upload_one_or_several_and_download() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("files")).await;
    let path = format!("/agents/{agent_id}/upload");

    let one = t
        .api
        .send(
            t.api
                .request(Method::POST, &path)
                .multipart(form(&[("notes.TXT", b"hello")])),
        )
        .await;
    let one = one.expect(0).clone();
    assert_eq!(
        (one["name"].as_str(), one["size"].as_i64()),
        (Some("notes.TXT"), Some(5))
    );
    assert_eq!(
        (one["extension"].as_str(), one["mime_type"].as_str()),
        (Some("txt"), Some("text/plain"))
    );
    assert_eq!(one["created_by"], t.id.as_str());
    assert!(one["created_at"].is_f64());

    let beta = Client::anonymous().with_auth(&format!("Bearer {}", t.beta));
    let two = beta
        .send(
            beta.request(Method::POST, &path)
                .multipart(form(&[("a.md", b"# a"), ("b.csv", b"1,2")])),
        )
        .await;
    assert_eq!(two.expect(0).as_array().map(Vec::len), Some(2));
    assert_eq!(
        beta.get("/agents").await.status,
        401,
        "a beta token is for beta routes only"
    );

    let none = t
        .api
        .send(
            t.api
                .request(Method::POST, &path)
                .multipart(Form::new().text("other", "x")),
        )
        .await;
    none.expect(101);
    let not_multipart = t.api.post(&path, serde_json::json!({})).await;
    not_multipart.expect(101);

    let id = one["id"].as_str().unwrap_or_default();
    let download = t
        .api
        .request(Method::GET, &format!("/agents/download?id={id}"))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(download.headers()["content-type"], "text/plain");
    assert_eq!(download.bytes().await.ok().as_deref(), Some(&b"hello"[..]));
    let unknown = t.api.get("/agents/download?id=nope").await;
    unknown.expect(102);
    assert_eq!(unknown.message(), "document not found");
    t.api.get("/agents/download").await.expect(101);
}

/// Uploads one text file; its descriptor.
async fn upload(client: &Client, agent_id: &str, name: &str) -> serde_json::Value {
    let answer = client
        .send(
            client
                .request(Method::POST, &format!("/agents/{agent_id}/upload"))
                .multipart(form(&[(name, b"some text")])),
        )
        .await;
    answer.expect(0).clone()
}

/// Whether the tenant's upload `id` can still be downloaded (102 `document not found` once
/// it is deleted).
async fn downloadable(client: &Client, id: &serde_json::Value) -> bool {
    let id = id["id"].as_str().expect("an upload id");
    let response = client
        .request(Method::GET, &format!("/agents/download?id={id}"))
        .send()
        .await
        .expect("the server answers");
    if response.headers()["content-type"] == "application/json" {
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert_eq!(body["code"], 102, "{body}");
        assert_eq!(body["message"], "document not found");
        return false;
    }
    true
}

/// Runs the agent with `files` in a new session; the session's id.
async fn run_with(client: &Client, agent_id: &str, files: &[&serde_json::Value]) -> String {
    let answer = client
        .post(
            "/agents/chat/completions",
            serde_json::json!({"agent_id": agent_id, "query": "read this", "files": files}),
        )
        .await;
    answer.expect(0)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string()
}

#[tokio::test]
async fn uploads_go_with_the_session_that_ran_with_them_and_with_their_agent() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("uploads")).await;
    let first = upload(&t.api, &agent_id, "first.txt").await;
    let second = upload(&t.api, &agent_id, "second.txt").await;
    let unused = upload(&t.api, &agent_id, "unused.txt").await;
    let one = run_with(&t.api, &agent_id, &[&first]).await;
    let two = run_with(&t.api, &agent_id, &[&second]).await;
    // A later session using an upload does not take it from the first one.
    let three = run_with(&t.api, &agent_id, &[&first]).await;
    assert!(downloadable(&t.api, &first).await);

    t.api
        .delete(&format!("/agents/{agent_id}/sessions/{one}"))
        .await
        .expect(0);
    assert!(!downloadable(&t.api, &first).await);
    assert!(downloadable(&t.api, &second).await);
    assert!(downloadable(&t.api, &unused).await);
    // The batch delete by ids, and `delete_all`, take their sessions' uploads too.
    t.api
        .delete_with(
            &format!("/agents/{agent_id}/sessions"),
            serde_json::json!({"ids": [two]}),
        )
        .await
        .expect(0);
    assert!(!downloadable(&t.api, &second).await);
    let fourth = upload(&t.api, &agent_id, "fourth.txt").await;
    run_with(&t.api, &agent_id, &[&fourth]).await;
    t.api
        .delete_with(
            &format!("/agents/{agent_id}/sessions"),
            serde_json::json!({"delete_all": true}),
        )
        .await
        .expect(0);
    assert!(!downloadable(&t.api, &fourth).await);
    assert!(
        downloadable(&t.api, &unused).await,
        "session {three} is gone, not the agent"
    );

    // An upload of one agent used by another agent's session goes with that session's agent;
    // an agent takes the uploads made to it.
    let other = agent(&t.api, &unique("uploads")).await;
    let lent = upload(&t.api, &agent_id, "lent.txt").await;
    run_with(&t.api, &other, &[&lent]).await;
    t.api.delete(&format!("/agents/{other}")).await.expect(0);
    assert!(!downloadable(&t.api, &lent).await);
    t.api.delete(&format!("/agents/{agent_id}")).await.expect(0);
    assert!(!downloadable(&t.api, &unused).await);
}

#[tokio::test]
async fn an_upload_no_run_used_expires() {
    let base = crate::harness::extra_server(|config| {
        config.registration = canvasc_server::Registration::Open;
        config.upload_ttl = std::time::Duration::from_secs(1);
    })
    .await;
    let http = reqwest::Client::new();
    let url = |path: &str| format!("{base}/api/v1{path}");
    let email = format!("{}@example.com", unique("expiry"));
    let password = "c2VjcmV0IHBhc3N3b3Jk";
    let body = serde_json::json!({"email": email, "nickname": "e", "password": password});
    let send = |request: reqwest::RequestBuilder| async move {
        let response = request.send().await.expect("the server answers");
        let headers = response.headers().clone();
        let body: serde_json::Value = response.json().await.expect("JSON");
        (headers, body)
    };
    let (_, created) = send(http.post(url("/users")).json(&body)).await;
    assert_eq!(created["code"], 0, "{created}");
    let (headers, logged_in) = send(http.post(url("/auth/login")).json(&body)).await;
    assert_eq!(logged_in["code"], 0, "{logged_in}");
    let token = headers["authorization"]
        .to_str()
        .expect("a token")
        .to_string();
    let (_, agent) = send(
        http.post(url("/agents"))
            .header("Authorization", &token)
            .json(&serde_json::json!({"title": "expiry", "dsl": crate::harness::minimal_dsl()})),
    )
    .await;
    let agent_id = agent["data"]["id"]
        .as_str()
        .expect("an agent id")
        .to_string();
    let upload = |name: &'static str| {
        let request = http
            .post(url(&format!("/agents/{agent_id}/upload")))
            .header("Authorization", &token)
            .multipart(form(&[(name, b"some text")]));
        async move {
            send(request).await.1["data"]["id"]
                .as_str()
                .expect("an id")
                .to_string()
        }
    };
    let unused = upload("unused.txt").await;
    let used = upload("used.txt").await;
    let (_, ran) = send(
        http.post(url("/agents/chat/completions"))
            .header("Authorization", &token)
            .json(
                &serde_json::json!({"agent_id": agent_id, "query": "q", "files": [{"id": used}]}),
            ),
    )
    .await;
    assert_eq!(ran["code"], 0, "{ran}");
    let exists = |id: String| {
        let request = http
            .get(url(&format!("/agents/download?id={id}")))
            .header("Authorization", &token);
        async move {
            let response = request.send().await.expect("the server answers");
            response.headers()["content-type"] != "application/json"
        }
    };
    assert!(exists(unused.clone()).await);
    // The lifetime (1 s) and a sweep a second apart: gone within 3 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while exists(unused.clone()).await {
        assert!(
            std::time::Instant::now() < deadline,
            "the unused upload outlived its lifetime"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(exists(used).await, "an upload a session used stays");
}
