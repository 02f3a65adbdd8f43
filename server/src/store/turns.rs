//! A finished turn's writes: the session's new state (DSL patch, transcript, references, counters)
//! and the run's log, in one transaction, so a crash never leaves half a turn stored.

use serde_json::Value;

use super::group::job;
use super::{json, text, RunLog, Store, StoreError};

impl Store {
    /// Stores one turn: `state` replaces the session's, `log` is the run's trace. `fence` is
    /// the lease token the run was started under: when another run has claimed the session
    /// since ([`Store::fence_session`]), nothing is written and the save is refused, so a
    /// replica that lost its lease never saves over the newer run's turn.
    pub async fn save_turn(
        &self,
        session_id: &str,
        fence: &str,
        state: &Value,
        log: &RunLog,
    ) -> Result<(), StoreError> {
        let (store, session_id, fence, state, log) = (
            self.clone(),
            session_id.to_string(),
            fence.to_string(),
            self.stored_state(state).await?,
            log.clone(),
        );
        self.write(job(move |conn| {
            Box::pin(async move {
                store
                    .save_turn_in(conn, &session_id, &fence, state, &log)
                    .await
            })
        }))
        .await
    }

    /// [`Store::save_turn`]'s statements, in the transaction `conn` is in.
    async fn save_turn_in(
        &self,
        conn: &mut sqlx::AnyConnection,
        session_id: &str,
        fence: &str,
        state: String,
        log: &RunLog,
    ) -> Result<(), StoreError> {
        let q = self.sql(
            "UPDATE agent_sessions SET state = ?, update_time = ? WHERE id = ? AND lease_token = ?",
        );
        let updated = sqlx::query(&q)
            .bind(state)
            .bind(log.create_time)
            .bind(session_id)
            .bind(fence)
            .execute(&mut *conn)
            .await?;
        if updated.rows_affected() == 0 {
            let q = self.sql("SELECT lease_token FROM agent_sessions WHERE id = ?");
            let row = sqlx::query(&q)
                .bind(session_id)
                .fetch_optional(&mut *conn)
                .await?;
            return Err(match row {
                Some(_) => StoreError::fenced(session_id),
                None => StoreError::missing(&format!("session {session_id}")),
            });
        }
        // A resumed run keeps its `message_id`: its log is the one the run's earlier part
        // stored, continued.
        let q = self.sql("SELECT trace FROM run_logs WHERE message_id = ?");
        let earlier = sqlx::query(&q)
            .bind(&log.message_id)
            .fetch_optional(&mut *conn)
            .await?;
        let q = match earlier {
            Some(row) => {
                let later = serde_json::from_str(&log.trace).unwrap_or_default();
                let trace = continued_trace(json(&row, "trace")?, &later);
                let q = self.sql(
                    "UPDATE run_logs SET program = ?, trace = ?, create_time = ? \
                     WHERE message_id = ?",
                );
                sqlx::query(&q)
                    .bind(&log.program)
                    .bind(trace.to_string())
                    .bind(log.create_time)
                    .bind(&log.message_id)
                    .execute(&mut *conn)
                    .await?;
                None
            }
            None => Some(self.sql(
                "INSERT INTO run_logs (message_id, agent_id, tenant_id, session_id, program, \
                 trace, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            )),
        };
        if let Some(q) = q {
            sqlx::query(&q)
                .bind(&log.message_id)
                .bind(&log.agent_id)
                .bind(&log.tenant_id)
                .bind(&log.session_id)
                .bind(&log.program)
                .bind(&log.trace)
                .bind(log.create_time)
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }

    /// Makes `token` (the lease a run now holds) the session's fencing token: saves of runs
    /// started under an earlier lease are refused from now on. `false` when the session is gone.
    pub async fn fence_session(&self, session_id: &str, token: &str) -> Result<bool, StoreError> {
        let q = self.sql("UPDATE agent_sessions SET lease_token = ? WHERE id = ?");
        let updated = sqlx::query(&q)
            .bind(token)
            .bind(session_id)
            .execute(&self.pool)
            .await?;
        Ok(updated.rows_affected() > 0)
    }

    /// The agent and the tenant a session belongs to, whichever agent it is on.
    pub async fn session_owner(&self, id: &str) -> Result<Option<(String, String)>, StoreError> {
        let q = self.sql("SELECT agent_id, tenant_id FROM agent_sessions WHERE id = ?");
        let row = sqlx::query(&q).bind(id).fetch_optional(&self.pool).await?;
        row.map(|row| Ok((text(&row, "agent_id")?, text(&row, "tenant_id")?)))
            .transpose()
    }
}

/// The trace of a run that went on after an earlier part was logged (`[{"component_id",
/// "trace": [...]}]`): each component's new invocations after its earlier ones, components
/// new to the run after the earlier ones, so the log shows the run as it happened.
fn continued_trace(earlier: Value, later: &Value) -> Value {
    let Value::Array(mut entries) = earlier else {
        return later.clone();
    };
    for entry in later.as_array().into_iter().flatten() {
        let calls = entry["trace"].as_array().cloned().unwrap_or_default();
        match entries
            .iter_mut()
            .find(|e| e["component_id"] == entry["component_id"])
        {
            Some(Value::Object(known)) => match known.get_mut("trace") {
                Some(Value::Array(list)) => list.extend(calls),
                _ => {
                    known.insert("trace".into(), Value::from(calls));
                }
            },
            _ => entries.push(entry.clone()),
        }
    }
    Value::Array(entries)
}

#[cfg(test)]
mod tests {
    use super::continued_trace;
    use serde_json::json;

    #[test]
    fn a_resumed_runs_trace_continues_the_earlier_one_by_component() {
        let earlier = json!([
            {"component_id": "begin", "trace": [{"n": 1}]},
            {"component_id": "LLM:A", "trace": [{"n": 2}]},
        ]);
        let later = json!([
            {"component_id": "LLM:A", "trace": [{"n": 3}]},
            {"component_id": "Message:Out", "trace": [{"n": 4}]},
        ]);
        assert_eq!(
            continued_trace(earlier, &later),
            json!([
                {"component_id": "begin", "trace": [{"n": 1}]},
                {"component_id": "LLM:A", "trace": [{"n": 2}, {"n": 3}]},
                {"component_id": "Message:Out", "trace": [{"n": 4}]},
            ])
        );
        assert_eq!(continued_trace(json!(null), &later), later);
    }
}
