//! The counters behind per-tenant quotas (`crate::quota`): the runs a tenant has going on,
//! the runs it started this minute, the model tokens it used today. In Redis they are shared
//! by every replica (`agent:quota:*`, each key with a TTL, so nothing outlives its window);
//! in process they are maps with the same windows ([`QuotaMaps`]).

use std::collections::HashMap;
use std::time::Duration;

/// A running run's place among its tenant's running runs lasts this long unless refreshed,
/// as a session's lease does: a replica that dies frees its runs' places within it.
pub const SLOT_TTL: Duration = super::LEASE_TTL;
/// A minute's run count is kept this long (its minute, and one more for clocks apart).
pub const MINUTE_KEY_TTL: Duration = Duration::from_secs(120);
/// A day's token count is kept this long (its day, and one more).
pub const DAY_KEY_TTL: Duration = Duration::from_secs(2 * 86_400);

/// A run asking to be admitted.
#[derive(Clone, Debug)]
pub struct QuotaAsk {
    pub tenant: String,
    /// The run's place among the running (held while `concurrent_runs` is limited).
    pub slot: String,
    /// Limits, 0 for none.
    pub concurrent_runs: u64,
    pub runs_per_minute: u64,
    pub tokens_per_day: u64,
    /// Now, in milliseconds since the epoch (the windows are this server's clock's).
    pub now_ms: i64,
}

impl QuotaAsk {
    /// The clock minute this run counts in.
    pub fn minute(&self) -> i64 {
        self.now_ms.div_euclid(60_000)
    }

    /// The UTC day whose tokens it is checked against (`2026-11-29`).
    pub fn day(&self) -> String {
        day_of(self.now_ms)
    }
}

/// The UTC day of an instant (`2026-11-29`), the token count's window.
pub fn day_of(now_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(now_ms)
        .unwrap_or_default()
        .format("%Y-%m-%d")
        .to_string()
}

/// What admission decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaVerdict {
    /// Counted in its minute, and holding its slot while the concurrent runs are limited.
    Admitted,
    /// The tenant used `used` tokens today: at or over `tokens_per_day`.
    TokensPerDay { used: u64 },
    /// `runs_per_minute` runs started this minute already.
    RunsPerMinute,
    /// `concurrent_runs` runs are going on.
    ConcurrentRuns,
}

impl QuotaVerdict {
    /// The scripts' answer: `{kind, tokens used}`.
    pub(crate) fn from_reply(kind: i64, used: i64) -> QuotaVerdict {
        match kind {
            1 => QuotaVerdict::TokensPerDay {
                used: u64::try_from(used).unwrap_or(0),
            },
            2 => QuotaVerdict::RunsPerMinute,
            3 => QuotaVerdict::ConcurrentRuns,
            _ => QuotaVerdict::Admitted,
        }
    }
}

/// The in-process counters, with the windows the Redis keys have.
#[derive(Default)]
pub(crate) struct QuotaMaps {
    /// tenant → slot → until (ms)
    running: HashMap<String, HashMap<String, i64>>,
    /// tenant → (minute, runs started in it)
    minutes: HashMap<String, (i64, u64)>,
    /// tenant → (day, tokens used in it)
    days: HashMap<String, (String, u64)>,
}

impl QuotaMaps {
    /// What `QUOTA_ADMIT` does in Redis.
    pub fn admit(&mut self, ask: &QuotaAsk) -> QuotaVerdict {
        let (minute, day) = (ask.minute(), ask.day());
        self.forget_before(ask.now_ms, minute, &day);
        let used = match self.days.get(&ask.tenant) {
            Some((d, used)) if *d == day => *used,
            _ => 0,
        };
        if ask.tokens_per_day > 0 && used >= ask.tokens_per_day {
            return QuotaVerdict::TokensPerDay { used };
        }
        let started = match self.minutes.get(&ask.tenant) {
            Some((m, runs)) if *m == minute => *runs,
            _ => 0,
        };
        if ask.runs_per_minute > 0 && started >= ask.runs_per_minute {
            return QuotaVerdict::RunsPerMinute;
        }
        let running = self.running.get(&ask.tenant).map_or(0, HashMap::len);
        if ask.concurrent_runs > 0 && running as u64 >= ask.concurrent_runs {
            return QuotaVerdict::ConcurrentRuns;
        }
        if ask.concurrent_runs > 0 {
            self.running
                .entry(ask.tenant.clone())
                .or_default()
                .insert(ask.slot.clone(), ask.now_ms + slot_ttl_ms());
        }
        if ask.runs_per_minute > 0 {
            self.minutes
                .insert(ask.tenant.clone(), (minute, started + 1));
        }
        QuotaVerdict::Admitted
    }

