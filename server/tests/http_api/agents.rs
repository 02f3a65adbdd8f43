//! Agents and versions: RAGFlow's validation order, messages and list envelopes; versions
//! saved per DSL save; publishing refused for a DSL with checker errors.

use serde_json::{json, Value};

use crate::harness::{agent, broken_dsl, minimal_dsl, tenant, unique};

#[tokio::test]
async fn create_validates_in_ragflows_order() {
    let t = tenant().await;
    let no_dsl = t.api.post("/agents", json!({"title": "x"})).await;
    no_dsl.expect(101);
    assert_eq!(
        no_dsl.body,
        json!({"code": 101, "message": "No DSL data in request.", "data": false})
    );
    let null_dsl = t
        .api
        .post("/agents", json!({"title": "x", "dsl": null}))
        .await;
    assert_eq!(null_dsl.message(), "No DSL data in request.");
    let bad_text = t.api.post("/agents", json!({"dsl": "{nope"})).await;
    bad_text.expect(101);
    assert_eq!(bad_text.message(), "Invalid DSL JSON string.");
    let not_object = t.api.post("/agents", json!({"dsl": [1]})).await;
    assert_eq!(not_object.message(), "DSL must be a JSON object.");
    let no_title = t.api.post("/agents", json!({"dsl": minimal_dsl()})).await;
    no_title.expect(101);
    assert_eq!(no_title.message(), "No title in request.");

    let title = unique("crud");
    let as_text = t
        .api
        .post(
            "/agents",
            json!({"title": format!("  {title}  "), "dsl": minimal_dsl().to_string()}),
        )
        .await;
    let created = as_text.expect(0);
    assert_eq!(created["title"], title.as_str());
    assert_eq!(created["dsl"], minimal_dsl());
    assert_eq!(created["user_id"], t.id.as_str());
    assert_eq!(created["permission"], "me");
    assert_eq!(created["canvas_category"], "agent_canvas");
    assert_eq!(created["nickname"], "qa");
    assert!(created["create_date"]
        .as_str()
        .is_some_and(|d| d.ends_with(" GMT")));

    let duplicate = t
        .api
        .post(
            "/agents",
            json!({"title": title.to_uppercase(), "dsl": minimal_dsl()}),
        )
        .await;
    duplicate.expect(102);
    assert_eq!(
        duplicate.body,
        json!({"code": 102, "message": format!("{} already exists.", title.to_uppercase())})
    );
}

#[tokio::test]
async fn get_update_and_delete() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("crud")).await;
    let other = unique("other");
    agent(&t.api, &other).await;

    let fetched = t.api.get(&format!("/agents/{id}")).await;
    let fetched = fetched.expect(0);
    assert_eq!(fetched["id"], id.as_str());
    assert_eq!(fetched["last_publish_time"], Value::Null);
    let missing = t.api.get("/agents/invalid-agent-id").await;
    assert_eq!(
        missing.body,
        json!({"code": 102, "message": "canvas not found."})
    );

    let invalid = t
        .api
        .put(
            "/agents/invalid-agent-id",
            json!({"title": "u", "dsl": minimal_dsl()}),
        )
        .await;
    invalid.expect(103);
    assert_eq!(
        invalid.message(),
        "Make sure you have permission to access the agent."
    );
    let collision = t
        .api
        .put(&format!("/agents/{id}"), json!({"title": other}))
        .await;
    collision.expect(102);
    assert_eq!(collision.message(), format!("{other} already exists."));
    let renamed = unique("renamed");
    let updated = t
        .api
        .put(
            &format!("/agents/{id}"),
            json!({"title": renamed, "description": "d", "avatar": null}),
        )
        .await;
    assert!(updated.expect(0)["update_time"].is_i64());
    let fetched = t.api.get(&format!("/agents/{id}")).await;
    let fetched = fetched.expect(0);
    assert_eq!(
        (fetched["title"].as_str(), fetched["description"].as_str()),
        (Some(renamed.as_str()), Some("d"))
    );
    assert_eq!(
        fetched["dsl"],
        minimal_dsl(),
        "an update without dsl keeps it"
    );

    let invalid_delete = t.api.delete("/agents/invalid-agent-id").await;
    assert_eq!(
        invalid_delete.body,
        json!({"code": 103, "message": "Only the owner of the agent is authorized for this operation.", "data": false})
    );
    let deleted = t.api.delete_with(&format!("/agents/{id}"), json!({})).await;
    assert_eq!(deleted.expect(0), &Value::Bool(true));
    t.api.get(&format!("/agents/{id}")).await.expect(102);
}

