//! Invitations: what lets someone register under `--registration invite`. The code is a
//! secret shown once to the administrator who made it; only its hash is stored.

use sqlx::Row;

use super::{int, opt_text, text, Store, StoreError};

/// An invitation as listed (never its code).
#[derive(Clone, Debug)]
pub struct Invitation {
    pub id: String,
    pub created_by: String,
    /// The only address that may register with it, when the administrator named one.
    pub email: Option<String>,
    pub create_time: i64,
    pub expire_time: i64,
    pub used_by: Option<String>,
    pub used_time: Option<i64>,
}

impl Store {
    pub async fn insert_invitation(
        &self,
        code_hash: &str,
        invitation: &Invitation,
    ) -> Result<(), StoreError> {
        let q = self.sql(
            "INSERT INTO invitations (code_hash, id, created_by, email, create_time, expire_time) \
             VALUES (?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(code_hash)
            .bind(&invitation.id)
            .bind(&invitation.created_by)
            .bind(invitation.email.as_ref().map(|e| e.to_lowercase()))
            .bind(invitation.create_time)
            .bind(invitation.expire_time)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether `code_hash` names an invitation `email` may still register with at `now`:
    /// checked before a password is hashed, so a wrong code costs no Argon2 work.
    pub async fn invitation_usable(
        &self,
        code_hash: &str,
        email: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let q = self.sql(
            "SELECT id FROM invitations WHERE code_hash = ? AND used_by IS NULL \
             AND expire_time > ? AND (email IS NULL OR email = ?)",
        );
        let row = sqlx::query(&q)
            .bind(code_hash)
            .bind(now)
            .bind(email.to_lowercase())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// Every invitation, newest first.
    pub async fn invitations(&self) -> Result<Vec<Invitation>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, created_by, email, create_time, expire_time, used_by, used_time \
             FROM invitations ORDER BY create_time DESC, id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Invitation {
                    id: text(row, "id")?,
                    created_by: text(row, "created_by")?,
                    email: opt_text(row, "email")?,
                    create_time: int(row, "create_time")?,
                    expire_time: int(row, "expire_time")?,
                    used_by: opt_text(row, "used_by")?,
                    used_time: row.try_get::<Option<i64>, _>("used_time")?,
                })
            })
            .collect()
    }
}