    /// Keeps a running run's slot (re-taken when it was swept).
    pub fn refresh(&mut self, tenant: &str, slot: &str, now_ms: i64) {
        self.running
            .entry(tenant.to_string())
            .or_default()
            .insert(slot.to_string(), now_ms + slot_ttl_ms());
    }

    /// Frees a slot; `unstarted_minute`: the run never started, so its minute's count goes
    /// back down.
    pub fn release(&mut self, tenant: &str, slot: &str, unstarted_minute: Option<i64>) {
        if let Some(slots) = self.running.get_mut(tenant) {
            slots.remove(slot);
            if slots.is_empty() {
                self.running.remove(tenant);
            }
        }
        if let (Some(minute), Some((m, runs))) = (unstarted_minute, self.minutes.get_mut(tenant)) {
            if *m == minute {
                *runs = runs.saturating_sub(1);
            }
        }
    }

    /// Adds used tokens to the day's count.
    pub fn spend(&mut self, tenant: &str, day: &str, tokens: u64) {
        match self.days.get_mut(tenant) {
            Some((d, used)) if d == day => *used = used.saturating_add(tokens),
            _ => {
                self.days
                    .insert(tenant.to_string(), (day.to_string(), tokens));
            }
        }
    }

    /// Drops expired slots and past windows, so the maps stay as small as Redis keeps them.
    fn forget_before(&mut self, now_ms: i64, minute: i64, day: &str) {
        self.running.retain(|_, slots| {
            slots.retain(|_, until| *until > now_ms);
            !slots.is_empty()
        });
        self.minutes.retain(|_, (m, _)| *m >= minute);
        self.days.retain(|_, (d, _)| d.as_str() >= day);
    }
}

fn slot_ttl_ms() -> i64 {
    SLOT_TTL.as_millis() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(slot: &str, now_ms: i64) -> QuotaAsk {
        QuotaAsk {
            tenant: "t".into(),
            slot: slot.into(),
            concurrent_runs: 2,
            runs_per_minute: 3,
            tokens_per_day: 100,
            now_ms,
        }
    }

    #[test]
    fn each_limit_refuses_in_its_window_and_frees_after_it() {
        let mut maps = QuotaMaps::default();
        let t0 = 1_764_403_200_000; // 2025-11-29 08:00:00 UTC
        assert_eq!(maps.admit(&ask("a", t0)), QuotaVerdict::Admitted);
        assert_eq!(maps.admit(&ask("b", t0)), QuotaVerdict::Admitted);
        assert_eq!(maps.admit(&ask("c", t0)), QuotaVerdict::ConcurrentRuns);
        maps.release("t", "a", None);
        assert_eq!(maps.admit(&ask("c", t0)), QuotaVerdict::Admitted);
        maps.release("t", "b", None);
        // Three runs started this minute.
        assert_eq!(maps.admit(&ask("d", t0)), QuotaVerdict::RunsPerMinute);
        // A run that never started gives its minute's count back.
        maps.release("t", "c", Some(ask("c", t0).minute()));
        assert_eq!(maps.admit(&ask("d", t0)), QuotaVerdict::Admitted);
        maps.release("t", "d", None);
        assert_eq!(maps.admit(&ask("e", t0 + 60_000)), QuotaVerdict::Admitted);
        maps.spend("t", &day_of(t0), 100);
        assert_eq!(
            maps.admit(&ask("f", t0 + 60_000)),
            QuotaVerdict::TokensPerDay { used: 100 }
        );
        assert_eq!(
            maps.admit(&ask("f", t0 + 86_400_000)),
            QuotaVerdict::Admitted
        );
    }

    #[test]
    fn a_slot_not_refreshed_expires() {
        let mut maps = QuotaMaps::default();
        let t0 = 1_764_403_200_000;
        let mut one = ask("a", t0);
        one.concurrent_runs = 1;
        one.runs_per_minute = 0;
        assert_eq!(maps.admit(&one), QuotaVerdict::Admitted);
        one.slot = "b".into();
        assert_eq!(maps.admit(&one), QuotaVerdict::ConcurrentRuns);
        one.now_ms = t0 + slot_ttl_ms() + 1;
        assert_eq!(maps.admit(&one), QuotaVerdict::Admitted);
    }
}
