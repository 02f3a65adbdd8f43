//! Files uploaded as run inputs, kept in the database with their bytes so a server is one
//! database and nothing beside it. An upload belongs to the first session that runs with it
//! and is deleted with that session or its agent; one no run ever attached expires
//! ([`Store::delete_unattached_files`], swept periodically by the server).

use sqlx::any::AnyRow;

use super::{int, text, Store, StoreError};

/// An upload's descriptor and bytes, as stored.
#[derive(Clone, Debug)]
pub struct NewFile {
    pub id: String,
    pub tenant_id: String,
    pub agent_id: String,
    pub name: String,
    pub extension: String,
    pub mime_type: String,
    pub content: Vec<u8>,
    pub create_time: i64,
}

/// An upload's descriptor.
#[derive(Clone, Debug)]
pub struct StoredFile {
    pub id: String,
    pub tenant_id: String,
    pub name: String,
    pub size: i64,
    pub extension: String,
    pub mime_type: String,
    pub create_time: i64,
}

/// A downloaded file.
#[derive(Clone, Debug)]
pub struct FileContent {
    pub file: StoredFile,
    pub content: Vec<u8>,
}

impl StoredFile {
    fn from_row(row: &AnyRow) -> Result<StoredFile, StoreError> {
        Ok(StoredFile {
            id: text(row, "id")?,
            tenant_id: text(row, "tenant_id")?,
            name: text(row, "name")?,
            size: int(row, "size")?,
            extension: text(row, "extension")?,
            mime_type: text(row, "mime_type")?,
            create_time: int(row, "create_time")?,
        })
    }
}

/// Deletes the uploads attached to any session of an agent (bound: the agent id); run before
/// the sessions themselves go.
pub(super) const DELETE_FILES_OF_AGENT_SESSIONS: &str =
    "DELETE FROM uploaded_files WHERE session_id IN \
     (SELECT id FROM agent_sessions WHERE agent_id = ?)";

impl Store {
    pub async fn insert_file(&self, file: &NewFile) -> Result<(), StoreError> {
        let q = self.sql(
            "INSERT INTO uploaded_files (id, tenant_id, agent_id, name, size, extension, mime_type, \
             content, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(&file.id)
            .bind(&file.tenant_id)
            .bind(&file.agent_id)
            .bind(&file.name)
            .bind(i64::try_from(file.content.len()).unwrap_or(i64::MAX))
            .bind(&file.extension)
            .bind(&file.mime_type)
            .bind(file.content.clone())
            .bind(file.create_time)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// File `id` if `tenant_id` uploaded it.
    pub async fn file(&self, tenant_id: &str, id: &str) -> Result<Option<FileContent>, StoreError> {
        let q = self.sql(
            "SELECT id, tenant_id, name, size, extension, mime_type, create_time, content \
             FROM uploaded_files WHERE id = ? AND tenant_id = ?",
        );
        let row = sqlx::query(&q)
            .bind(id)
            .bind(tenant_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(FileContent {
                file: StoredFile::from_row(&row)?,
                content: sqlx::Row::try_get::<Vec<u8>, _>(&row, "content")?,
            })
        })
        .transpose()
    }

    /// Attaches `tenant_id`'s upload `id` to `session_id`, unless a session has it already
    /// (the first session that runs with an upload keeps it).
    pub async fn attach_file(
        &self,
        tenant_id: &str,
        id: &str,
        session_id: &str,
    ) -> Result<(), StoreError> {
        let q = self.sql(
            "UPDATE uploaded_files SET session_id = ? \
             WHERE id = ? AND tenant_id = ? AND session_id IS NULL",
        );
        sqlx::query(&q)
            .bind(session_id)
            .bind(id)
            .bind(tenant_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deletes the uploads no session was ever attached to that were made before
    /// `before_ms`; how many.
    pub async fn delete_unattached_files(&self, before_ms: i64) -> Result<u64, StoreError> {
        let q = self.sql("DELETE FROM uploaded_files WHERE session_id IS NULL AND create_time < ?");
        let result = sqlx::query(&q).bind(before_ms).execute(&self.pool).await?;
        Ok(result.rows_affected())
    }
}
