//! Files uploaded as run inputs, kept in the database with their bytes so a server is one
//! database and nothing beside it.

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
}
