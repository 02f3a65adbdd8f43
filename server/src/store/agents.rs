//! Agents (RAGFlow's "user canvases"): the DSL is kept verbatim as the client sent it.

use serde_json::Value;
use sqlx::any::AnyRow;

use super::{int, opt_text, text, Store, StoreError};

/// An agent with its DSL and its owner's nickname.
#[derive(Clone, Debug)]
pub struct Agent {
    pub summary: AgentSummary,
    pub dsl: Value,
}

/// An agent as lists show it: everything but the DSL.
#[derive(Clone, Debug)]
pub struct AgentSummary {
    pub id: String,
    pub user_id: String,
    pub nickname: String,
    pub title: String,
    pub description: Option<String>,
    pub avatar: Option<String>,
    pub canvas_type: String,
    pub canvas_category: String,
    pub permission: String,
    pub tags: String,
    pub create_time: i64,
    pub update_time: i64,
    /// Creation time of the newest released version.
    pub release_time: Option<i64>,
}

/// The fields of an agent as created or updated.
#[derive(Clone, Debug)]
pub struct NewAgent {
    pub id: String,
    pub user_id: String,
    pub title: String,
    pub description: Option<String>,
    pub avatar: Option<String>,
    pub dsl: Value,
    pub canvas_type: String,
    pub canvas_category: String,
    pub permission: String,
    pub create_time: i64,
}

const SUMMARY_COLUMNS: &str = "a.id, a.user_id, u.nickname, a.title, a.description, a.avatar, \
     a.canvas_type, a.canvas_category, a.permission, a.tags, a.create_time, a.update_time, \
     (SELECT MAX(v.create_time) FROM agent_versions v WHERE v.agent_id = a.id AND v.released = 1) \
     AS release_time";

impl AgentSummary {
    fn from_row(row: &AnyRow) -> Result<AgentSummary, StoreError> {
        Ok(AgentSummary {
            id: text(row, "id")?,
            user_id: text(row, "user_id")?,
            nickname: text(row, "nickname")?,
            title: text(row, "title")?,
            description: opt_text(row, "description")?,
            avatar: opt_text(row, "avatar")?,
            canvas_type: text(row, "canvas_type")?,
            canvas_category: text(row, "canvas_category")?,
            permission: text(row, "permission")?,
            tags: text(row, "tags")?,
            create_time: int(row, "create_time")?,
            update_time: int(row, "update_time")?,
            release_time: sqlx::Row::try_get::<Option<i64>, _>(row, "release_time")?,
        })
    }
}

