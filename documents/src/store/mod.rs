//! Where generated files go: RAGFlow's `STORAGE_IMPL.put(tenant, doc_id, bytes)` behind one
//! interface. A local directory by default; an S3-compatible bucket when configured.

mod local;
mod s3;

pub use local::LocalStore;
pub use s3::{S3Config, S3Store};

use futures::future::BoxFuture;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// A blob store keyed by (bucket, name): RAGFlow's bucket is the tenant id, the name the
/// document id.
pub trait FileStore: Send + Sync + std::fmt::Debug {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The blob, or `None` when there is none under that name.
    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;
}

/// A bucket or object name we accept: letters, digits, `_`, `-`, `.`, not starting with a dot,
/// at most 128 bytes. Names come from tenant ids and generated ids; anything else is refused
/// rather than escaped, so no name can leave its directory or bucket.
pub fn check_name(kind: &str, name: &str) -> Result<(), StoreError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(StoreError(format!(
            "invalid {kind} name for the file store: {name:?}"
        )))
    }
}
