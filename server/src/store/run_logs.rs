//! Run logs: the component trace of one run, kept for the run-log endpoint, and which program
//! ran it (compiled or interpreted).

use serde_json::Value;

use super::{json, text, Store, StoreError};

#[derive(Clone, Debug)]
pub struct RunLog {
    pub message_id: String,
    pub agent_id: String,
    pub tenant_id: String,
    pub session_id: String,
    /// `compiled` or `interpreted`.
    pub program: String,
    /// The trace's JSON text.
    pub trace: String,
    pub create_time: i64,
}

impl Store {
    pub async fn insert_run_log(&self, log: &RunLog) -> Result<(), StoreError> {
        let q = self.sql(
            "INSERT INTO run_logs (message_id, agent_id, tenant_id, session_id, program, trace, \
             create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
        );
        sqlx::query(&q)
            .bind(&log.message_id)
            .bind(&log.agent_id)
            .bind(&log.tenant_id)
            .bind(&log.session_id)
            .bind(&log.program)
            .bind(&log.trace)
            .bind(log.create_time)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The trace of run `message_id` of `tenant_id`'s agent `agent_id`, if recorded at or after
    /// `since` (older logs have expired).
    pub async fn run_trace(
        &self,
        tenant_id: &str,
        agent_id: &str,
        message_id: &str,
        since: i64,
    ) -> Result<Option<(String, Value)>, StoreError> {
        let q = self.sql(
            "SELECT program, trace FROM run_logs WHERE message_id = ? AND agent_id = ? \
             AND tenant_id = ? AND create_time >= ?",
        );
        let row = sqlx::query(&q)
            .bind(message_id)
            .bind(agent_id)
            .bind(tenant_id)
            .bind(since)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| Ok((text(&row, "program")?, json(&row, "trace")?)))
            .transpose()
    }
}
