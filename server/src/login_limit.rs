//! Failed logins, counted per account and per client address, with an exponential backoff:
//! after `free` failures each further one locks the account (or the address) for twice as
//! long as the one before, up to `max_lock`. A locked login is answered 429 with
//! `Retry-After` before the password is looked at, so guessing costs the server no Argon2
//! work. A success clears its account's count (not its address's: one valid account must
//! not reset an address that sprays others). Counts are kept in this process: with several
//! replicas each counts what it sees (README, "Deploying safely").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How failed logins are limited.
#[derive(Clone, Copy, Debug)]
pub struct LoginLimits {
    /// Failures an account may have before it is locked.
    pub account_free: u32,
    /// Failures an address may have before it is locked (higher: several people may share
    /// one address).
    pub address_free: u32,
    /// The first lock; each further failure doubles it.
    pub first_lock: Duration,
    pub max_lock: Duration,
    /// A count with no failure for this long starts again from zero.
    pub forget_after: Duration,
    /// Accounts and addresses remembered at most (a flood of made-up names or addresses
    /// cannot grow the table without bound).
    pub max_entries: usize,
}

impl Default for LoginLimits {
    fn default() -> Self {
        LoginLimits {
            account_free: 5,
            address_free: 20,
            first_lock: Duration::from_secs(1),
            max_lock: Duration::from_secs(15 * 60),
            forget_after: Duration::from_secs(30 * 60),
            max_entries: 100_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Account(String),
    /// An IPv4 address, or the /64 network of an IPv6 one (one host can hold a whole /64).
    Address(IpAddr),
}

struct Entry {
    failures: u32,
    locked_until: Instant,
    last_failure: Instant,
}

pub(crate) struct LoginLimiter {
    limits: LoginLimits,
    entries: Mutex<HashMap<Key, Entry>>,
}

fn address_key(address: IpAddr) -> Key {
    match address {
        IpAddr::V4(_) => Key::Address(address),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => Key::Address(IpAddr::V4(v4)),
            None => {
                let network = u128::from(v6) & !((1u128 << 64) - 1);
                Key::Address(IpAddr::V6(network.into()))
            }
        },
    }
}

impl LoginLimiter {
    pub(crate) fn new(limits: LoginLimits) -> LoginLimiter {
        LoginLimiter {
            limits,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// How long a login for `account` from `address` must still wait, if it must.
    pub(crate) fn wait(&self, account: &str, address: IpAddr, now: Instant) -> Option<Duration> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        [Key::Account(account.to_lowercase()), address_key(address)]
            .iter()
            .filter_map(|key| entries.get(key))
            .map(|entry| entry.locked_until.saturating_duration_since(now))
            .filter(|wait| !wait.is_zero())
            .max()
    }

    /// Counts a failed login (wrong password or unknown account).
    pub(crate) fn failed(&self, account: &str, address: IpAddr, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.limits.max_entries {
            let forget = self.limits.forget_after;
            entries.retain(|_, e| {
                e.locked_until > now || now.saturating_duration_since(e.last_failure) < forget
            });
        }
        let keys = [
            (
                Key::Account(account.to_lowercase()),
                self.limits.account_free,
            ),
            (address_key(address), self.limits.address_free),
        ];
        for (key, free) in keys {
            if !entries.contains_key(&key) && entries.len() >= self.limits.max_entries {
                // Full of live entries: the Argon2 gate still bounds what this one costs.
                continue;
            }
            let entry = entries.entry(key).or_insert(Entry {
                failures: 0,
                locked_until: now,
                last_failure: now,
            });
            if now.saturating_duration_since(entry.last_failure) >= self.limits.forget_after {
                entry.failures = 0;
            }
            entry.failures = entry.failures.saturating_add(1);
            entry.last_failure = now;
            if entry.failures > free {
                let doublings = (entry.failures - free - 1).min(20);
                let lock = self
                    .limits
                    .first_lock
                    .saturating_mul(1 << doublings)
                    .min(self.limits.max_lock);
                entry.locked_until = now + lock;
            }
        }
    }

    /// A successful login clears its account's failures.
    pub(crate) fn succeeded(&self, account: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(&Key::Account(account.to_lowercase()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_is_locked_after_its_free_failures_with_a_doubling_lock() {
        let limiter = LoginLimiter::new(LoginLimits::default());
        let t0 = Instant::now();
        let a: IpAddr = [10, 0, 0, 1].into();
        for _ in 0..5 {
            assert_eq!(limiter.wait("x@y.z", a, t0), None);
            limiter.failed("x@y.z", a, t0);
        }
        assert_eq!(limiter.wait("x@y.z", a, t0), None);
        limiter.failed("X@y.z", a, t0);
        assert_eq!(limiter.wait("x@y.z", a, t0), Some(Duration::from_secs(1)));
        limiter.failed("x@y.z", a, t0);
        assert_eq!(limiter.wait("x@y.z", a, t0), Some(Duration::from_secs(2)));
        // Another account from another address is not held up.
        assert_eq!(limiter.wait("other@y.z", [10, 0, 0, 2].into(), t0), None);
        limiter.succeeded("x@y.z");
        assert_eq!(limiter.wait("x@y.z", [10, 0, 0, 3].into(), t0), None);
    }

    #[test]
    fn an_address_is_locked_across_accounts_and_ipv6_counts_by_network() {
        let limiter = LoginLimiter::new(LoginLimits::default());
        let t0 = Instant::now();
        for n in 0..21u16 {
            let a: IpAddr = [0x2001, 0xdb8, 0, 1, 0, 0, 0, n].into();
            limiter.failed(&format!("u{n}@y.z"), a, t0);
        }
        let same_network: IpAddr = [0x2001, 0xdb8, 0, 1, 9, 9, 9, 9].into();
        assert!(limiter.wait("new@y.z", same_network, t0).is_some());
        let other: IpAddr = [0x2001, 0xdb8, 0, 2, 0, 0, 0, 1].into();
        assert_eq!(limiter.wait("new@y.z", other, t0), None);
    }
}
