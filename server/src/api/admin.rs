//! What an administrator does (canvasc's own routes; RAGFlow keeps these in a separate admin
//! service): create accounts whatever `--registration` says, and make invitations for
//! `--registration invite`. Only accounts with `is_superuser` (the first account of the
//! database, or one an administrator created as such) may call them.

use axum::extract::State;
use serde_json::{json, Value};

use super::account::{create_user, required};
use crate::auth::{hash_token, secret, Tenant};
use crate::clock::{http_date, new_id, now_ms};
use crate::envelope::{Answer, ApiError, Reply};
use crate::password::check_length;
use crate::request::{string, truthy, Body};
use crate::shared::AppRef;
use crate::store::{Admission, Invitation};

/// An invitation works a week unless the administrator says otherwise.
const DEFAULT_INVITATION_DAYS: f64 = 7.0;

async fn require_admin(app: &AppRef, tenant: &str) -> Result<(), ApiError> {
    match app.store.user_by_id(tenant).await? {
        Some(user) if user.is_admin => Ok(()),
        _ => Err(ApiError::permission("Only an administrator may do this.")),
    }
}

/// `POST /api/v1/admin/users` `{"email","nickname","password","is_superuser"?}`.
pub(crate) async fn create_account(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    body: Body,
) -> Answer {
    require_admin(&app, &tenant).await?;
    let [email, nickname, password] = required(&body.0, ["email", "nickname", "password"])?;
    let email = email.trim().to_string();
    if !email.contains('@') || email.contains(char::is_whitespace) {
        return Err(ApiError::argument(format!(
            "Invalid email address: {email}!"
        )));
    }
    check_length(&password)?;
    let is_admin = truthy(body.0.get("is_superuser"));
    create_user(
        &app,
        email,
        nickname,
        password,
        is_admin,
        Admission::ByAdmin,
    )
    .await
}

fn invitation_json(invitation: &Invitation) -> Value {
    json!({
        "id": invitation.id,
        "created_by": invitation.created_by,
        "email": invitation.email,
        "create_time": invitation.create_time,
        "create_date": http_date(invitation.create_time),
        "expire_time": invitation.expire_time,
        "expire_date": http_date(invitation.expire_time),
        "used_by": invitation.used_by,
        "used_time": invitation.used_time,
    })
}

/// `POST /api/v1/admin/invitations` `{"email"?, "expires_in_days"?}`: a code, shown this once,
/// that lets one person register (only with `email`, when given) until it expires.
pub(crate) async fn create_invitation(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    body: Body,
) -> Answer {
    require_admin(&app, &tenant).await?;
    let email = string(&body.0, "email")?
        .map(|e| e.trim().to_lowercase())
        .filter(|e| !e.is_empty());
    let days = match body.0.get("expires_in_days") {
        None | Some(Value::Null) => DEFAULT_INVITATION_DAYS,
        Some(value) => match value.as_f64() {
            Some(days) if days > 0.0 && days <= 366.0 => days,
            _ => {
                return Err(ApiError::argument(format!(
                    "expires_in_days must be a number of days above 0 and at most 366, not {value}"
                )))
            }
        },
    };
    let now = now_ms();
    let code = secret(32);
    let invitation = Invitation {
        id: new_id(),
        created_by: tenant,
        email,
        create_time: now,
        expire_time: now + (days * 86_400_000.0) as i64,
        used_by: None,
        used_time: None,
    };
    app.store
        .insert_invitation(&hash_token(&code), &invitation)
        .await?;
    let mut answer = invitation_json(&invitation);
    answer["code"] = code.into();
    Ok(Reply::success(answer))
}

/// `GET /api/v1/admin/invitations`: every invitation, newest first, without codes.
pub(crate) async fn list_invitations(State(app): State<AppRef>, Tenant(tenant): Tenant) -> Answer {
    require_admin(&app, &tenant).await?;
    let list: Vec<Value> = app
        .store
        .invitations()
        .await?
        .iter()
        .map(invitation_json)
        .collect();
    Ok(Reply::success(Value::from(list)))
}
