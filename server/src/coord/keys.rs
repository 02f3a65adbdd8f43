//! The Redis names, RAGFlow's where RAGFlow has one. A prefix (empty in production) lets
//! several deployments, or parallel tests, share one Redis without meeting.

/// Key and channel names under one prefix.
#[derive(Clone, Debug, Default)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    pub fn new(prefix: &str) -> Keys {
        Keys {
            prefix: prefix.to_string(),
        }
    }

    /// RAGFlow's cancel flag: `{task_id}-cancel` (`api/db/services/task_service.py`).
    pub fn cancel(&self, task_id: &str) -> String {
        format!("{}{task_id}-cancel", self.prefix)
    }

    /// The lease of the replica running a session.
    pub fn lease(&self, session: &str) -> String {
        format!("{}agent:active-session:{session}", self.prefix)
    }

    /// A run's record (a hash).
    pub fn run(&self, run_id: &str) -> String {
        format!("{}agent:run:{run_id}", self.prefix)
    }

    /// A run's last checkpoint (the session at a batch boundary, JSON).
    pub fn checkpoint(&self, run_id: &str) -> String {
        format!("{}agent:cp:{run_id}", self.prefix)
    }

    /// The session's latest run id: where the session's next request looks for an orphaned run.
    pub fn session_run(&self, session: &str) -> String {
        format!("{}agent:session-run:{session}", self.prefix)
    }

    /// The pub/sub channel cancel notices go through; the message is the task id.
    pub fn cancel_channel(&self) -> String {
        format!("{}agent:cancel", self.prefix)
    }

    /// A tenant's running runs (a sorted set of slots scored by when each expires).
    pub fn quota_running(&self, tenant: &str) -> String {
        format!("{}agent:quota:running:{tenant}", self.prefix)
    }

    /// The runs a tenant started in one clock minute (`minute`: minutes since the epoch).
    pub fn quota_minute(&self, tenant: &str, minute: i64) -> String {
        format!("{}agent:quota:runs:{tenant}:{minute}", self.prefix)
    }

    /// The model tokens a tenant used on one UTC day (`day`: `2026-11-29`).
    pub fn quota_tokens(&self, tenant: &str, day: &str) -> String {
        format!("{}agent:quota:tokens:{tenant}:{day}", self.prefix)
    }

    /// RAGFlow's webhook rate limit bucket of a canvas (`rl:tb:{canvas_id}`).
    pub fn webhook_bucket(&self, canvas_id: &str) -> String {
        format!("{}rl:tb:{canvas_id}", self.prefix)
    }

    /// The webhook test runs of an agent that its editor polls: a hash of runs by start time,
    /// so two runs never write the same value. RAGFlow keeps them as one JSON string under
    /// `webhook-trace-{agent_id}-logs`; another name, so the two never meet on one Redis.
    pub fn webhook_trace(&self, agent_id: &str) -> String {
        format!("{}agent:webhook-trace:{agent_id}", self.prefix)
    }

    /// A run's kept event stream (a Redis stream; `coord/streams`).
    pub fn run_events(&self, run_id: &str) -> String {
        format!("{}agent:run-events:{run_id}", self.prefix)
    }

    /// The requests waiting for a busy session (`multitask_strategy`): a sorted set of tickets
    /// by rank, and a hash of how long each waiter is alive.
    pub fn session_queue(&self, session: &str) -> (String, String) {
        (
            format!("{}agent:session-queue:{session}", self.prefix),
            format!("{}agent:session-queue-alive:{session}", self.prefix),
        )
    }

    /// The lease token of a session's run whose turn is discarded when it ends
    /// (`multitask_strategy: rollback`).
    pub fn rollback(&self, session: &str) -> String {
        format!("{}agent:rollback:{session}", self.prefix)
    }

    /// Which attempt of a run its kept stream holds (a resumed run writes a new one).
    pub fn run_attempt(&self, run_id: &str) -> String {
        format!("{}agent:run-events:{run_id}:attempt", self.prefix)
    }
}
