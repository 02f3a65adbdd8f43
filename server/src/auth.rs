//! Credentials: login tokens and API keys (`Authorization: Bearer <t>` or the raw token), and
//! the beta tokens some routes also accept. Every credential is stored as its SHA-256, so the
//! database holds nothing that logs in; passwords are Argon2 hashes (`password.rs`).

use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts, HeaderMap};
use rand::distributions::{Alphanumeric, DistString};
use sha2::{Digest, Sha256};

use crate::envelope::ApiError;
use crate::shared::AppRef;

/// The tenant a request acts for: the id of the user its credential belongs to.
pub(crate) struct Tenant(pub String);

/// The tenant of a route that also accepts beta tokens (uploads for embedded agents).
pub(crate) struct BetaTenant(pub String);

impl FromRequestParts<AppRef> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppRef) -> Result<Tenant, ApiError> {
        let hash = credential(&parts.headers).map(|token| hash_token(&token));
        let Some(hash) = hash else {
            return Err(ApiError::unauthorized());
        };
        user_of(app, &hash)
            .await?
            .map(Tenant)
            .ok_or_else(ApiError::unauthorized)
    }
}

impl FromRequestParts<AppRef> for BetaTenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppRef) -> Result<BetaTenant, ApiError> {
        let hash = credential(&parts.headers).map(|token| hash_token(&token));
        let Some(hash) = hash else {
            return Err(ApiError::unauthorized());
        };
        if let Some(user) = app.store.user_of_beta_token(&hash).await? {
            return Ok(BetaTenant(user));
        }
        user_of(app, &hash)
            .await?
            .map(BetaTenant)
            .ok_or_else(ApiError::unauthorized)
    }
}

/// RAGFlow's order: a login token (unexpired), then an API key.
async fn user_of(app: &AppRef, hash: &str) -> Result<Option<String>, ApiError> {
    let issued_after = login_tokens_issued_after(app);
    Ok(app.store.user_of_credential(hash, issued_after).await?)
}

/// Login tokens issued at or before this (ms) have expired.
pub(crate) fn login_tokens_issued_after(app: &AppRef) -> i64 {
    let ttl = i64::try_from(app.token_ttl.as_millis()).unwrap_or(i64::MAX);
    crate::clock::now_ms().saturating_sub(ttl)
}

/// The token of the `Authorization` header, without a `Bearer ` prefix (any case).
pub(crate) fn credential(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let token = match value.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case("bearer ") => value[7..].trim(),
        _ => value,
    };
    (!token.is_empty()).then(|| token.to_string())
}

/// The stored form of a token.
pub(crate) fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new random secret of `len` letters and digits.
pub(crate) fn secret(len: usize) -> String {
    Alphanumeric.sample_string(&mut rand::thread_rng(), len)
}

/// What a key list shows of a key: enough to tell keys apart, too little to use one.
pub(crate) fn hint(token: &str) -> String {
    let shown: String = token.chars().take(12).collect();
    format!("{shown}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_hash_to_hex() {
        assert_eq!(hash_token("abc").len(), 64);
        assert_eq!(hint("ragflow-abcdefghijk"), "ragflow-abcd…");
    }
}
