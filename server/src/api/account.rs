//! Accounts and API keys (`http-api.md` §14): register, log in, create/list/revoke keys.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::add_times;
use crate::auth::{hash_password, hash_token, hint, password_matches, secret, Tenant};
use crate::clock::{http_date, new_id, now_ms};
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::{string, Body};
use crate::shared::Shared;
use crate::store::{ApiKey, User};

fn user_json(user: &User) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), user.id.clone().into());
    object.insert("email".into(), user.email.clone().into());
    object.insert("nickname".into(), user.nickname.clone().into());
    object.insert("avatar".into(), Value::Null);
    object.insert("is_superuser".into(), false.into());
    object.insert("status".into(), "1".into());
    add_times(&mut object, user.create_time, user.update_time);
    Value::Object(object)
}

/// The named string fields of `body`, or RAGFlow's "required argument are missing" error.
fn required<const N: usize>(
    body: &Map<String, Value>,
    keys: [&str; N],
) -> Result<[String; N], ApiError> {
    let mut values = Vec::with_capacity(N);
    let mut missing = Vec::new();
    for key in keys {
        match string(body, key)? {
            Some(value) if !value.is_empty() => values.push(value),
            _ => missing.push(key),
        }
    }
    values.try_into().map_err(|_| {
        ApiError::argument(format!(
            "required argument are missing: {}; ",
            missing.join(",")
        ))
    })
}

/// Password hashing is deliberately slow: off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::exception(format!("password check failed: {e}")))
}

/// `POST /api/v1/users` (no credentials).
pub(crate) async fn register(State(app): State<Shared>, body: Body) -> Answer {
    let [email, nickname, password] = required(&body.0, ["email", "nickname", "password"])?;
    let email = email.trim().to_string();
    if !email.contains('@') || email.contains(char::is_whitespace) {
        return Err(ApiError::argument(format!(
            "Invalid email address: {email}!"
        )));
    }
    let password_hash = blocking(move || hash_password(&password)).await??;
    let now = now_ms();
    let user = User {
        id: new_id(),
        email: email.to_lowercase(),
        nickname,
        password_hash,
        create_time: now,
        update_time: now,
    };
    if !app.store.insert_user(&user).await? {
        return Err(ApiError::operating(format!(
            "Email: {email} has already registered!"
        )));
    }
    Ok(Reply::success(user_json(&user)))
}

/// `POST /api/v1/auth/login` (no credentials): the login token comes back in the
/// `Authorization` response header.
pub(crate) async fn login(State(app): State<Shared>, body: Body) -> Result<Response, ApiError> {
    let [email, password] = required(&body.0, ["email", "password"])?;
    let Some(user) = app.store.user_by_email(email.trim()).await? else {
        return Err(ApiError::authentication(format!(
            "Email: {email} is not registered!"
        )));
    };
    let stored = user.password_hash.clone();
    if !blocking(move || password_matches(&password, &stored)).await? {
        return Err(ApiError::authentication("Email and password do not match!"));
    }
    let token = secret(43);
    app.store
        .insert_login_token(&hash_token(&token), &user.id, now_ms())
        .await?;
    let body = Reply::raw(json!({"code": 0, "message": "Welcome back!", "data": user_json(&user)}));
    Ok(([(header::AUTHORIZATION, token)], body).into_response())
}

fn key_json(key: &ApiKey, token: String, beta: String) -> Value {
    json!({
        "tenant_id": key.user_id, "token": token, "beta": beta,
        "create_time": key.create_time, "create_date": http_date(key.create_time),
        "update_time": null, "update_date": null,
    })
}

/// `POST /api/v1/system/tokens`: a new API key and its beta token, shown this once.
pub(crate) async fn create_key(State(app): State<Shared>, Tenant(tenant): Tenant) -> Answer {
    let token = format!("ragflow-{}", secret(43));
    let beta = secret(32);
    let key = ApiKey {
        user_id: tenant,
        token_hint: hint(&token),
        beta_hint: hint(&beta),
        create_time: now_ms(),
    };
    app.store
        .insert_api_key(&hash_token(&token), &hash_token(&beta), &key)
        .await?;
    Ok(Reply::success(key_json(&key, token, beta)))
}

/// `GET /api/v1/system/tokens`: the caller's keys, by their hints (only hashes are stored).
pub(crate) async fn list_keys(State(app): State<Shared>, Tenant(tenant): Tenant) -> Answer {
    let keys = app.store.api_keys(&tenant).await?;
    let list: Vec<Value> = keys
        .iter()
        .map(|k| key_json(k, k.token_hint.clone(), k.beta_hint.clone()))
        .collect();
    Ok(Reply::success(Value::from(list)))
}

/// `DELETE /api/v1/system/tokens/{token}`: revokes one of the caller's keys at once.
pub(crate) async fn delete_key(
    State(app): State<Shared>,
    Tenant(tenant): Tenant,
    Path(token): Path<String>,
) -> Answer {
    app.store
        .delete_api_key(&tenant, &hash_token(&token))
        .await?;
    Ok(Reply::success(Value::Bool(true)))
}
