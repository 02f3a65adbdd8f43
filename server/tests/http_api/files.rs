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
