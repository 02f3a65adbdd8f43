//! Where the Browser keeps files: the downloads it stores (RAGFlow puts them in the tenant's root
//! folder through `STORAGE_IMPL`) and the RAGFlow file ids it reads upload sources from. The
//! tools crate does not own a file store; the host adapts its own (the documents' store, local
//! or S3) to this trait, so this crate compiles without the document writers.

use futures::future::BoxFuture;
use std::sync::Arc;

/// A blob store keyed by (bucket, name): the bucket is the tenant, the name a file id.
pub trait BrowserFiles: Send + Sync + std::fmt::Debug {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), String>>;
    /// The blob, or `None` when there is none under that name.
    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, String>>;
}

/// The store and the bucket files go to when the run has no tenant (inside a server the run's
/// tenant is the bucket, so one tenant never reads another's files).
#[derive(Clone, Debug)]
pub struct FileTarget {
    pub files: Arc<dyn BrowserFiles>,
    pub bucket: String,
}

impl FileTarget {
    /// The bucket of this run: its tenant's, else the configured one.
    pub fn bucket<'a>(&'a self, tenant: Option<&'a str>) -> &'a str {
        tenant.unwrap_or(self.bucket.as_str())
    }
}
