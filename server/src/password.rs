//! Password work before authentication, bounded: a password longer than
//! [`MAX_PASSWORD_BYTES`] is refused before any hashing, Argon2 (and the RSA decryption of
//! RAGFlow's web form) runs on the blocking pool behind a semaphore, and when that is full
//! and its short queue too, the request is refused with 503 at once instead of waiting
//! without bound. Unauthenticated clients can so take at most `concurrent` cores.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::envelope::ApiError;
use crate::password_rsa::PasswordKey;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// The longest password field accepted (bytes, as sent): Argon2's cost grows with the input,
/// and no password or RSA-encrypted form needs more.
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// How much password work may run and wait at once.
#[derive(Clone, Copy, Debug)]
pub struct PasswordLimits {
    /// Hashes and checks running at once (each takes one core for tens of milliseconds).
    pub concurrent: usize,
    /// Requests that may wait for one of those; more are refused with 503.
    pub queued: usize,
}

impl Default for PasswordLimits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        PasswordLimits {
            concurrent: cores.div_ceil(2).max(1),
            queued: 4 * cores,
        }
    }
}

/// The gate every password hash and check goes through.
pub(crate) struct PasswordWork {
    admitted: Arc<Semaphore>,
    running: Arc<Semaphore>,
    key: Option<PasswordKey>,
}

/// Refuses a password field over [`MAX_PASSWORD_BYTES`] (before anything is done with it).
pub(crate) fn check_length(password: &str) -> Result<(), ApiError> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(ApiError::argument(format!(
            "The password is too long: {} bytes, at most {MAX_PASSWORD_BYTES} are accepted.",
            password.len()
        )));
    }
    Ok(())
}

impl PasswordWork {
    pub(crate) fn new(limits: PasswordLimits, key: Option<PasswordKey>) -> PasswordWork {
        let concurrent = limits.concurrent.max(1);
        PasswordWork {
            admitted: Arc::new(Semaphore::new(concurrent + limits.queued)),
            running: Arc::new(Semaphore::new(concurrent)),
            key,
        }
    }

    /// The stored form of a new password (the field as the client sent it).
    pub(crate) async fn hash(&self, field: String) -> Result<String, ApiError> {
        let key = self.key.clone();
        self.run(move || hash_password(&plain(key.as_ref(), field)))
            .await?
    }

    /// Whether the field the client sent is the password `stored` was made from.
    pub(crate) async fn verify(&self, field: String, stored: String) -> Result<bool, ApiError> {
        let key = self.key.clone();
        self.run(move || password_matches(&plain(key.as_ref(), field), &stored))
            .await
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let Ok(_admitted) = self.admitted.clone().try_acquire_owned() else {
            return Err(ApiError::busy(
                "The server is busy checking passwords; try again in a moment.",
            ));
        };
        let _running = self
            .running
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ApiError::exception(format!("password check failed: {e}")))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| ApiError::exception(format!("password check failed: {e}")))
    }
}

/// The password a field stands for: RAGFlow's web form decrypted when a key is configured and
/// the field is that form, else the field itself (API clients).
fn plain(key: Option<&PasswordKey>, field: String) -> String {
    key.and_then(|key| key.decrypt(&field)).unwrap_or(field)
}

/// An Argon2 hash of `password` (the opaque string the client sends) with a fresh salt.
fn hash_password(password: &str) -> Result<String, ApiError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| ApiError::exception(format!("password hashing failed: {e}")))
}

fn password_matches(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_themselves() {
        let stored = hash_password("c2VjcmV0").unwrap_or_default();
        assert!(password_matches("c2VjcmV0", &stored));
        assert!(!password_matches("c2VjcmV1", &stored));
        assert!(!password_matches("c2VjcmV0", "not a hash"));
    }
}
