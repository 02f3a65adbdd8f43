//! Versions: a snapshot of an agent's DSL per save. A released version is never rewritten by a
//! later unreleased save, so what was published stays what runs.

use serde_json::Value;
use sqlx::any::AnyRow;

use super::{int, json, opt_text, text, Store, StoreError};

/// How many unreleased versions an agent keeps (RAGFlow's limit); released ones are all kept.
const UNRELEASED_KEPT: usize = 20;

#[derive(Clone, Debug)]
pub struct VersionSummary {
    pub id: String,
    pub agent_id: String,
    pub title: String,
    pub released: bool,
    pub create_time: i64,
    pub update_time: i64,
    /// The program a released version's canvas builds into (`store::builds`).
    pub program_key: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Version {
    pub summary: VersionSummary,
    pub description: Option<String>,
    pub dsl: Value,
}

impl VersionSummary {
    fn from_row(row: &AnyRow) -> Result<VersionSummary, StoreError> {
        Ok(VersionSummary {
            id: text(row, "id")?,
            agent_id: text(row, "agent_id")?,
            title: text(row, "title")?,
            released: int(row, "released")? != 0,
            create_time: int(row, "create_time")?,
            update_time: int(row, "update_time")?,
            program_key: opt_text(row, "program_key")?,
        })
    }
}

impl Version {
    fn from_row(row: &AnyRow) -> Result<Version, StoreError> {
        Ok(Version {
            summary: VersionSummary::from_row(row)?,
            description: opt_text(row, "description")?,
            dsl: json(row, "dsl")?,
        })
    }
}

const COLUMNS: &str = "id, agent_id, title, released, create_time, update_time, program_key";

impl Store {
    /// Records a save of `agent_id`'s DSL: the newest version is refreshed in place when it holds
    /// the same DSL (and is not a released version being saved over unreleased), else a new
    /// version is added. Old unreleased versions beyond the limit are dropped. Returns the id of
    /// the version that holds the save.
    pub async fn save_version(&self, agent_id: &str, new: &Version) -> Result<String, StoreError> {
        let mut tx = self.begin().await?;
        let q = format!(
            "SELECT {COLUMNS}, description, dsl FROM agent_versions WHERE agent_id = ? \
             ORDER BY create_time DESC, id DESC LIMIT 1"
        );
        let q = self.sql(&q);
        let newest = sqlx::query(&q)
            .bind(agent_id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|row| Version::from_row(&row))
            .transpose()?;
        let refresh = newest.filter(|newest| {
            newest.dsl == new.dsl && (new.summary.released || !newest.summary.released)
        });
        let holder = match &refresh {
            Some(newest) => newest.summary.id.clone(),
            None => new.summary.id.clone(),
        };
        match refresh {
            Some(newest) => {
                let q = self
                    .sql("UPDATE agent_versions SET released = ?, update_time = ? WHERE id = ?");
                sqlx::query(&q)
                    .bind(i64::from(newest.summary.released || new.summary.released))
                    .bind(new.summary.update_time)
                    .bind(&newest.summary.id)
                    .execute(&mut *tx)
                    .await?;
            }
            None => {
                let q = self.sql(
                    "INSERT INTO agent_versions (id, agent_id, title, description, dsl, released, \
                     create_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                );
                sqlx::query(&q)
                    .bind(&new.summary.id)
                    .bind(agent_id)
                    .bind(&new.summary.title)
                    .bind(new.description.clone())
                    .bind(new.dsl.to_string())
                    .bind(i64::from(new.summary.released))
                    .bind(new.summary.create_time)
                    .bind(new.summary.update_time)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        let q = self.sql(
            "SELECT id FROM agent_versions WHERE agent_id = ? AND released = 0 \
             ORDER BY create_time DESC, id DESC",
        );
        let unreleased = sqlx::query(&q).bind(agent_id).fetch_all(&mut *tx).await?;
        for row in unreleased.iter().skip(UNRELEASED_KEPT) {
            let q = self.sql("DELETE FROM agent_versions WHERE id = ?");
            sqlx::query(&q)
                .bind(text(row, "id")?)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(holder)
    }

    /// Versions of `agent_id`, the most recently saved first.
    pub async fn versions(&self, agent_id: &str) -> Result<Vec<VersionSummary>, StoreError> {
        let q = format!(
            "SELECT {COLUMNS} FROM agent_versions WHERE agent_id = ? \
             ORDER BY update_time DESC, create_time DESC"
        );
        let q = self.sql(&q);
        let rows = sqlx::query(&q).bind(agent_id).fetch_all(&self.pool).await?;
        rows.iter().map(VersionSummary::from_row).collect()
    }

    /// The title of `agent_id`'s most recently saved version (what a session of its draft
    /// names), without listing them all.
    pub async fn newest_version_title(&self, agent_id: &str) -> Result<Option<String>, StoreError> {
        let q = self.sql(
            "SELECT title FROM agent_versions WHERE agent_id = ? \
             ORDER BY update_time DESC, create_time DESC LIMIT 1",
        );
        let row = sqlx::query(&q)
            .bind(agent_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| super::text(&row, "title")).transpose()
    }

    pub async fn version(&self, agent_id: &str, id: &str) -> Result<Option<Version>, StoreError> {
        let row = self.version_row(agent_id, Some(id)).await?;
        row.as_ref().map(Version::from_row).transpose()
    }

    /// Version `id` of `agent_id` (the newest released one without an id): its summary and
    /// its DSL as stored, for a caller that parses it only to build from it.
    pub async fn version_text(
        &self,
        agent_id: &str,
        id: Option<&str>,
    ) -> Result<Option<(VersionSummary, String)>, StoreError> {
        let row = self.version_row(agent_id, id).await?;
        row.map(|row| Ok((VersionSummary::from_row(&row)?, text(&row, "dsl")?)))
            .transpose()
    }

    /// Every released version of every agent (a deployment's released programs): its summary
    /// and its DSL as stored, oldest first per agent.
    pub async fn released_versions(&self) -> Result<Vec<(VersionSummary, String)>, StoreError> {
        let q = format!(
            "SELECT {COLUMNS}, dsl FROM agent_versions WHERE released = 1 \
             ORDER BY agent_id, create_time, id"
        );
        let rows = sqlx::query(&q).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| Ok((VersionSummary::from_row(row)?, text(row, "dsl")?)))
            .collect()
    }

    /// Version `id`'s row, or the newest released one's.
    async fn version_row(
        &self,
        agent_id: &str,
        id: Option<&str>,
    ) -> Result<Option<AnyRow>, StoreError> {
        let which = match id {
            Some(_) => "AND id = ?",
            None => "AND released = 1 ORDER BY create_time DESC, id DESC LIMIT 1",
        };
        let q = format!(
            "SELECT {COLUMNS}, description, dsl FROM agent_versions WHERE agent_id = ? {which}"
        );
        let q = self.sql(&q);
        let mut query = sqlx::query(&q).bind(agent_id);
        if let Some(id) = id {
            query = query.bind(id);
        }
        Ok(query.fetch_optional(&self.pool).await?)
    }

    /// Deletes version `id` of `agent_id`; false when it has no such version.
    pub async fn delete_version(&self, agent_id: &str, id: &str) -> Result<bool, StoreError> {
        let q = self.sql("DELETE FROM agent_versions WHERE agent_id = ? AND id = ?");
        let n = sqlx::query(&q)
            .bind(agent_id)
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    /// The newest released version of `agent_id`: what `release: true` runs.
    pub async fn newest_release(&self, agent_id: &str) -> Result<Option<Version>, StoreError> {
        let row = self.version_row(agent_id, None).await?;
        row.as_ref().map(Version::from_row).transpose()
    }
}
