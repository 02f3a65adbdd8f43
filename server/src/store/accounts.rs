//! Users, login tokens and API keys. Tokens arrive here already hashed: the store never sees
//! a credential it could leak.

use sqlx::any::AnyRow;

use super::{int, text, Store, StoreError};

#[derive(Clone, Debug)]
pub struct User {
    pub id: String,
    pub email: String,
    pub nickname: String,
    pub password_hash: String,
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
            create_time: int(row, "create_time")?,
            update_time: int(row, "update_time")?,
        })
    }
}

/// An API key as listed: only the hints of the token and its beta token are kept.
#[derive(Clone, Debug)]
pub struct ApiKey {
    pub user_id: String,
    pub token_hint: String,
    pub beta_hint: String,
    pub create_time: i64,
}

const USER_COLUMNS: &str = "id, email, nickname, password_hash, create_time, update_time";

impl Store {
    /// Adds a user unless the email is taken (compared case-insensitively); `false` when taken.
    pub async fn insert_user(&self, user: &User) -> Result<bool, StoreError> {
        if self.user_by_email(&user.email).await?.is_some() {
            return Ok(false);
        }
        let q = self.sql(
            "INSERT INTO users (id, email, nickname, password_hash, create_time, update_time) \
             VALUES (?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(&user.id)
            .bind(user.email.to_lowercase())
            .bind(&user.nickname)
            .bind(&user.password_hash)
            .bind(user.create_time)
            .bind(user.update_time)
            .execute(&self.pool)
            .await?;
        Ok(true)
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

    pub async fn user_of_login_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<String>, StoreError> {
        self.owner_of(
            "SELECT user_id FROM login_tokens WHERE token_hash = ?",
            token_hash,
        )
        .await
    }

    pub async fn user_of_api_key(&self, token_hash: &str) -> Result<Option<String>, StoreError> {
        self.owner_of(
            "SELECT user_id FROM api_keys WHERE token_hash = ?",
            token_hash,
        )
        .await
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
            "INSERT INTO api_keys (token_hash, beta_hash, user_id, token_hint, beta_hint, create_time) \
             VALUES (?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
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
            "SELECT user_id, token_hint, beta_hint, create_time FROM api_keys \
             WHERE user_id = ? ORDER BY create_time",
        );
        let rows = sqlx::query(&q).bind(user_id).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| {
                Ok(ApiKey {
                    user_id: text(row, "user_id")?,
                    token_hint: text(row, "token_hint")?,
                    beta_hint: text(row, "beta_hint")?,
                    create_time: int(row, "create_time")?,
                })
            })
            .collect()
    }

    /// Revokes one of `user_id`'s keys; another user's key is left alone.
    pub async fn delete_api_key(&self, user_id: &str, token_hash: &str) -> Result<(), StoreError> {
        let q = self.sql("DELETE FROM api_keys WHERE user_id = ? AND token_hash = ?");
        sqlx::query(&q)
            .bind(user_id)
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
