//! Users, login tokens and API keys. Tokens arrive here already hashed: the store never sees
//! a credential it could leak.

use sqlx::any::AnyRow;

use super::{int, text, Backend, Store, StoreError};

#[derive(Clone, Debug)]
pub struct User {
    pub id: String,
    pub email: String,
    pub nickname: String,
    pub password_hash: String,
    /// May create users and invitations (`/api/v1/admin/...`): the first account of a
    /// database, or one an administrator made so.
    pub is_admin: bool,
    pub create_time: i64,
    pub update_time: i64,
}

impl User {
    fn from_row(row: &AnyRow) -> Result<User, StoreError> {
        Ok(User {
            id: text(row, "id")?,
            email: text(row, "email")?,
            nickname: text(row, "nickname")?,
            password_hash: text(row, "password_hash")?,
            is_admin: int(row, "is_admin")? != 0,
            create_time: int(row, "create_time")?,
            update_time: int(row, "update_time")?,
        })
    }
}

/// An API key as listed: only the hints of the token and its beta token are kept.
#[derive(Clone, Debug)]
pub struct ApiKey {
    /// What the key is listed and revoked by (no secret: revoking never puts the key in a URL).
    pub id: String,
    pub user_id: String,
    pub token_hint: String,
    pub beta_hint: String,
    pub create_time: i64,
}

const USER_COLUMNS: &str = "id, email, nickname, password_hash, is_admin, create_time, update_time";

