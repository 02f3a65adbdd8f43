//! Files a run makes (DocGenerator) and their download: `message_end.downloads` names the
//! document, `GET /agents/attachments/{id}/download` and `/preview` answer its bytes with
//! RAGFlow's headers, and only to the tenant whose run made it.

use reqwest::Method;
use serde_json::{json, Value};

use crate::harness::{tenant, unique, Client};

/// Begin → DocGenerator (Markdown of the query) → Message showing the download record.
fn report_dsl() -> Value {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["DocGenerator:Report"], "upstream": []},
            "DocGenerator:Report": {"obj": {"component_name": "DocGenerator", "params": {
                    "output_format": "markdown", "filename": "weekly report",
                    "content": "# Report\n\n{sys.query}", "add_timestamp": false}},
                "downstream": ["Message:Deliver"], "upstream": ["begin"]},
            "Message:Deliver": {"obj": {"component_name": "Message",
                    "params": {"content": ["Here it is: {DocGenerator:Report@download}"]}},
                "downstream": [], "upstream": ["DocGenerator:Report"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
        "variables": {},
    })
}

async fn raw(client: &Client, path: &str) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let response = client
        .request(Method::GET, path)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (
        status,
        headers,
        response.bytes().await.expect("a body").to_vec(),
    )
}

#[tokio::test]
async fn a_generated_document_downloads_for_its_tenant_only() {
    let t = tenant().await;
    let created = t
        .api
        .post(
            "/agents",
            json!({"title": unique("report"), "dsl": report_dsl()}),
        )
        .await;
    let id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let answer = t
        .api
        .post(
            "/agents/chat/completions",
            json!({"agent_id": id, "query": "Sales grew by 12%."}),
        )
        .await;
    let data = answer.expect(0).clone();
    let downloads = data["data"]["downloads"].clone();
    let download = downloads
        .get(0)
        .unwrap_or_else(|| panic!("a download in {data}"));
    // DocGenerator's own name (RAGFlow keeps the space); the download header sanitises.
    assert_eq!(download["filename"], "weekly report.md", "{download}");
    assert_eq!(download["mime_type"], "text/markdown");
    let doc_id = download["doc_id"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        download["preview_url"],
        format!(
            "/api/v1/agents/attachments/{doc_id}/preview?ext=markdown&mime_type=text%2Fmarkdown"
        )
    );

    let path = format!("/agents/attachments/{doc_id}/download?ext=md&filename=weekly%20report.md");
    let (status, headers, body) = raw(&t.api, &path).await;
    assert_eq!(status, 200);
    let text = String::from_utf8_lossy(&body).to_string();
    assert!(
        text.contains("# Report") && text.contains("Sales grew by 12%."),
        "{text}"
    );
    assert_eq!(download["size"].as_u64(), Some(body.len() as u64));
    assert_eq!(headers["content-type"], "text/markdown");
    assert_eq!(
        headers["content-disposition"],
        "attachment; filename=\"weekly_report.md\""
    );
    // A beta token of the same tenant may download; `disposition=inline` shows it.
    let beta = Client::anonymous().with_auth(&format!("Bearer {}", t.beta));
    let (status, headers, _) = raw(&beta, &format!("{path}&disposition=inline")).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-disposition"],
        "inline; filename=\"weekly_report.md\""
    );
    // The preview of an HTML type is forced to an attachment, as RAGFlow forces it.
    let (status, headers, _) = raw(
        &t.api,
        &format!("/agents/attachments/{doc_id}/preview?mime_type=text/html"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-disposition"], "attachment");
    assert_eq!(headers["x-content-type-options"], "nosniff");

    // Another tenant, an unknown id and a name that is no id all answer as a missing file.
    let other = tenant().await;
    for (client, p) in [
        (&other.api, format!("/agents/attachments/{doc_id}/download")),
        (&other.api, format!("/agents/attachments/{doc_id}/preview")),
        (
            &t.api,
            "/agents/attachments/0123456789abcdef0123456789abcdef/download".to_string(),
        ),
        (
            &t.api,
            "/agents/attachments/..%2F..%2Fetc/download".to_string(),
        ),
    ] {
        let answer = client.get(&p).await;
        assert_eq!(
            answer.body,
            json!({"code": 102, "message": "document not found"}),
            "{p}"
        );
    }
    let anonymous = Client::anonymous().get(&path).await;
    assert_eq!((anonymous.status, anonymous.code()), (401, 401));

    // The test's files live in the default store; leave none behind.
    if std::env::var_os("CANVASC_FILES_DIR").is_none() {
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join("canvasc-files").join(&t.id));
    }
}
