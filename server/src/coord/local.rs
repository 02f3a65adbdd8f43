//! The in-process backend (one replica, no Redis): the same leases, cancel flags and run
//! records as the Redis keys, with their expiries, in maps. A cancel request reaches the run
//! through the registry directly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use futures::future::BoxFuture;
use futures::FutureExt;

use super::registry::Registry;
use super::{
    Backend, CoordResult, RunRecord, CANCEL_TTL, CHECKPOINT_TTL, LEASE_TTL, RUN_RECORD_TTL,
};

#[derive(Default)]
struct Maps {
    /// session → (token, expiry)
    leases: HashMap<String, (String, Instant)>,
    /// task id → expiry
    cancels: HashMap<String, Instant>,
    /// run id → (record, expiry)
    runs: HashMap<String, (RunRecord, Instant)>,
    /// run id → (checkpoint, expiry)
    checkpoints: HashMap<String, (String, Instant)>,
    /// session → (latest run id, expiry)
    session_runs: HashMap<String, (String, Instant)>,
    /// When [`Maps::expire`] last swept.
    swept: Option<Instant>,
}

/// Expired entries are swept at most this often: a sweep walks every map, and reads check
/// expiries themselves, so sweeping on every write would cost a walk per run start.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

impl Maps {
    /// Drops what has expired, so the maps stay as small as Redis would keep them.
    fn expire(&mut self, now: Instant) {
        if self
            .swept
            .is_some_and(|at| now.duration_since(at) < SWEEP_EVERY)
        {
            return;
        }
        self.swept = Some(now);
        self.leases.retain(|_, (_, until)| *until > now);
        self.cancels.retain(|_, until| *until > now);
        self.runs.retain(|_, (_, until)| *until > now);
        self.checkpoints.retain(|_, (_, until)| *until > now);
        self.session_runs.retain(|_, (_, until)| *until > now);
    }

    fn holder(&self, session: &str, now: Instant) -> Option<&str> {
        self.leases
            .get(session)
            .filter(|(_, until)| *until > now)
            .map(|(token, _)| token.as_str())
    }
}

pub(crate) struct Local {
    maps: Mutex<Maps>,
    runs: Arc<Registry>,
}

impl Local {
    pub fn new(runs: Arc<Registry>) -> Local {
        Local {
            maps: Mutex::default(),
            runs,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Maps> {
        self.maps.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Backend for Local {
    fn acquire<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        maps.expire(now);
        let taken = match maps.holder(session, now) {
            Some(holder) if holder != token => false,
            _ => {
                maps.leases
                    .insert(session.to_string(), (token.to_string(), now + LEASE_TTL));
                maps.cancels.remove(session);
                true
            }
        };
        futures::future::ready(Ok(taken)).boxed()
    }

    fn refresh<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        let held = match maps.holder(session, now) {
            Some(holder) if holder != token => false,
            _ => {
                maps.leases
                    .insert(session.to_string(), (token.to_string(), now + LEASE_TTL));
                true
            }
        };
        futures::future::ready(Ok(held)).boxed()
    }

    fn release<'a>(&'a self, session: &'a str, token: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let now = Instant::now();
        let mut maps = self.lock();
        let held = maps.holder(session, now) == Some(token);
        if held {
            maps.leases.remove(session);
        }
        futures::future::ready(Ok(held)).boxed()
    }

    fn is_held<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<bool>> {
        let held = self.lock().holder(session, Instant::now()).is_some();
        futures::future::ready(Ok(held)).boxed()
    }

    fn request_cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        {
            let mut maps = self.lock();
            maps.expire(now);
            maps.cancels.insert(task_id.to_string(), now + CANCEL_TTL);
        }
        self.runs.cancel(task_id);
        futures::future::ready(Ok(())).boxed()
    }