#[tokio::test]
async fn list_pages_filters_and_orders() {
    let t = tenant().await;
    let prefix = unique("list");
    let mut ids = Vec::new();
    for n in 0..3 {
        ids.push(agent(&t.api, &format!("{prefix}_{n}")).await);
    }
    let list = t.api.get("/agents").await;
    let data = list.expect(0);
    assert_eq!(data["total"], 3);
    let first = &data["canvas"][0];
    assert_eq!(first["id"], ids[2].as_str(), "newest first by default");
    assert!(first.get("dsl").is_none());
    assert_eq!(
        (first["type"].as_str(), first["release_time"].is_null()),
        (Some("agent"), true)
    );

    let page = t
        .api
        .get("/agents?page=2&page_size=2&desc=False&orderby=create_time")
        .await;
    let data = page.expect(0);
    assert_eq!(data["total"], 3);
    assert_eq!(data["canvas"].as_array().map(Vec::len), Some(1));
    assert_eq!(data["canvas"][0]["id"], ids[2].as_str());
    let fallback = t.api.get("/agents?page=zero&page_size=-4").await;
    assert_eq!(
        fallback.expect(0)["canvas"].as_array().map(Vec::len),
        Some(3)
    );
    let too_big = t.api.get("/agents?page_size=101").await;
    too_big.expect(100);
    assert!(too_big
        .message()
        .contains("page_size must be less than or equal to 100"));

    let by_title = t.api.get(&format!("/agents?title={prefix}_1")).await;
    assert_eq!(by_title.expect(0)["canvas"][0]["id"], ids[1].as_str());
    let missing = t.api.get("/agents?title=missing_restful_agent").await;
    assert_eq!(missing.expect(0)["total"], 0);
    let keywords = t
        .api
        .get(&format!("/agents?keywords={}", prefix.to_uppercase()))
        .await;
    assert_eq!(keywords.expect(0)["total"], 3);
    let filter = t.api.get("/agents?type=filter").await;
    let filter = filter.expect(0);
    assert_eq!(filter["filter"]["owner"][0]["count"], 3);
    assert_eq!(filter["filter"]["canvas_category"][0]["id"], "agent_canvas");
    let foreign = t.api.get("/agents?owner_ids=someone_else").await;
    foreign.expect(103);
    assert_eq!(
        foreign.message(),
        "Only authorized owner_ids can be queried."
    );
    t.api
        .get(&format!("/agents?owner_ids={}", t.id))
        .await
        .expect(0);
}

#[tokio::test]
async fn saves_make_versions_and_publishing_never_overwrites_a_release() {
    let t = tenant().await;
    let title = unique("versions");
    let id = agent(&t.api, &title).await;
    let versions = |body: &Value| body.as_array().cloned().unwrap_or_default();

    let listed = t.api.get(&format!("/agents/{id}/versions")).await;
    let first = versions(listed.expect(0));
    assert_eq!(first.len(), 1);
    assert!(first[0]["title"]
        .as_str()
        .is_some_and(|t| t.starts_with(&format!("qa_{title}_"))));
    assert_eq!(
        (
            first[0]["user_canvas_id"].as_str(),
            first[0]["release"].as_bool()
        ),
        (Some(id.as_str()), Some(false))
    );

    // The same DSL again refreshes the newest version; releasing it marks it released.
    t.api
        .put(&format!("/agents/{id}"), json!({"dsl": minimal_dsl()}))
        .await
        .expect(0);
    t.api
        .put(
            &format!("/agents/{id}"),
            json!({"dsl": minimal_dsl(), "release": true}),
        )
        .await
        .expect(0);
    let listed = versions(t.api.get(&format!("/agents/{id}/versions")).await.expect(0));
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["release"], true);
    let released_id = listed[0]["id"].as_str().unwrap_or_default().to_string();

    // An unreleased save of the same DSL adds a version beside the release.
    t.api
        .put(&format!("/agents/{id}"), json!({"dsl": minimal_dsl()}))
        .await
        .expect(0);
    let listed = versions(t.api.get(&format!("/agents/{id}/versions")).await.expect(0));
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["release"], false);
    assert_eq!(
        (listed[1]["id"].as_str(), listed[1]["release"].as_bool()),
        (Some(released_id.as_str()), Some(true))
    );

    let one = t
        .api
        .get(&format!("/agents/{id}/versions/{released_id}"))
        .await;
    let one = one.expect(0);
    assert_eq!(one["dsl"], minimal_dsl());
    assert_eq!(one["release"], true);
    let fetched = t.api.get(&format!("/agents/{id}")).await;
    assert!(fetched.expect(0)["last_publish_time"].is_i64());
    let listed = t.api.get(&format!("/agents?id={id}")).await;
    assert!(listed.expect(0)["canvas"][0]["release_time"].is_i64());
    let unknown = t.api.get(&format!("/agents/{id}/versions/nope")).await;
    assert_eq!(
        unknown.body,
        json!({"code": 102, "message": "Version not found."})
    );
}

