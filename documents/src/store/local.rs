//! The default store: `<root>/<bucket>/<name>` on the local disk.

use super::{check_name, FileStore, StoreError};
use futures::future::BoxFuture;
use std::path::PathBuf;

/// Files under one directory, a subdirectory per bucket.
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    pub fn new(root: impl Into<PathBuf>) -> LocalStore {
        LocalStore { root: root.into() }
    }

    fn path(&self, bucket: &str, name: &str) -> Result<PathBuf, StoreError> {
        check_name("bucket", bucket)?;
        check_name("object", name)?;
        Ok(self.root.join(bucket).join(name))
    }
}

impl FileStore for LocalStore {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let path = self.path(bucket, name)?;
            let dir = path
                .parent()
                .map(PathBuf::from)
                .unwrap_or_else(|| self.root.clone());
            tokio::fs::create_dir_all(&dir)
                .await
                .map_err(|e| StoreError(format!("cannot create {}: {e}", dir.display())))?;
            // Write to a temporary name, then rename: a reader never sees half a file.
            let partial = path.with_extension("partial");
            tokio::fs::write(&partial, &bytes)
                .await
                .map_err(|e| StoreError(format!("cannot write {}: {e}", partial.display())))?;
            tokio::fs::rename(&partial, &path)
                .await
                .map_err(|e| StoreError(format!("cannot write {}: {e}", path.display())))
        })
    }

    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let path = self.path(bucket, name)?;
            match tokio::fs::read(&path).await {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(StoreError(format!("cannot read {}: {e}", path.display()))),
            }
        })
    }
}