    fn cancel_requested<'a>(
        &'a self,
        task_ids: &'a [String],
    ) -> BoxFuture<'a, CoordResult<Vec<bool>>> {
        let now = Instant::now();
        let maps = self.lock();
        let flags = task_ids
            .iter()
            .map(|id| maps.cancels.get(id).is_some_and(|until| *until > now))
            .collect();
        futures::future::ready(Ok(flags)).boxed()
    }

    fn put_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
    ) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        let mut maps = self.lock();
        maps.expire(now);
        maps.runs
            .insert(run_id.to_string(), (record.clone(), now + RUN_RECORD_TTL));
        maps.session_runs.insert(
            record.session_id.clone(),
            (run_id.to_string(), now + RUN_RECORD_TTL),
        );
        futures::future::ready(Ok(())).boxed()
    }

    fn finish_run<'a>(
        &'a self,
        run_id: &'a str,
        record: &'a RunRecord,
        token: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        let mut maps = self.lock();
        maps.runs
            .insert(run_id.to_string(), (record.clone(), now + RUN_RECORD_TTL));
        if !record.status.resumable() {
            maps.checkpoints.remove(run_id);
        }
        if maps.holder(&record.session_id, now) == Some(token) {
            maps.leases.remove(&record.session_id);
        }
        futures::future::ready(Ok(())).boxed()
    }

    fn run<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<RunRecord>>> {
        let now = Instant::now();
        let record = self
            .lock()
            .runs
            .get(run_id)
            .filter(|(_, until)| *until > now)
            .map(|(record, _)| record.clone());
        futures::future::ready(Ok(record)).boxed()
    }

    fn put_checkpoint<'a>(
        &'a self,
        run_id: &'a str,
        checkpoint: &'a str,
    ) -> BoxFuture<'a, CoordResult<()>> {
        let now = Instant::now();
        let mut maps = self.lock();
        maps.expire(now);
        maps.checkpoints.insert(
            run_id.to_string(),
            (checkpoint.to_string(), now + CHECKPOINT_TTL),
        );
        futures::future::ready(Ok(())).boxed()
    }

    fn checkpoint<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        let now = Instant::now();
        let found = self
            .lock()
            .checkpoints
            .get(run_id)
            .filter(|(_, until)| *until > now)
            .map(|(cp, _)| cp.clone());
        futures::future::ready(Ok(found)).boxed()
    }

    fn last_run<'a>(&'a self, session: &'a str) -> BoxFuture<'a, CoordResult<Option<String>>> {
        let now = Instant::now();
        let found = self
            .lock()
            .session_runs
            .get(session)
            .filter(|(_, until)| *until > now)
            .map(|(id, _)| id.clone());
        futures::future::ready(Ok(found)).boxed()
    }

    fn name(&self) -> &'static str {
        "in-process"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::RunStatus;

    #[tokio::test]
    async fn a_stale_token_neither_refreshes_nor_releases_a_newer_lease() {
        let local = Local::new(Arc::default());
        assert!(local.acquire("s", "old").await.unwrap());
        assert!(!local.acquire("s", "new").await.unwrap());
        // The old holder's lease is gone (expired); a newer run takes the session.
        local.lock().leases.remove("s");
        assert!(local.acquire("s", "new").await.unwrap());
        assert!(!local.refresh("s", "old").await.unwrap());
        assert!(!local.release("s", "old").await.unwrap());
        assert!(local.is_held("s").await.unwrap());
        assert!(local.release("s", "new").await.unwrap());
        assert!(!local.is_held("s").await.unwrap());
    }

    #[tokio::test]
    async fn a_run_that_cannot_be_resumed_drops_its_checkpoint_when_it_ends() {
        let local = Local::new(Arc::default());
        for (status, kept) in [
            (RunStatus::Failed, true),
            (RunStatus::Cancelled, true),
            (RunStatus::Succeeded, false),
            (RunStatus::Waiting, false),
        ] {
            let record = RunRecord {
                canvas_id: "c".into(),
                tenant_id: "t".into(),
                session_id: "s".into(),
                mode: "compiled".into(),
                status,
                failure_reason: String::new(),
                started_at: 0,
                finished_at: 1,
            };
            local.put_checkpoint("r", "{}").await.unwrap();
            local.finish_run("r", &record, "token").await.unwrap();
            assert_eq!(
                local.checkpoint("r").await.unwrap().is_some(),
                kept,
                "{status:?}"
            );
        }
    }

    #[tokio::test]
    async fn taking_a_session_clears_a_cancel_left_from_before() {
        let local = Local::new(Arc::default());
        local.request_cancel("s").await.unwrap();
        assert_eq!(
            local.cancel_requested(&["s".into()]).await.unwrap(),
            vec![true]
        );
        assert!(local.acquire("s", "t").await.unwrap());
        assert_eq!(
            local.cancel_requested(&["s".into()]).await.unwrap(),
            vec![false]
        );
    }
}
