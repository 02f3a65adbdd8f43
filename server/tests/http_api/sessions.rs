//! Sessions: create (prologue, reset DSL, released versions), list envelope and filters, get,
//! delete one, delete in batch; run logs.

use serde_json::{json, Value};

use canvasc_server::store::RunLog;

use crate::harness::{agent, minimal_dsl, server, session, tenant, unique};

#[tokio::test]
async fn create_starts_from_the_prologue_and_a_reset_dsl() {
    let t = tenant().await;
    let mut dsl = minimal_dsl();
    dsl["components"]["begin"]["obj"]["params"]["prologue"] = json!("Welcome!");
    dsl["path"] = json!(["begin", "message"]);
    dsl["history"] = json!([["user", "old"]]);
    let created = t
        .api
        .post("/agents", json!({"title": unique("sessions"), "dsl": dsl}))
        .await;
    let agent_id = created.expect(0)["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    let answer = t
        .api
        .post(
            &format!("/agents/{agent_id}/sessions"),
            json!({"name": "agent_session_1"}),
        )
        .await;
    assert!(
        answer.body.get("message").is_none(),
        "RAGFlow's result shape: {}",
        answer.body
    );
    let s = answer.expect(0);
    assert_eq!(s["agent_id"], agent_id.as_str());
    assert_eq!(s["name"], "agent_session_1");
    assert_eq!(
        (s["user_id"].as_str(), s["source"].as_str()),
        (Some(t.id.as_str()), Some("agent"))
    );
    assert_eq!(
        s["message"],
        json!([{"role": "assistant", "content": "Welcome!"}])
    );
    assert_eq!(
        (s["dsl"]["path"].clone(), s["dsl"]["history"].clone()),
        (json!([]), json!([]))
    );
    assert!(s["version_title"].as_str().is_some());

    let released = t
        .api
        .post(
            &format!("/agents/{agent_id}/sessions?release=true"),
            json!({}),
        )
        .await;
    released.expect(102);
    assert_eq!(released.message(), "No available published version");
    t.api
        .put(&format!("/agents/{agent_id}"), json!({"release": true}))
        .await
        .expect(0);
    let released = t
        .api
        .post(
            &format!("/agents/{agent_id}/sessions"),
            json!({"release": "true", "user_id": "u1"}),
        )
        .await;
    assert_eq!(released.expect(0)["user_id"], "u1");
}

#[tokio::test]
async fn list_get_and_delete() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("sessions")).await;
    let a = session(&t.api, &agent_id, "alpha").await;
    let b = session(&t.api, &agent_id, "beta").await;
    let c = t
        .api
        .post(
            &format!("/agents/{agent_id}/sessions"),
            json!({"name": "gamma", "user_id": "visitor"}),
        )
        .await;
    let c = c.expect(0)["id"].as_str().unwrap_or_default().to_string();
    let path = format!("/agents/{agent_id}/sessions");

    let list = t.api.get(&path).await;
    list.expect(0);
    assert_eq!(list.body["total"], 3);
    let ids: Vec<&str> = list.body["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, [c.as_str(), b.as_str(), a.as_str()]);
    assert!(list.body["data"][0]["dsl"].is_object());

    let page = t
        .api
        .get(&format!("{path}?page=2&page_size=1&desc=False&dsl=False"))
        .await;
    page.expect(0);
    assert_eq!(
        (
            page.body["total"].as_i64(),
            page.body["data"][0]["id"].as_str()
        ),
        (Some(3), Some(b.as_str()))
    );
    assert!(page.body["data"][0].get("dsl").is_none());
    let by_keyword = t.api.get(&format!("{path}?keywords=ALPH")).await;
    let found = by_keyword.expect(0);
    assert_eq!(
        (found[0]["id"].as_str(), by_keyword.body["total"].as_i64()),
        (Some(a.as_str()), Some(1)),
        "{}",
        by_keyword.body
    );
    let wildcard = t.api.get(&format!("{path}?keywords=%25")).await;
    assert_eq!(
        wildcard.body["total"], 0,
        "LIKE wildcards are matched literally"
    );
    let by_user = t.api.get(&format!("{path}?user_id=visitor")).await;
    assert_eq!(by_user.body["total"], 1);
    let exp = t.api.get(&format!("{path}?exp_user_id=visitor")).await;
    assert_eq!(exp.expect(0), &json!([{"id": c, "name": "gamma"}]));
    let future = t.api.get(&format!("{path}?from_date=2999-01-01")).await;
    assert_eq!(future.body["total"], 0);
    let past = t
        .api
        .get(&format!(
            "{path}?to_date=2999-01-01&from_date=2000-01-01T00:00:00Z"
        ))
        .await;
    assert_eq!(past.body["total"], 3);
    let bad_date = t.api.get(&format!("{path}?from_date=yesterday")).await;
    bad_date.expect(101);

    let one = t.api.get(&format!("{path}/{a}")).await;
    let one = one.expect(0);
    assert_eq!(
        (one["id"].as_str(), one["dialog_id"].as_str()),
        (Some(a.as_str()), Some(agent_id.as_str()))
    );
    let unknown = t.api.get(&format!("{path}/nope")).await;
    assert_eq!(
        unknown.body,
        json!({"code": 102, "message": "Session not found!"})
    );

    t.api.delete(&format!("{path}/{a}")).await.expect(0);
    t.api.delete(&format!("{path}/{a}")).await.expect(102);
}