impl Store {
    pub async fn insert_agent(&self, agent: &NewAgent) -> Result<(), StoreError> {
        let q = self.sql(
            "INSERT INTO agents (id, user_id, title, description, avatar, dsl, canvas_type, \
             canvas_category, permission, tags, create_time, update_time) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)",
        );
        sqlx::query(&q)
            .bind(&agent.id)
            .bind(&agent.user_id)
            .bind(&agent.title)
            .bind(agent.description.clone())
            .bind(agent.avatar.clone())
            .bind(agent.dsl.to_string())
            .bind(&agent.canvas_type)
            .bind(&agent.canvas_category)
            .bind(&agent.permission)
            .bind(agent.create_time)
            .bind(agent.create_time)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Rewrites an agent's fields (the caller merged the update into the stored agent).
    pub async fn update_agent(&self, agent: &NewAgent, now: i64) -> Result<(), StoreError> {
        let q = self.sql(
            "UPDATE agents SET title = ?, description = ?, avatar = ?, dsl = ?, canvas_type = ?, \
             permission = ?, update_time = ? WHERE id = ?",
        );
        sqlx::query(&q)
            .bind(&agent.title)
            .bind(agent.description.clone())
            .bind(agent.avatar.clone())
            .bind(agent.dsl.to_string())
            .bind(&agent.canvas_type)
            .bind(&agent.permission)
            .bind(now)
            .bind(&agent.id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Replaces the DSL of `tenant_id`'s agent `id` (reset).
    pub async fn set_agent_dsl(
        &self,
        tenant_id: &str,
        id: &str,
        dsl: &Value,
        now: i64,
    ) -> Result<(), StoreError> {
        let q = self.sql("UPDATE agents SET dsl = ?, update_time = ? WHERE id = ? AND user_id = ?");
        sqlx::query(&q)
            .bind(dsl.to_string())
            .bind(now)
            .bind(id)
            .bind(tenant_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Replaces an agent's tags (a comma-separated list, normalised by the caller).
    pub async fn set_agent_tags(&self, id: &str, tags: &str) -> Result<(), StoreError> {
        let q = self.sql("UPDATE agents SET tags = ? WHERE id = ?");
        sqlx::query(&q)
            .bind(tags)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The agent `id` if it belongs to `tenant_id`: other tenants' agents do not exist here.
    pub async fn agent(&self, tenant_id: &str, id: &str) -> Result<Option<Agent>, StoreError> {
        Ok(self
            .agent_text(tenant_id, id)
            .await?
            .map(|(summary, dsl)| Agent {
                summary,
                dsl: super::parsed(&dsl),
            }))
    }

    /// [`Store::agent`] with its DSL as stored, for a caller that keeps what it builds from a
    /// DSL by its text and parses it only to build.
    pub async fn agent_text(
        &self,
        tenant_id: &str,
        id: &str,
    ) -> Result<Option<(AgentSummary, String)>, StoreError> {
        self.agent_text_of(Some(tenant_id), id).await
    }

    /// The agent `id` whoever owns it, with its DSL as stored: for the routes that are not
    /// a tenant's (a webhook authenticates by the agent's own security settings).
    pub async fn any_agent_text(
        &self,
        id: &str,
    ) -> Result<Option<(AgentSummary, String)>, StoreError> {
        self.agent_text_of(None, id).await
    }

    async fn agent_text_of(
        &self,
        tenant_id: Option<&str>,
        id: &str,
    ) -> Result<Option<(AgentSummary, String)>, StoreError> {
        let owner = match tenant_id {
            Some(_) => " AND a.user_id = ?",
            None => "",
        };
        let q = format!(
            "SELECT {SUMMARY_COLUMNS}, a.dsl FROM agents a JOIN users u ON u.id = a.user_id \
             WHERE a.id = ?{owner}"
        );
        let q = self.sql(&q);
        let mut query = sqlx::query(&q).bind(id);
        if let Some(tenant_id) = tenant_id {
            query = query.bind(tenant_id);
        }
        let row = query.fetch_optional(&self.pool).await?;
        row.map(|row| Ok((AgentSummary::from_row(&row)?, text(&row, "dsl")?)))
            .transpose()
    }

    /// Whether the agent `id` belongs to `tenant_id`, without reading it.
    pub async fn owns_agent(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError> {
        // Joined as `agent` joins, so both agree on which agents exist.
        let q = self.sql(
            "SELECT a.id FROM agents a JOIN users u ON u.id = a.user_id \
             WHERE a.id = ? AND a.user_id = ?",
        );
        let row = sqlx::query(&q)
            .bind(id)
            .bind(tenant_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// Every agent of `tenant_id`, without DSLs; lists filter and page these in memory.
    pub async fn agents(&self, tenant_id: &str) -> Result<Vec<AgentSummary>, StoreError> {
        let q = format!(
            "SELECT {SUMMARY_COLUMNS} FROM agents a JOIN users u ON u.id = a.user_id \
             WHERE a.user_id = ?"
        );
        let q = self.sql(&q);
        let rows = sqlx::query(&q)
            .bind(tenant_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(AgentSummary::from_row).collect()
    }

    /// Whether `tenant_id` has another agent of `category` titled `title` (case-insensitively).
    pub async fn agent_title_taken(
        &self,
        tenant_id: &str,
        category: &str,
        title: &str,
        except_id: Option<&str>,
    ) -> Result<bool, StoreError> {
        let q = self.sql(
            "SELECT id FROM agents WHERE user_id = ? AND canvas_category = ? AND LOWER(title) = ?",
        );
        let rows = sqlx::query(&q)
            .bind(tenant_id)
            .bind(category)
            .bind(title.to_lowercase())
            .fetch_all(&self.pool)
            .await?;
        for row in &rows {
            if Some(text(row, "id")?.as_str()) != except_id {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Deletes an agent of `tenant_id` with its versions, sessions, their canvases, run logs and uploads;
    /// `false` when it had none such.
    pub async fn delete_agent(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let q = self.sql("DELETE FROM agents WHERE id = ? AND user_id = ?");
        let deleted = sqlx::query(&q)
            .bind(id)
            .bind(tenant_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if deleted > 0 {
            // Uploads attached to its sessions (wherever uploaded), then those uploaded to it.
            let q = self.sql(super::files::DELETE_FILES_OF_AGENT_SESSIONS);
            sqlx::query(&q).bind(id).execute(&mut *tx).await?;
            for table in [
                "uploaded_files",
                "agent_versions",
                "agent_sessions",
                "canvases",
                "run_logs",
            ] {
                let q = format!("DELETE FROM {table} WHERE agent_id = ?");
                let q = self.sql(&q);
                sqlx::query(&q).bind(id).execute(&mut *tx).await?;
            }
        }
        tx.commit().await?;
        Ok(deleted > 0)
    }
}
