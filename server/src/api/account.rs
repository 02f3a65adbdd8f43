//! Accounts and API keys (`http-api.md` §14): register, log in and out, create/list/revoke
//! keys. Registration follows `--registration` (`registration.rs`); a login is limited per
//! account and address (`login_limit.rs`) and its password work is bounded (`password.rs`).

use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::add_times;
use crate::auth::{credential, hash_token, hint, login_tokens_issued_after, secret, Tenant};
use crate::client_addr::ClientAddr;
use crate::clock::{http_date, new_id, now_ms};
use crate::envelope::{Answer, ApiError, Reply};
use crate::password::check_length;
use crate::registration::Registration;
use crate::request::{string, Body};
use crate::shared::AppRef;
use crate::store::{Admission, ApiKey, Registered, User};

pub(super) fn user_json(user: &User) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), user.id.clone().into());
    object.insert("email".into(), user.email.clone().into());
    object.insert("nickname".into(), user.nickname.clone().into());
    object.insert("avatar".into(), Value::Null);
    object.insert("is_superuser".into(), user.is_admin.into());
    object.insert("status".into(), "1".into());
    add_times(&mut object, user.create_time, user.update_time);
    Value::Object(object)
}

/// The named string fields of `body`, or RAGFlow's "required argument are missing" error.
pub(super) fn required<const N: usize>(
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

/// RAGFlow's refusal when registration is off (`user_api.py`, `user_add`).
fn registration_disabled() -> ApiError {
    ApiError::operating("User registration is disabled!")
}

fn invitation_refused() -> ApiError {
    ApiError::operating(
        "The invitation code is not valid: unknown, already used, expired, or made for another email.",
    )
}

fn checked_email(email: &str) -> Result<String, ApiError> {
    let email = email.trim().to_string();
    if !email.contains('@') || email.contains(char::is_whitespace) {
        return Err(ApiError::argument(format!(
            "Invalid email address: {email}!"
        )));
    }
    Ok(email)
}

/// `POST /api/v1/users` (no credentials). What `--registration` does not admit is refused
/// before the password is hashed, so refused sign-ups cost no Argon2 work.
pub(crate) async fn register(State(app): State<AppRef>, body: Body) -> Answer {
    let [email, nickname, password] = required(&body.0, ["email", "nickname", "password"])?;
    let first = app.store.awaiting_first_account().await?;
    let code = string(&body.0, "invitation_code")?.filter(|c| !c.is_empty());
    if !first {
        match (app.registration, &code) {
            (Registration::Open, _) | (Registration::Invite, Some(_)) => {}
            (Registration::Closed, _) | (Registration::Invite, None) => {
                return Err(registration_disabled())
            }
        }
    }
    let email = checked_email(&email)?;
    check_length(&password)?;
    let code_hash = code.as_deref().map(hash_token);
    let now = now_ms();
    let admission = match (app.registration, &code_hash) {
        (Registration::Open, _) => Admission::Open,
        (Registration::Invite, Some(code_hash)) => Admission::Invitation { code_hash, now },
        _ => Admission::Closed,
    };
    if let Admission::Invitation { code_hash, now } = admission {
        if !first && !app.store.invitation_usable(code_hash, &email, now).await? {
            return Err(invitation_refused());
        }
    }
    create_user(&app, email, nickname, password, false, admission).await
}

/// Creates an account if the email is free and `admission` lets it in.
pub(super) async fn create_user(
    app: &AppRef,
    email: String,
    nickname: String,
    password: String,
    is_admin: bool,
    admission: Admission<'_>,
) -> Answer {
    if app.store.user_by_email(&email).await?.is_some() {
        return Err(ApiError::operating(format!(
            "Email: {email} has already registered!"
        )));
    }
    let password_hash = app.passwords.hash(password).await?;
    let now = now_ms();
    let mut user = User {
        id: new_id(),
        email: email.to_lowercase(),
        nickname,
        password_hash,
        is_admin,
        create_time: now,
        update_time: now,
    };
    match app.store.register_user(&user, admission).await? {
        Registered::Created { admin } => {
            user.is_admin = admin;
            Ok(Reply::success(user_json(&user)))
        }
        Registered::EmailTaken => Err(ApiError::operating(format!(
            "Email: {email} has already registered!"
        ))),
        Registered::Closed => Err(registration_disabled()),
        Registered::InvitationRefused => Err(invitation_refused()),
    }
}

/// `POST /api/v1/auth/login` (no credentials): the login token comes back in the
/// `Authorization` response header.
pub(crate) async fn login(
    State(app): State<AppRef>,
    ClientAddr(address): ClientAddr,
    body: Body,
) -> Result<Response, ApiError> {
    let [email, password] = required(&body.0, ["email", "password"])?;
    check_length(&password)?;
    let email = email.trim();
    let now = Instant::now();
    if let Some(wait) = app.login_limiter.wait(email, address, now) {
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        return Err(ApiError::too_many_logins(secs.max(1)));
    }
    let Some(user) = app.store.user_by_email(email).await? else {
        app.login_limiter.failed(email, address, now);
        return Err(ApiError::authentication(format!(
            "Email: {email} is not registered!"
        )));
    };
    if !app
        .passwords
        .verify(password, user.password_hash.clone())
        .await?
    {
        app.login_limiter.failed(email, address, now);
        return Err(ApiError::authentication("Email and password do not match!"));
    }
    app.login_limiter.succeeded(email);
    let token = secret(43);
    app.store
        .delete_expired_login_tokens(&user.id, login_tokens_issued_after(&app))
        .await?;
    app.store
        .insert_login_token(&hash_token(&token), &user.id, now_ms())
        .await?;
    let body = Reply::raw(json!({"code": 0, "message": "Welcome back!", "data": user_json(&user)}));
    Ok(([(header::AUTHORIZATION, token)], body).into_response())
}

/// `POST /api/v1/auth/logout` (RAGFlow's route): the login token of the request stops
/// working at once. Called with an API key it revokes nothing (keys are revoked by id).
pub(crate) async fn logout(
    State(app): State<AppRef>,
    Tenant(_): Tenant,
    headers: HeaderMap,
) -> Answer {
    if let Some(token) = credential(&headers) {
        app.store.delete_login_token(&hash_token(&token)).await?;
    }
    Ok(Reply::success(Value::Bool(true)))
}

fn key_json(key: &ApiKey, token: String, beta: String) -> Value {
    json!({
        "id": key.id,
        "tenant_id": key.user_id, "token": token, "beta": beta,
        "create_time": key.create_time, "create_date": http_date(key.create_time),
        "update_time": null, "update_date": null,
    })
}

/// `POST /api/v1/system/tokens`: a new API key and its beta token, shown this once.
pub(crate) async fn create_key(State(app): State<AppRef>, Tenant(tenant): Tenant) -> Answer {
    let token = format!("ragflow-{}", secret(43));
    let beta = secret(32);
    let key = ApiKey {
        id: new_id(),
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

/// `GET /api/v1/system/tokens`: the caller's keys, by id and the hints of their secrets
/// (only hashes are stored).
pub(crate) async fn list_keys(State(app): State<AppRef>, Tenant(tenant): Tenant) -> Answer {
    let keys = app.store.api_keys(&tenant).await?;
    let list: Vec<Value> = keys
        .iter()
        .map(|k| key_json(k, k.token_hint.clone(), k.beta_hint.clone()))
        .collect();
    Ok(Reply::success(Value::from(list)))
}

/// `DELETE /api/v1/system/tokens/{id}`: revokes one of the caller's keys at once, named by
/// its id (as listed) or, as RAGFlow's clients do, by the key itself.
pub(crate) async fn delete_key(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(key): Path<String>,
) -> Answer {
    app.store
        .delete_api_key(&tenant, &key, &hash_token(&key))
        .await?;
    Ok(Reply::success(Value::Bool(true)))
}
