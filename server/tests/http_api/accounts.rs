//! Registration, login, API keys and the model endpoints of `http-api.md` §14.

use serde_json::json;

use crate::harness::{tenant, Client};

#[tokio::test]
async fn registering_twice_and_bad_logins_are_refused() {
    let t = tenant().await;
    let anonymous = Client::anonymous();
    let again = anonymous
        .post(
            "/users",
            json!({"email": t.email, "nickname": "x", "password": "cA=="}),
        )
        .await;
    again.expect(103);
    assert_eq!(
        again.message(),
        format!("Email: {} has already registered!", t.email)
    );
    let missing = anonymous.post("/users", json!({"email": "a@b.c"})).await;
    missing.expect(101);
    assert_eq!(
        missing.message(),
        "required argument are missing: nickname,password; "
    );
    let wrong = anonymous
        .post(
            "/auth/login",
            json!({"email": t.email, "password": "d3Jvbmc="}),
        )
        .await;
    wrong.expect(109);
    assert_eq!(wrong.message(), "Email and password do not match!");
    let unknown = anonymous
        .post(
            "/auth/login",
            json!({"email": "nobody@example.com", "password": "cA=="}),
        )
        .await;
    unknown.expect(109);
    assert_eq!(
        unknown.message(),
        "Email: nobody@example.com is not registered!"
    );
}

#[tokio::test]
async fn login_tokens_and_keys_work_raw_and_bearer_and_revoke() {
    let t = tenant().await;
    t.login.get("/agents").await.expect(0);
    t.api.get("/agents").await.expect(0);
    Client::anonymous()
        .with_auth(&t.api_key)
        .get("/agents")
        .await
        .expect(0);
    Client::anonymous()
        .with_auth(&format!("bEaReR {}", t.api_key))
        .get("/agents")
        .await
        .expect(0);

    let keys = t.login.get("/system/tokens").await;
    let keys = keys.expect(0).as_array().cloned().unwrap_or_default();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["tenant_id"], t.id.as_str());
    let shown = keys[0]["token"].as_str().unwrap_or_default();
    assert!(shown.ends_with('…') && t.api_key.starts_with(shown.trim_end_matches('…')));
    assert_ne!(shown, t.api_key, "a listed key is a hint, never the key");

    t.login
        .delete(&format!("/system/tokens/{}", t.api_key))
        .await
        .expect(0);
    assert_eq!(t.api.get("/agents").await.status, 401);
    assert!(t
        .login
        .get("/system/tokens")
        .await
        .expect(0)
        .as_array()
        .is_some_and(Vec::is_empty));
}

/// The shared server's model is a script (it answers every llm_id): the configuration lists
/// no model, and the model endpoints still answer RAGFlow's JSON (the test set-up needs JSON).
/// What a configuration lists is `models.rs`.
#[tokio::test]
async fn models_of_a_scripted_server_list_none_and_answer_json() {
    let t = tenant().await;
    let models = t.api.get("/models").await;
    assert_eq!(models.expect(0), &json!([]));
    let default = t
        .api
        .call(
            reqwest::Method::PATCH,
            "/models/default",
            Some(json!({"llm_id": "x"})),
        )
        .await;
    assert_eq!(
        default.body,
        json!({"code": 101, "message": "model_type is required"})
    );
}
