//! A second tenant tries every endpoint on the first tenant's objects: it sees nothing,
//! changes nothing and deletes nothing.

use reqwest::multipart::{Form, Part};
use reqwest::Method;
use serde_json::json;

use canvasc_server::store::RunLog;

use crate::harness::{agent, minimal_dsl, server, session, tenant, unique};

#[tokio::test]
async fn a_second_tenant_cannot_touch_the_first_tenants_objects() {
    let owner = tenant().await;
    let intruder = tenant().await;
    let title = unique("private");
    let agent_id = agent(&owner.api, &title).await;
    owner
        .api
        .put(&format!("/agents/{agent_id}"), json!({"release": true}))
        .await
        .expect(0);
    let session_id = session(&owner.api, &agent_id, "private session").await;
    let versions = owner.api.get(&format!("/agents/{agent_id}/versions")).await;
    let version_id = versions.expect(0)[0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let upload = owner
        .api
        .send(
            owner
                .api
                .request(Method::POST, &format!("/agents/{agent_id}/upload"))
                .multipart(
                    Form::new().part("file", Part::bytes(&b"secret"[..]).file_name("s.txt")),
                ),
        )
        .await;
    let file_id = upload.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    server()
        .store
        .insert_run_log(&RunLog {
            message_id: unique("m"),
            agent_id: agent_id.clone(),
            tenant_id: owner.id.clone(),
            session_id: session_id.clone(),
            program: "compiled".into(),
            trace: "[]".into(),
            create_time: i64::MAX / 2,
        })
        .await
        .expect("the log is stored");

    let me = "Make sure you have permission to access the agent.";
    let x = &intruder.api;
    let a = format!("/agents/{agent_id}");
    let s = format!("{a}/sessions");
    let expectations = [
        (x.get(&a).await, 102, "canvas not found."),
        (
            x.put(&a, json!({"title": "mine", "dsl": minimal_dsl()}))
                .await,
            103,
            me,
        ),
        (
            x.delete(&a).await,
            103,
            "Only the owner of the agent is authorized for this operation.",
        ),
        (x.get(&format!("{a}/versions")).await, 103, me),
        (x.get(&format!("{a}/versions/{version_id}")).await, 103, me),
        (x.post(&s, json!({})).await, 103, me),
        (
            x.post(&format!("{s}?release=true"), json!({})).await,
            103,
            me,
        ),
        (x.get(&s).await, 103, me),
        (x.get(&format!("{s}/{session_id}")).await, 103, me),
        (x.delete(&format!("{s}/{session_id}")).await, 103, me),
        (
            x.delete_with(&s, json!({"ids": [session_id]})).await,
            103,
            me,
        ),
        (
            x.delete_with(&s, json!({"delete_all": true})).await,
            103,
            me,
        ),
        (x.get(&format!("{a}/logs/m")).await, 103, me),
        (
            x.send(
                x.request(Method::POST, &format!("{a}/upload"))
                    .multipart(Form::new().text("file", "x")),
            )
            .await,
            103,
            me,
        ),
        (
            x.get(&format!("/agents/download?id={file_id}")).await,
            102,
            "document not found",
        ),
        (
            x.get(&format!("/agents?owner_ids={}", owner.id)).await,
            103,
            "Only authorized owner_ids can be queried.",
        ),
    ];
    for (n, (answer, code, message)) in expectations.iter().enumerate() {
        assert_eq!(
            (answer.code(), answer.message()),
            (*code, *message),
            "probe {n}: {}",
            answer.body
        );
    }
    let listed = x.get(&format!("/agents?title={title}")).await;
    assert_eq!(listed.expect(0)["total"], 0);
    // Creating the same title is fine: titles are unique per owner.
    agent(x, &title).await;
    // Revoking someone else's key does nothing.
    x.delete(&format!("/system/tokens/{}", owner.api_key))
        .await
        .expect(0);

    // The owner still has everything, unchanged.
    let fetched = owner.api.get(&a).await;
    assert_eq!(fetched.expect(0)["title"], title.as_str());
    assert_eq!(owner.api.get(&s).await.body["total"], 1);
    assert_eq!(
        owner
            .api
            .get(&format!("{a}/versions"))
            .await
            .expect(0)
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let file = owner
        .api
        .request(Method::GET, &format!("/agents/download?id={file_id}"))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(file.bytes().await.ok().as_deref(), Some(&b"secret"[..]));
}