#[tokio::test]
async fn drafts_with_errors_save_with_warnings_but_do_not_publish() {
    let t = tenant().await;
    let title = unique("broken");
    let draft = t
        .api
        .post("/agents", json!({"title": title, "dsl": broken_dsl()}))
        .await;
    let id = draft.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let warnings = draft.body["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        warnings.iter().any(|w| w["severity"] == "error"),
        "{}",
        draft.body
    );
    let clean = t
        .api
        .post(
            "/agents",
            json!({"title": unique("clean"), "dsl": minimal_dsl()}),
        )
        .await;
    assert!(clean.body.get("warnings").is_none(), "{}", clean.body);

    let publish = t
        .api
        .put(&format!("/agents/{id}"), json!({"release": true}))
        .await;
    publish.expect(101);
    assert!(
        publish
            .message()
            .starts_with("The DSL has errors and cannot be published: ["),
        "{}",
        publish.body
    );
    let listed = t.api.get(&format!("/agents/{id}/versions")).await;
    assert!(listed
        .expect(0)
        .as_array()
        .into_iter()
        .flatten()
        .all(|v| v["release"] == false));
    let refused = t
        .api
        .post(
            "/agents",
            json!({"title": unique("broken"), "dsl": broken_dsl(), "release": true}),
        )
        .await;
    refused.expect(101);
}

/// The DSL of RAGFlow's tests with the Message saying `text` (one version per text).
fn saying(text: &str) -> Value {
    let mut dsl = minimal_dsl();
    dsl["components"]["message"]["obj"]["params"]["content"] = json!([text]);
    dsl
}

#[tokio::test]
async fn publish_pins_and_deletes_versions_but_never_the_one_released_runs_use() {
    let t = tenant().await;
    let id = agent(&t.api, &unique("pins")).await;
    // Publishing the agent's DSL, then a new one given to publish: each a released version.
    let first = t
        .api
        .post(&format!("/agents/{id}/publish"), json!({}))
        .await;
    let first = first.expect(0).clone();
    assert_eq!(
        (first["release"].clone(), first["dsl"].clone()),
        (json!(true), minimal_dsl())
    );
    let second = t
        .api
        .post(
            &format!("/agents/{id}/publish"),
            json!({"dsl": saying("second"), "description": "the second"}),
        )
        .await;
    let second = second.expect(0).clone();
    assert_eq!(second["release"], true);
    assert_eq!(second["description"], "the second");
    let agent_now = t.api.get(&format!("/agents/{id}")).await;
    assert_eq!(
        agent_now.expect(0)["dsl"],
        saying("second"),
        "publish updates the agent"
    );
    let (first_id, second_id) = (
        first["id"].as_str().unwrap_or_default().to_string(),
        second["id"].as_str().unwrap_or_default().to_string(),
    );

    // A run may name a released version; without one, `release` runs the newest.
    let run = |body: Value| {
        let api = t.api.clone();
        async move { api.post("/agents/chat/completions", body).await }
    };
    let pinned = run(json!({"agent_id": id, "query": "q", "version_id": first_id})).await;
    assert_eq!(
        pinned.expect(0)["data"]["content"],
        "q",
        "{:?}",
        pinned.body
    );
    let newest = run(json!({"agent_id": id, "query": "q", "release": true})).await;
    assert_eq!(
        newest.expect(0)["data"]["content"],
        "second",
        "{:?}",
        newest.body
    );
    let draft_id = {
        t.api
            .put(&format!("/agents/{id}"), json!({"dsl": saying("draft")}))
            .await
            .expect(0);
        let listed = t.api.get(&format!("/agents/{id}/versions")).await;
        listed.expect(0)[0]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let unreleased = run(json!({"agent_id": id, "query": "q", "version_id": draft_id})).await;
    assert_eq!(unreleased.code(), 102);
    assert!(
        unreleased.message().contains("is not released"),
        "{}",
        unreleased.message()
    );
    let unknown = run(json!({"agent_id": id, "query": "q", "version_id": "nope"})).await;
    assert_eq!(
        (unknown.code(), unknown.message()),
        (102, "Version not found.")
    );

    // The newest release is what released runs start from: it stays until another replaces it.
    let refused = t
        .api
        .delete(&format!("/agents/{id}/versions/{second_id}"))
        .await;
    assert_eq!(refused.code(), 103, "{:?}", refused.body);
    let deleted = t
        .api
        .delete(&format!("/agents/{id}/versions/{first_id}"))
        .await;
    assert_eq!(deleted.expect(0), &json!(true));
    let gone = t
        .api
        .get(&format!("/agents/{id}/versions/{first_id}"))
        .await;
    assert_eq!(gone.message(), "Version not found.");
    let again = t
        .api
        .delete(&format!("/agents/{id}/versions/{first_id}"))
        .await;
    assert_eq!((again.code(), again.message()), (102, "Version not found."));
}