impl Store {
    /// Adds a user unless the email is taken (compared case-insensitively) or `admission`
    /// refuses it. The first account of a database is admitted whatever the mode and becomes
    /// the administrator; the claim, the invitation and the user are written in one
    /// transaction, so two first registrations cannot both win and a used invitation stays
    /// unused when the user is not created.
    pub async fn register_user(
        &self,
        user: &User,
        admission: Admission<'_>,
    ) -> Result<Registered, StoreError> {
        let mut tx = self.begin().await?;
        let select = format!("SELECT {USER_COLUMNS} FROM users WHERE email = ?");
        let q = self.sql(&select);
        let taken = sqlx::query(&q)
            .bind(user.email.to_lowercase())
            .fetch_optional(&mut *tx)
            .await?;
        if taken.is_some() {
            return Ok(Registered::EmailTaken);
        }
        let claim = match self.backend {
            Backend::MySql => "INSERT IGNORE INTO first_admin (slot, user_id) VALUES (1, ?)",
            Backend::Sqlite | Backend::Postgres => {
                "INSERT INTO first_admin (slot, user_id) VALUES (1, ?) ON CONFLICT DO NOTHING"
            }
        };
        let first = sqlx::query(&self.sql(claim))
            .bind(&user.id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if !first {
            match admission {
                Admission::Open | Admission::ByAdmin => {}
                Admission::Closed => return Ok(Registered::Closed),
                Admission::Invitation { code_hash, now } => {
                    let q = self.sql(
                        "UPDATE invitations SET used_by = ?, used_time = ? \
                         WHERE code_hash = ? AND used_by IS NULL AND expire_time > ? \
                         AND (email IS NULL OR email = ?)",
                    );
                    let used = sqlx::query(&q)
                        .bind(&user.id)
                        .bind(now)
                        .bind(code_hash)
                        .bind(now)
                        .bind(user.email.to_lowercase())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if used != 1 {
                        return Ok(Registered::InvitationRefused);
                    }
                }
            }
        }
        let q = self.sql(
            "INSERT INTO users (id, email, nickname, password_hash, is_admin, create_time, update_time) \
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(&user.id)
            .bind(user.email.to_lowercase())
            .bind(&user.nickname)
            .bind(&user.password_hash)
            .bind(i64::from(first || user.is_admin))
            .bind(user.create_time)
            .bind(user.update_time)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Registered::Created {
            admin: first || user.is_admin,
        })
    }

    /// Whether no account was ever created: the next registration makes the administrator.
    pub async fn awaiting_first_account(&self) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT user_id FROM first_admin")
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_none())
    }

    pub async fn user_by_email(&self, email: &str) -> Result<Option<User>, StoreError> {
        let q = format!("SELECT {USER_COLUMNS} FROM users WHERE email = ?");
        let q = self.sql(&q);
        let row = sqlx::query(&q)
            .bind(email.to_lowercase())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(User::from_row).transpose()
    }

    pub async fn user_by_id(&self, id: &str) -> Result<Option<User>, StoreError> {
        let q = format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?");
        let q = self.sql(&q);
        let row = sqlx::query(&q).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(User::from_row).transpose()
    }

    pub async fn insert_login_token(
        &self,
        token_hash: &str,
        user_id: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let q = self
            .sql("INSERT INTO login_tokens (token_hash, user_id, create_time) VALUES (?, ?, ?)");
        sqlx::query(&q)
            .bind(token_hash)
            .bind(user_id)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The user of a login token created after `issued_after` (ms): older ones have expired.
    /// The lifetime is applied when a token is read, so an operator who shortens it shortens
    /// the life of the tokens already issued too.
    /// The user a credential (its hash) names: an unexpired login token (issued after
    /// `issued_after`) first, then an API key, as RAGFlow looks them up; one statement.
    pub async fn user_of_credential(
        &self,
        token_hash: &str,
        issued_after: i64,
    ) -> Result<Option<String>, StoreError> {
        let q = self.sql(
            "SELECT user_id, 0 AS kind FROM login_tokens WHERE token_hash = ? AND create_time > ? \
             UNION ALL SELECT user_id, 1 AS kind FROM api_keys WHERE token_hash = ? \
             ORDER BY kind LIMIT 1",
        );
        let row = sqlx::query(&q)
            .bind(token_hash)
            .bind(issued_after)
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(|row| text(row, "user_id")).transpose()
    }

    /// Logs a token out; `false` when it was no login token.
    pub async fn delete_login_token(&self, token_hash: &str) -> Result<bool, StoreError> {
        let q = self.sql("DELETE FROM login_tokens WHERE token_hash = ?");
        let done = sqlx::query(&q).bind(token_hash).execute(&self.pool).await?;
        Ok(done.rows_affected() > 0)
    }

    /// Forgets `user_id`'s login tokens issued before `issued_before` (expired ones), so the
    /// table does not grow with every login.
    pub async fn delete_expired_login_tokens(
        &self,
        user_id: &str,
        issued_before: i64,
    ) -> Result<(), StoreError> {
        let q = self.sql("DELETE FROM login_tokens WHERE user_id = ? AND create_time <= ?");
        sqlx::query(&q)
            .bind(user_id)
            .bind(issued_before)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn user_of_beta_token(&self, beta_hash: &str) -> Result<Option<String>, StoreError> {
        self.owner_of(
            "SELECT user_id FROM api_keys WHERE beta_hash = ?",
            beta_hash,
        )
        .await
    }

    async fn owner_of(&self, sql: &str, hash: &str) -> Result<Option<String>, StoreError> {
        let q = self.sql(sql);
        let row = sqlx::query(&q)
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(|row| text(row, "user_id")).transpose()
    }

    pub async fn insert_api_key(
        &self,
        token_hash: &str,
        beta_hash: &str,
        key: &ApiKey,
    ) -> Result<(), StoreError> {
        let q = self.sql(
            "INSERT INTO api_keys (id, token_hash, beta_hash, user_id, token_hint, beta_hint, create_time) \
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(&key.id)
            .bind(token_hash)
            .bind(beta_hash)
            .bind(&key.user_id)
            .bind(&key.token_hint)
            .bind(&key.beta_hint)
            .bind(key.create_time)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn api_keys(&self, user_id: &str) -> Result<Vec<ApiKey>, StoreError> {
        let q = self.sql(
            "SELECT id, user_id, token_hint, beta_hint, create_time FROM api_keys \
             WHERE user_id = ? ORDER BY create_time",
        );
        let rows = sqlx::query(&q).bind(user_id).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| {
                Ok(ApiKey {
                    id: text(row, "id")?,
                    user_id: text(row, "user_id")?,
                    token_hint: text(row, "token_hint")?,
                    beta_hint: text(row, "beta_hint")?,
                    create_time: int(row, "create_time")?,
                })
            })
            .collect()
    }

    /// Revokes one of `user_id`'s keys, named by its id or by its token's hash; another
    /// user's key is left alone. `false` when the caller has no such key.
    pub async fn delete_api_key(
        &self,
        user_id: &str,
        id: &str,
        token_hash: &str,
    ) -> Result<bool, StoreError> {
        let q = self.sql("DELETE FROM api_keys WHERE user_id = ? AND (id = ? OR token_hash = ?)");
        let done = sqlx::query(&q)
            .bind(user_id)
            .bind(id)
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

/// What lets a registration through when the database already has accounts.
#[derive(Clone, Copy, Debug)]
pub enum Admission<'a> {
    /// `--registration open`: anyone.
    Open,
    /// `--registration closed`: nobody but the first account.
    Closed,
    /// `--registration invite`: an unused, unexpired invitation (by its code's hash).
    Invitation { code_hash: &'a str, now: i64 },
    /// An administrator creates the user.
    ByAdmin,
}

/// How a registration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registered {
    Created { admin: bool },
    EmailTaken,
    Closed,
    InvitationRefused,
}
