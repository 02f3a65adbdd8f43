//! The durable run records of a server coordinated in process (no Redis; with Redis, Redis
//! holds them): each run's record from its start, and its last checkpoint. A crash then leaves
//! the run's trace, and `resume_from` finds its checkpoint after a restart.

use super::group::job;
use super::{int, opt_text, text, Store, StoreError};

/// One run's row; `status` is the coordinator's word (`running`, `failed`, …).
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    pub run_id: String,
    pub session_id: String,
    pub canvas_id: String,
    pub tenant_id: String,
    pub mode: String,
    pub status: String,
    pub failure_reason: String,
    pub user_message: String,
    pub started_at: i64,
    pub finished_at: i64,
}

const COLUMNS: &str = "run_id, session_id, canvas_id, tenant_id, mode, status, failure_reason, \
     user_message, started_at, finished_at";

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

impl RunRow {
    /// Binds every field, `run_id` last (the order `put_run`'s statements name them in).
    fn bind<'q>(&'q self, query: AnyQuery<'q>) -> AnyQuery<'q> {
        query
            .bind(&self.session_id)
            .bind(&self.canvas_id)
            .bind(&self.tenant_id)
            .bind(&self.mode)
            .bind(&self.status)
            .bind(&self.failure_reason)
            .bind(&self.user_message)
            .bind(self.started_at)
            .bind(self.finished_at)
            .bind(&self.run_id)
    }

    fn from_row(row: &sqlx::any::AnyRow) -> Result<RunRow, StoreError> {
        Ok(RunRow {
            run_id: text(row, "run_id")?,
            session_id: text(row, "session_id")?,
            canvas_id: text(row, "canvas_id")?,
            tenant_id: text(row, "tenant_id")?,
            mode: text(row, "mode")?,
            status: text(row, "status")?,
            failure_reason: text(row, "failure_reason")?,
            user_message: text(row, "user_message")?,
            started_at: int(row, "started_at")?,
            finished_at: int(row, "finished_at")?,
        })
    }
}

impl Store {
    /// Writes a run's record (a resumed run keeps its id: its row is updated, its checkpoint
    /// kept). `drop_checkpoint`: the run ended with nothing left to resume.
    pub async fn put_run(&self, run: &RunRow, drop_checkpoint: bool) -> Result<(), StoreError> {
        let (store, run) = (self.clone(), run.clone());
        self.write(job(move |conn| {
            Box::pin(async move {
                let q = store.sql(
                    "UPDATE runs SET session_id = ?, canvas_id = ?, tenant_id = ?, mode = ?, \
                     status = ?, failure_reason = ?, user_message = ?, started_at = ?, \
                     finished_at = ? WHERE run_id = ?",
                );
                let updated = run.bind(sqlx::query(&q)).execute(&mut *conn).await?;
                if updated.rows_affected() == 0 {
                    // The same values in the same order, `run_id` last.
                    let q = store.sql(
                        "INSERT INTO runs (session_id, canvas_id, tenant_id, mode, status, \
                         failure_reason, user_message, started_at, finished_at, run_id) \
                         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    );
                    run.bind(sqlx::query(&q)).execute(&mut *conn).await?;
                }
                if drop_checkpoint {
                    let q = store.sql("UPDATE runs SET checkpoint = NULL WHERE run_id = ?");
                    sqlx::query(&q)
                        .bind(&run.run_id)
                        .execute(&mut *conn)
                        .await?;
                }
                Ok(())
            })
        }))
        .await
    }

    /// A run's record, if kept.
    pub async fn run(&self, run_id: &str) -> Result<Option<RunRow>, StoreError> {
        let q = format!("SELECT {COLUMNS} FROM runs WHERE run_id = ?");
        let q = self.sql(&q);
        let row = sqlx::query(&q)
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(RunRow::from_row).transpose()
    }

    /// Replaces a run's checkpoint (the run's record was written when it started).
    pub async fn put_checkpoint(&self, run_id: &str, checkpoint: &str) -> Result<(), StoreError> {
        let (store, run_id, checkpoint) =
            (self.clone(), run_id.to_string(), checkpoint.to_string());
        self.write(job(move |conn| {
            Box::pin(async move {
                let q = store.sql("UPDATE runs SET checkpoint = ? WHERE run_id = ?");
                sqlx::query(&q)
                    .bind(checkpoint)
                    .bind(run_id)
                    .execute(conn)
                    .await?;
                Ok(())
            })
        }))
        .await
    }

    /// A run's last checkpoint, if kept.
    pub async fn checkpoint(&self, run_id: &str) -> Result<Option<String>, StoreError> {
        let q = self.sql("SELECT checkpoint FROM runs WHERE run_id = ?");
        let row = sqlx::query(&q)
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row
            .as_ref()
            .map(|row| opt_text(row, "checkpoint"))
            .transpose()?
            .flatten())
    }

    /// The id of the session's latest run.
    pub async fn last_run(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        let q = self.sql(
            "SELECT run_id FROM runs WHERE session_id = ? \
             ORDER BY started_at DESC, run_id DESC LIMIT 1",
        );
        let row = sqlx::query(&q)
            .bind(session_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(|row| text(row, "run_id")).transpose()
    }

    /// The runs recorded as running: after a restart of a server that is the only one on its
    /// database, runs its previous process left behind.
    pub async fn running_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let q = format!("SELECT {COLUMNS} FROM runs WHERE status = 'running'");
        let q = self.sql(&q);
        let rows = sqlx::query(&q).fetch_all(&self.pool).await?;
        rows.iter().map(RunRow::from_row).collect()
    }

    /// Drops the records of runs started before `before` (epoch ms), as Redis expires them.
    pub async fn expire_runs(&self, before: i64) -> Result<u64, StoreError> {
        let q = self.sql("DELETE FROM runs WHERE started_at < ?");
        let done = sqlx::query(&q).bind(before).execute(&self.pool).await?;
        Ok(done.rows_affected())
    }
}