#[tokio::test]
async fn batch_delete_reports_partial_failures() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("batch")).await;
    let path = format!("/agents/{agent_id}/sessions");
    let a = session(&t.api, &agent_id, "a").await;
    let b = session(&t.api, &agent_id, "b").await;
    let c = session(&t.api, &agent_id, "c").await;

    assert_eq!(
        t.api.delete_with(&path, json!({})).await.body,
        json!({"code": 0})
    );
    assert_eq!(
        t.api.delete_with(&path, json!({"ids": [a]})).await.body,
        json!({"code": 0})
    );
    let partial = t
        .api
        .delete_with(&path, json!({"ids": [b, b, "ghost"]}))
        .await;
    assert_eq!(
        partial.body,
        json!({"code": 0, "message": "Partially deleted 1 sessions with 2 errors",
               "data": {"success_count": 1, "errors": [format!("Duplicate session ids: {b}"),
                                                       "The agent doesn't own the session ghost"]}})
    );
    let none = t.api.delete_with(&path, json!({"ids": ["ghost"]})).await;
    assert_eq!(
        none.body,
        json!({"code": 102, "message": "The agent doesn't own the session ghost"})
    );
    let wrong = t.api.delete_with(&path, json!({"ids": "ghost"})).await;
    wrong.expect(101);
    let by_query = t.api.delete(&format!("{path}?ids={c}")).await;
    assert_eq!(by_query.body, json!({"code": 0}));
    session(&t.api, &agent_id, "d").await;
    t.api
        .delete_with(&path, json!({"ids": null, "delete_all": true}))
        .await
        .expect(0);
    assert_eq!(t.api.get(&path).await.body["total"], 0);
}

#[tokio::test]
async fn run_logs_show_a_recorded_trace_and_its_program() {
    let t = tenant().await;
    let agent_id = agent(&t.api, &unique("logs")).await;
    let session_id = session(&t.api, &agent_id, "s").await;
    let unknown = t.api.get(&format!("/agents/{agent_id}/logs/nope")).await;
    assert_eq!(unknown.expect(0), &json!({}));

    let trace = json!([{"component_id": "message", "trace": [{"elapsed_time": 0.1}]}]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default();
    server()
        .store
        .insert_run_log(&RunLog {
            message_id: "m1".into(),
            agent_id: agent_id.clone(),
            tenant_id: t.id.clone(),
            session_id: session_id.clone(),
            program: "interpreted".into(),
            trace: trace.to_string(),
            create_time: now,
        })
        .await
        .expect("the log is stored");
    let found = t.api.get(&format!("/agents/{agent_id}/logs/m1")).await;
    assert_eq!(found.expect(0), &trace);
    assert_eq!(found.body["program"], "interpreted");

    let state = json!({"message": [{"role": "assistant", "content": "hi"},
                                   {"role": "user", "content": "q", "prompt": "internal"},
                                   {"role": "assistant", "content": "a"}],
                       "reference": [{"chunks": [{"chunk_id": "c1", "content": "x"}]}],
                       "dsl": minimal_dsl(), "round": 1});
    server()
        .store
        .save_session_state(&session_id, &state, now + 1)
        .await
        .expect("the state is saved");
    let listed = t
        .api
        .get(&format!("/agents/{agent_id}/sessions/{session_id}"))
        .await;
    let listed = listed.expect(0);
    assert_eq!(listed["round"], 1);
    assert!(listed["message"][1].get("prompt").is_none());
    assert_eq!(listed["message"][2]["reference"][0]["id"], "c1");
    assert_eq!(listed["message"][0].get("reference"), None::<&Value>);
}
