//! A run's record (`agent:run:{run_id}`): what ran where, and how it ended. The Redis hash
//! and the in-process map hold the same fields.

use std::collections::BTreeMap;

use crate::store::RunRow;

/// How a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    /// Paused on a UserFillUp: the next turn continues it.
    Waiting,
    /// Cancelled for a message sent with `multitask_strategy: rollback`; its turn was
    /// discarded.
    RolledBack,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Waiting => "waiting",
            RunStatus::RolledBack => "rolled_back",
        }
    }

    /// Whether `resume_from` may go on from the run's checkpoint: a finished, waiting or rolled back run
    /// has nothing to resume, so its checkpoint is dropped when it ends.
    pub fn resumable(self) -> bool {
        !matches!(
            self,
            RunStatus::Succeeded | RunStatus::Waiting | RunStatus::RolledBack
        )
    }

    pub fn parse(text: &str) -> Option<RunStatus> {
        Some(match text {
            "running" => RunStatus::Running,
            "succeeded" => RunStatus::Succeeded,
            "failed" => RunStatus::Failed,
            "cancelled" => RunStatus::Cancelled,
            "waiting" => RunStatus::Waiting,
            "rolled_back" => RunStatus::RolledBack,
            _ => return None,
        })
    }
}

/// One run. Times are epoch milliseconds; `finished_at` is 0 and `failure_reason` empty
/// while the run goes on.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub canvas_id: String,
    pub tenant_id: String,
    pub session_id: String,
    /// `compiled` or `interpreted`.
    pub mode: String,
    pub status: RunStatus,
    pub failure_reason: String,
    pub started_at: i64,
    pub finished_at: i64,
    /// The run's user message (JSON text; empty when not known): what a run interrupted
    /// before it saved its turn puts back into the session.
    pub user_message: String,
}

impl RunRecord {
    /// The hash's fields, in a stable order.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("canvas_id", self.canvas_id.clone()),
            ("tenant_id", self.tenant_id.clone()),
            ("session_id", self.session_id.clone()),
            ("mode", self.mode.clone()),
            ("status", self.status.as_str().to_string()),
            ("failure_reason", self.failure_reason.clone()),
            ("started_at", self.started_at.to_string()),
            ("finished_at", self.finished_at.to_string()),
            ("user_message", self.user_message.clone()),
        ]
    }

    /// Reads a hash back; `None` for an empty hash (no record) or an unknown status.
    pub fn from_fields(fields: &BTreeMap<String, String>) -> Option<RunRecord> {
        let text = |name: &str| fields.get(name).cloned().unwrap_or_default();
        let time = |name: &str| fields.get(name).and_then(|t| t.parse().ok()).unwrap_or(0);
        Some(RunRecord {
            canvas_id: text("canvas_id"),
            tenant_id: text("tenant_id"),
            session_id: text("session_id"),
            mode: text("mode"),
            status: RunStatus::parse(fields.get("status")?)?,
            failure_reason: text("failure_reason"),
            started_at: time("started_at"),
            finished_at: time("finished_at"),
            user_message: text("user_message"),
        })
    }
}

impl RunRecord {
    /// An empty record, for a value taken out of its place.
    pub(crate) fn placeholder() -> RunRecord {
        RunRecord {
            canvas_id: String::new(),
            tenant_id: String::new(),
            session_id: String::new(),
            mode: String::new(),
            status: RunStatus::Running,
            failure_reason: String::new(),
            started_at: 0,
            finished_at: 0,
            user_message: String::new(),
        }
    }

    /// The row the in-process coordinator keeps in the database.
    pub(crate) fn to_row(&self, run_id: &str) -> RunRow {
        RunRow {
            run_id: run_id.to_string(),
            session_id: self.session_id.clone(),
            canvas_id: self.canvas_id.clone(),
            tenant_id: self.tenant_id.clone(),
            mode: self.mode.clone(),
            status: self.status.as_str().to_string(),
            failure_reason: self.failure_reason.clone(),
            user_message: self.user_message.clone(),
            started_at: self.started_at,
            finished_at: self.finished_at,
        }
    }

    /// Reads a row back; `None` for an unknown status.
    pub(crate) fn from_row(row: RunRow) -> Option<RunRecord> {
        Some(RunRecord {
            status: RunStatus::parse(&row.status)?,
            canvas_id: row.canvas_id,
            tenant_id: row.tenant_id,
            session_id: row.session_id,
            mode: row.mode,
            failure_reason: row.failure_reason,
            started_at: row.started_at,
            finished_at: row.finished_at,
            user_message: row.user_message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_from_its_fields() {
        let record = RunRecord {
            canvas_id: "c".into(),
            tenant_id: "t".into(),
            session_id: "s".into(),
            mode: "interpreted".into(),
            status: RunStatus::Waiting,
            failure_reason: String::new(),
            started_at: 5,
            finished_at: 0,
            user_message: r#"{"role":"user"}"#.into(),
        };
        let fields = record
            .fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(RunRecord::from_fields(&fields), Some(record));
        assert_eq!(RunRecord::from_fields(&BTreeMap::new()), None);
    }
}
