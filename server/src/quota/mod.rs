//! Per-tenant quotas (`[quotas]` in `canvasc.toml`): runs going on at once, runs started per
//! minute, model tokens per day. A run is admitted or refused before it starts, in one step of
//! the coordinator (`coord/quota.rs`: shared by every replica with Redis); the tokens it used
//! are counted when its turn ends, so a quota never cuts a stream: it refuses the next run.

mod limits;
mod metered;

use tokio::task::JoinHandle;

pub use limits::{QuotaConfig, QuotaLimits};
pub(crate) use metered::metered;

use crate::clock::{new_id, now_ms};
use crate::coord::quota::day_of;
use crate::coord::{Coordinator, QuotaAsk, QuotaVerdict, LEASE_REFRESH};
use crate::envelope::ApiError;
use crate::store::Store;
use limits::Applied;

/// The quotas of this server.
pub(crate) struct Quotas {
    config: QuotaConfig,
    /// No tenant has a limit: runs are admitted without asking the coordinator.
    unlimited: bool,
}

impl Quotas {
    pub fn new(config: QuotaConfig) -> Quotas {
        let unlimited = config.is_unlimited();
        Quotas { config, unlimited }
    }

    /// The limits of `tenant`, its email looked up when some override is keyed by one.
    async fn limits_of(&self, store: &Store, tenant: &str) -> Result<Applied, ApiError> {
        let email = match self.config.has_email_keys() {
            true => store.user_by_id(tenant).await?.map(|user| user.email),
            false => None,
        };
        Ok(self.config.limits_of(tenant, email.as_deref()))
    }

    /// Admits a run of `tenant`, or refuses it with the quota it would exceed and when that
    /// frees. `None`: no quota applies to the tenant.
    pub async fn admit(
        &self,
        store: &Store,
        coord: &Coordinator,
        tenant: &str,
    ) -> Result<Option<Ticket>, ApiError> {
        if self.unlimited {
            return Ok(None);
        }
        let limits = self.limits_of(store, tenant).await?;
        if !limits.any() {
            return Ok(None);
        }
        let ask = QuotaAsk {
            tenant: tenant.to_string(),
            slot: new_id(),
            concurrent_runs: limits.concurrent_runs,
            runs_per_minute: limits.runs_per_minute,
            tokens_per_day: limits.tokens_per_day,
            now_ms: now_ms(),
        };
        match coord.quota_admit(&ask).await? {
            QuotaVerdict::Admitted => Ok(Some(Ticket::admitted(coord, &ask))),
            refused => Err(refusal(refused, &ask)),
        }
    }

    /// A ticket that only counts the tokens of a run the server goes on with by itself (a
    /// run whose replica died, finished before the session's next question): it was admitted
    /// when it started.
    pub async fn tokens_only(
        &self,
        store: &Store,
        coord: &Coordinator,
        tenant: &str,
    ) -> Option<Ticket> {
        if self.unlimited {
            return None;
        }
        let limits = self.limits_of(store, tenant).await.ok()?;
        (limits.tokens_per_day > 0).then(|| Ticket {
            coord: coord.clone(),
            tenant: tenant.to_string(),
            slot: None,
            minute: None,
            counts_tokens: true,
            started: true,
            refresher: None,
            done: false,
        })
    }
}

/// RAGFlow's envelope for a refused run: its per-tenant limit's code (102, as
/// `MAX_FILE_NUM_PER_USER`'s "Exceed the maximum file number of a free user!"), HTTP 429
/// with `Retry-After`, and a message naming the quota and when it frees.
fn refusal(verdict: QuotaVerdict, ask: &QuotaAsk) -> ApiError {
    let (message, resets_ms) = match verdict {
        QuotaVerdict::TokensPerDay { used } => {
            let next_day = (ask.now_ms.div_euclid(86_400_000) + 1) * 86_400_000;
            (
                format!(
                    "Quota exceeded: model tokens per day ({} for this tenant; {used} used today). It resets at {} UTC.",
                    ask.tokens_per_day,
                    crate::clock::stamp(next_day)
                ),
                next_day,
            )
        }
        QuotaVerdict::RunsPerMinute => {
            let next_minute = (ask.minute() + 1) * 60_000;
            (
                format!(
                    "Quota exceeded: runs per minute ({} for this tenant). It resets at {} UTC.",
                    ask.runs_per_minute,
                    crate::clock::stamp(next_minute)
                ),
                next_minute,
            )
        }
        QuotaVerdict::ConcurrentRuns | QuotaVerdict::Admitted => (
            format!(
                "Quota exceeded: concurrent runs ({} for this tenant). It frees when one of the tenant's runs ends.",
                ask.concurrent_runs
            ),
            ask.now_ms + 1000,
        ),
    };
    let wait_ms = (resets_ms - ask.now_ms).max(1);
    let retry_after =
        u64::try_from(wait_ms.div_euclid(1000) + i64::from(wait_ms % 1000 != 0)).unwrap_or(1);
    ApiError::quota(message, retry_after)
}

