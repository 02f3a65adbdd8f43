//! Program builds: one per program key (a released canvas's fingerprint and the engine
//! version), queued when a version is released, claimed by one replica under a lease, and
//! ended `compiled` or `failed`. The table is the queue: any replica may claim a queued build
//! or one whose builder's lease ran out.

use sqlx::any::AnyRow;

use super::{int, opt_text, text, Store, StoreError};

/// Where a program build stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildState {
    Queued,
    Building,
    Compiled,
    Failed,
}

impl BuildState {
    pub fn as_str(self) -> &'static str {
        match self {
            BuildState::Queued => "queued",
            BuildState::Building => "building",
            BuildState::Compiled => "compiled",
            BuildState::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Result<BuildState, StoreError> {
        Ok(match text {
            "queued" => BuildState::Queued,
            "building" => BuildState::Building,
            "compiled" => BuildState::Compiled,
            "failed" => BuildState::Failed,
            other => {
                return Err(StoreError::public(format!(
                    "storage: a program build has the unknown state `{other}`"
                )))
            }
        })
    }
}

/// A build as the API shows it.
#[derive(Clone, Debug)]
pub struct BuildStatus {
    pub program_key: String,
    pub state: BuildState,
    /// The first line of why it failed.
    pub error: Option<String>,
    pub attempts: i64,
    pub queued_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

/// A build a replica claimed.
#[derive(Clone, Debug)]
pub struct BuildJob {
    pub program_key: String,
    pub fingerprint: String,
    /// The released canvas to compile.
    pub dsl: String,
}

const STATUS_COLUMNS: &str =
    "program_key, state, error, attempts, queued_at, started_at, finished_at";

impl BuildStatus {
    fn from_row(row: &AnyRow) -> Result<BuildStatus, StoreError> {
        Ok(BuildStatus {
            program_key: text(row, "program_key")?,
            state: BuildState::parse(&text(row, "state")?)?,
            error: opt_text(row, "error")?,
            attempts: int(row, "attempts")?,
            queued_at: int(row, "queued_at")?,
            started_at: opt_int(row, "started_at")?,
            finished_at: opt_int(row, "finished_at")?,
        })
    }
}

fn opt_int(row: &AnyRow, column: &str) -> Result<Option<i64>, StoreError> {
    use sqlx::Row;
    row.try_get::<Option<i64>, _>(column)
        .map_err(|e| StoreError::public(format!("storage: column {column}: {e}")))
}

impl Store {
    /// Queues the build of `program_key` unless it is known already (queued, building, built
    /// or failed: a failed one is retried on request, not by every release). Names it as the
    /// program of `version_id`.
    pub async fn queue_build(
        &self,
        version_id: &str,
        program_key: &str,
        fingerprint: &str,
        dsl: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        let q = self.sql("SELECT program_key FROM program_builds WHERE program_key = ?");
        let known = sqlx::query(&q)
            .bind(program_key)
            .fetch_optional(&mut *tx)
            .await?
            .is_some();
        if !known {
            let q = self.sql(
                "INSERT INTO program_builds (program_key, fingerprint, dsl, state, attempts, \
                 queued_at) VALUES (?, ?, ?, 'queued', 0, ?)",
            );
            sqlx::query(&q)
                .bind(program_key)
                .bind(fingerprint)
                .bind(dsl)
                .bind(now)
                .execute(&mut *tx)
                .await?;
        }
        let q = self.sql("UPDATE agent_versions SET program_key = ? WHERE id = ?");
        sqlx::query(&q)
            .bind(program_key)
            .bind(version_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Claims the oldest build waiting (queued, or building under a lease that ran out) for
    /// `owner` until `lease_until`; `None` when none waits or another replica won it.
    pub async fn claim_build(
        &self,
        owner: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<BuildJob>, StoreError> {
        let q = self.sql(
            "SELECT program_key FROM program_builds WHERE state = 'queued' \
             OR (state = 'building' AND lease_until < ?) ORDER BY queued_at, program_key LIMIT 1",
        );
        let Some(row) = sqlx::query(&q).bind(now).fetch_optional(&self.pool).await? else {
            return Ok(None);
        };
        let key = text(&row, "program_key")?;
        // The update is the claim: it matches only while the build still waits.
        let q = self.sql(
            "UPDATE program_builds SET state = 'building', owner = ?, lease_until = ?, \
             attempts = attempts + 1, started_at = ?, error = NULL \
             WHERE program_key = ? AND (state = 'queued' OR (state = 'building' AND lease_until < ?))",
        );
        let claimed = sqlx::query(&q)
            .bind(owner)
            .bind(lease_until)
            .bind(now)
            .bind(&key)
            .bind(now)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if claimed == 0 {
            return Ok(None);
        }
        let q = self
            .sql("SELECT program_key, fingerprint, dsl FROM program_builds WHERE program_key = ?");
        let row = sqlx::query(&q).bind(&key).fetch_one(&self.pool).await?;
        Ok(Some(BuildJob {
            program_key: text(&row, "program_key")?,
            fingerprint: text(&row, "fingerprint")?,
            dsl: text(&row, "dsl")?,
        }))
    }

    /// Extends `owner`'s lease on a build; false when the build is no longer its own.
    pub async fn renew_build(
        &self,
        program_key: &str,
        owner: &str,
        lease_until: i64,
    ) -> Result<bool, StoreError> {
        let q = self.sql(
            "UPDATE program_builds SET lease_until = ? \
             WHERE program_key = ? AND owner = ? AND state = 'building'",
        );
        let n = sqlx::query(&q)
            .bind(lease_until)
            .bind(program_key)
            .bind(owner)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    /// Ends `owner`'s build: compiled, or failed with `error`; the log is kept either way.
    pub async fn finish_build(
        &self,
        program_key: &str,
        owner: &str,
        outcome: Result<(), String>,
        log: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let (state, error) = match outcome {
            Ok(()) => (BuildState::Compiled, None),
            Err(e) => (BuildState::Failed, Some(e)),
        };
        let q = self.sql(
            "UPDATE program_builds SET state = ?, error = ?, log = ?, finished_at = ?, \
             lease_until = NULL WHERE program_key = ? AND owner = ? AND state = 'building'",
        );
        let n = sqlx::query(&q)
            .bind(state.as_str())
            .bind(error)
            .bind(log)
            .bind(now)
            .bind(program_key)
            .bind(owner)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    /// Fails a build still queued: nobody here can build it (`why`).
    pub async fn fail_queued_build(
        &self,
        program_key: &str,
        why: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let q = self.sql(
            "UPDATE program_builds SET state = 'failed', error = ?, finished_at = ? \
             WHERE program_key = ? AND state = 'queued'",
        );
        sqlx::query(&q)
            .bind(why)
            .bind(now)
            .bind(program_key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Queues a failed build again.
    pub async fn retry_build(&self, program_key: &str, now: i64) -> Result<bool, StoreError> {
        let q = self.sql(
            "UPDATE program_builds SET state = 'queued', queued_at = ?, error = NULL, \
             owner = NULL, lease_until = NULL, started_at = NULL, finished_at = NULL \
             WHERE program_key = ? AND state = 'failed'",
        );
        let n = sqlx::query(&q)
            .bind(now)
            .bind(program_key)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(n > 0)
    }

    /// The build of `program_key`.
    pub async fn build_status(&self, program_key: &str) -> Result<Option<BuildStatus>, StoreError> {
        let q = format!("SELECT {STATUS_COLUMNS} FROM program_builds WHERE program_key = ?");
        let q = self.sql(&q);
        let row = sqlx::query(&q)
            .bind(program_key)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(BuildStatus::from_row).transpose()
    }

    /// The build log of `program_key` (`None`: no such build, or it has not ended).
    pub async fn build_log(&self, program_key: &str) -> Result<Option<String>, StoreError> {
        let q = self.sql("SELECT log FROM program_builds WHERE program_key = ?");
        let row = sqlx::query(&q)
            .bind(program_key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| opt_text(&row, "log")).transpose()?.flatten())
    }
}
