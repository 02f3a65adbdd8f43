//! Route matching before authentication, the 401/404/405 envelopes, and request bodies that
//! are too large, malformed or of the wrong type.

use reqwest::Method;
use serde_json::json;

use crate::harness::{minimal_dsl, server, tenant, unique, Client};

#[tokio::test]
async fn unknown_routes_answer_404_before_authentication() {
    let anonymous = Client::anonymous();
    let answer = anonymous.get("/no/such/route").await;
    assert_eq!(answer.status, 404);
    insta::assert_json_snapshot!("not_found", answer.body);
    let answer = anonymous.get("/agents/x/unknown").await;
    assert_eq!(answer.status, 404, "{}", answer.body);
}

#[tokio::test]
async fn credentials_are_checked_on_every_known_route() {
    let anonymous = Client::anonymous();
    let answer = anonymous.get("/agents").await;
    assert_eq!(answer.status, 401);
    insta::assert_json_snapshot!("unauthorized", answer.body);
    for auth in ["Bearer nonsense", "nonsense", "Bearer ", ""] {
        let answer = anonymous.with_auth(auth).get("/agents").await;
        assert_eq!((answer.status, answer.code()), (401, 401), "{auth:?}");
    }
    for (method, path) in [
        (Method::POST, "/agents"),
        (Method::GET, "/agents/abc"),
        (Method::PUT, "/agents/abc"),
        (Method::DELETE, "/agents/abc"),
        (Method::GET, "/agents/abc/versions"),
        (Method::GET, "/agents/abc/versions/def"),
        (Method::POST, "/agents/abc/sessions"),
        (Method::GET, "/agents/abc/sessions"),
        (Method::DELETE, "/agents/abc/sessions"),
        (Method::GET, "/agents/abc/sessions/def"),
        (Method::DELETE, "/agents/abc/sessions/def"),
        (Method::POST, "/agents/abc/upload"),
        (Method::GET, "/agents/download?id=x"),
        (Method::GET, "/agents/abc/logs/def"),
        (Method::GET, "/system/tokens"),
        (Method::POST, "/system/tokens"),
        (Method::DELETE, "/system/tokens/x"),
        (Method::GET, "/models"),
        (Method::PATCH, "/models/default"),
    ] {
        let answer = anonymous.call(method.clone(), path, None).await;
        assert_eq!(
            (answer.status, answer.code()),
            (401, 401),
            "{method} {path}"
        );
    }
}

#[tokio::test]
async fn a_known_path_with_another_method_is_code_100() {
    let t = tenant().await;
    let answer = t.api.call(Method::PATCH, "/agents", None).await;
    assert_eq!(answer.status, 200);
    insta::assert_json_snapshot!("method_not_allowed", answer.body);
}

#[tokio::test]
async fn a_trailing_slash_is_ignored() {
    let t = tenant().await;
    let answer = t.api.get("/agents/").await;
    answer.expect(0);
    let ping = reqwest::get(format!("{}/api/v1/system/ping", server().base)).await;
    let ping = ping.expect("ping answers");
    assert_eq!(ping.text().await.ok().as_deref(), Some("pong"));
}

#[tokio::test]
async fn bodies_that_are_not_json_objects_get_envelopes() {
    let t = tenant().await;
    let raw = |body: &'static str| {
        t.api
            .request(Method::POST, "/agents")
            .header("Content-Type", "application/json")
            .body(body)
    };
    let malformed = t.api.send(raw("{\"title\": ")).await;
    malformed.expect(101);
    assert!(
        malformed.message().contains("not valid JSON"),
        "{}",
        malformed.body
    );
    let list = t.api.send(raw("[1, 2]")).await;
    list.expect(101);
    assert_eq!(list.message(), "The request body must be a JSON object.");
    let wrong_type = t
        .api
        .post("/agents", json!({"title": 5, "dsl": minimal_dsl()}))
        .await;
    wrong_type.expect(101);
    assert_eq!(
        wrong_type.message(),
        "`title` must be a string, not a number."
    );
    let big = "x".repeat(70 * 1024);
    let too_large = t
        .api
        .post("/agents", json!({"title": "big", "dsl": {"note": big}}))
        .await;
    too_large.expect(100);
    assert!(too_large.message().contains("413"), "{}", too_large.body);
}

#[tokio::test]
async fn form_encoded_bodies_are_read_as_strings() {
    let t = tenant().await;
    let title = unique("form");
    let dsl = minimal_dsl().to_string();
    let form = serde_urlencoded::to_string([("title", title.as_str()), ("dsl", dsl.as_str())])
        .expect("a form");
    let request = t
        .api
        .request(Method::POST, "/agents")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form);
    let created = t.api.send(request).await;
    assert_eq!(created.expect(0)["title"], title.as_str());
}