/// An admitted run's hold on its quotas: its slot among the running (refreshed while it
/// lives) and its minute's count. [`Ticket::end`] counts its tokens and frees the slot;
/// dropped before, it frees the slot too, and gives the minute's count back when the run
/// never started (a busy session, a canvas that cannot run).
pub(crate) struct Ticket {
    coord: Coordinator,
    tenant: String,
    slot: Option<String>,
    minute: Option<i64>,
    counts_tokens: bool,
    started: bool,
    refresher: Option<JoinHandle<()>>,
    done: bool,
}

impl Ticket {
    fn admitted(coord: &Coordinator, ask: &QuotaAsk) -> Ticket {
        let slot = (ask.concurrent_runs > 0).then(|| ask.slot.clone());
        let refresher = slot.clone().map(|slot| {
            let (coord, tenant) = (coord.clone(), ask.tenant.clone());
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(LEASE_REFRESH).await;
                    if let Err(e) = coord.quota_refresh(&tenant, &slot).await {
                        eprintln!(
                            "canvasc serve: tenant {tenant}: a running run's quota slot could not be kept ({e})"
                        );
                    }
                }
            })
        });
        Ticket {
            coord: coord.clone(),
            tenant: ask.tenant.clone(),
            slot,
            minute: (ask.runs_per_minute > 0).then(|| ask.minute()),
            counts_tokens: ask.tokens_per_day > 0,
            started: false,
            refresher,
            done: false,
        }
    }

    /// The run started: its minute's count stays.
    pub fn started(&mut self) {
        self.started = true;
    }

    /// The run ended having used `tokens`: they count for today, and its slot frees.
    pub async fn end(mut self, tokens: u64) {
        self.done = true;
        if let Some(refresher) = self.refresher.take() {
            refresher.abort();
        }
        if self.counts_tokens && tokens > 0 {
            let day = day_of(now_ms());
            if let Err(e) = self.coord.quota_spend(&self.tenant, &day, tokens).await {
                eprintln!(
                    "canvasc serve: tenant {}: {tokens} model tokens could not be counted ({e})",
                    self.tenant
                );
            }
        }
        self.release().await;
    }

    async fn release(&self) {
        let Some(slot) = &self.slot else {
            if let (Some(minute), false) = (self.minute, self.started) {
                let _ = self
                    .coord
                    .quota_release(&self.tenant, "", Some(minute))
                    .await;
            }
            return;
        };
        let unstarted = self.minute.filter(|_| !self.started);
        if let Err(e) = self
            .coord
            .quota_release(&self.tenant, slot, unstarted)
            .await
        {
            eprintln!(
                "canvasc serve: tenant {}: a run's quota slot could not be freed ({e}); it expires in {} s",
                self.tenant,
                crate::coord::quota::SLOT_TTL.as_secs()
            );
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(refresher) = self.refresher.take() {
            refresher.abort();
        }
        if self.done {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let rest = Ticket {
            coord: self.coord.clone(),
            tenant: std::mem::take(&mut self.tenant),
            slot: self.slot.take(),
            minute: self.minute.take(),
            counts_tokens: false,
            started: self.started,
            refresher: None,
            done: true,
        };
        runtime.spawn(async move { rest.release().await });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_its_quota_and_when_it_resets() {
        let ask = QuotaAsk {
            tenant: "t".into(),
            slot: "s".into(),
            concurrent_runs: 2,
            runs_per_minute: 3,
            tokens_per_day: 100,
            // 2025-11-29 08:00:20.5 UTC
            now_ms: 1_764_403_220_500,
        };
        let tokens = refusal(QuotaVerdict::TokensPerDay { used: 120 }, &ask);
        assert_eq!(
            tokens.message(),
            "Quota exceeded: model tokens per day (100 for this tenant; 120 used today). It resets at 2025-11-30 00:00:00 UTC."
        );
        let minute = refusal(QuotaVerdict::RunsPerMinute, &ask);
        assert_eq!(
            minute.message(),
            "Quota exceeded: runs per minute (3 for this tenant). It resets at 2025-11-29 08:01:00 UTC."
        );
        assert_eq!(minute.retry_after(), Some(40));
        let concurrent = refusal(QuotaVerdict::ConcurrentRuns, &ask);
        assert_eq!(concurrent.retry_after(), Some(1));
    }
}
