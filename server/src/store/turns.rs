//! A finished turn's writes: the session's new state (DSL, transcript, references, counters)
//! and the run's log, in one transaction, so a crash never leaves half a turn stored.

use serde_json::Value;

use super::{text, RunLog, Store, StoreError};

impl Store {
    /// Stores one turn: `state` replaces the session's, `log` is the run's trace.
    pub async fn save_turn(
        &self,
        session_id: &str,
        state: &Value,
        log: &RunLog,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        let q = self.sql("UPDATE agent_sessions SET state = ?, update_time = ? WHERE id = ?");
        sqlx::query(&q)
            .bind(state.to_string())
            .bind(log.create_time)
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
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
            .bind(log.trace.to_string())
            .bind(log.create_time)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The agent and the tenant a session belongs to, whichever agent it is on.
    pub async fn session_owner(&self, id: &str) -> Result<Option<(String, String)>, StoreError> {
        let q = self.sql("SELECT agent_id, tenant_id FROM agent_sessions WHERE id = ?");
        let row = sqlx::query(&q).bind(id).fetch_optional(&self.pool).await?;
        row.map(|row| Ok((text(&row, "agent_id")?, text(&row, "tenant_id")?)))
            .transpose()
    }
}
