//! What an operator sets: per-tenant limits on runs and model tokens, a default for every
//! tenant and overrides for some, keyed by tenant id or account email (`[quotas]` in
//! `canvasc.toml`, read by the host).

use std::collections::BTreeMap;

/// Limits of one tenant. In the default, `None` (or 0) is no limit; in an override, `None`
/// keeps the default's value and 0 lifts it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotaLimits {
    /// Runs of the tenant's agents going on at once (across replicas with Redis).
    pub concurrent_runs: Option<u64>,
    /// Runs started in one clock minute (UTC).
    pub runs_per_minute: Option<u64>,
    /// Model tokens (`workflow_finished.usage.total_tokens`) used in one UTC day.
    pub tokens_per_day: Option<u64>,
}

impl QuotaLimits {
    /// `self` with the values `over` sets taking the place of these.
    fn overridden_by(&self, over: &QuotaLimits) -> QuotaLimits {
        QuotaLimits {
            concurrent_runs: over.concurrent_runs.or(self.concurrent_runs),
            runs_per_minute: over.runs_per_minute.or(self.runs_per_minute),
            tokens_per_day: over.tokens_per_day.or(self.tokens_per_day),
        }
    }
}

/// The limits as they apply: 0 where there is none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub concurrent_runs: u64,
    pub runs_per_minute: u64,
    pub tokens_per_day: u64,
}

impl Applied {
    fn of(limits: &QuotaLimits) -> Applied {
        Applied {
            concurrent_runs: limits.concurrent_runs.unwrap_or(0),
            runs_per_minute: limits.runs_per_minute.unwrap_or(0),
            tokens_per_day: limits.tokens_per_day.unwrap_or(0),
        }
    }

    /// Whether any limit applies (none: a run costs no round trip to the coordinator).
    pub fn any(&self) -> bool {
        self.concurrent_runs > 0 || self.runs_per_minute > 0 || self.tokens_per_day > 0
    }
}

/// The quotas of a server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuotaConfig {
    /// Every tenant's limits.
    pub default: QuotaLimits,
    /// Overrides by tenant id or by account email (an id's override wins over an email's).
    pub tenants: BTreeMap<String, QuotaLimits>,
}

impl QuotaConfig {
    /// Whether any tenant has a limit (none: quotas are never looked at).
    pub fn is_unlimited(&self) -> bool {
        !Applied::of(&self.default).any()
            && self
                .tenants
                .values()
                .all(|over| !Applied::of(&self.default.overridden_by(over)).any())
    }

    /// Whether some override is keyed by an email, so a tenant's email must be looked up.
    pub(crate) fn has_email_keys(&self) -> bool {
        self.tenants.keys().any(|key| key.contains('@'))
    }

    /// The limits of `tenant` (whose account email is `email`, when known).
    pub(crate) fn limits_of(&self, tenant: &str, email: Option<&str>) -> Applied {
        let by_email = email.and_then(|email| {
            self.tenants
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(email))
                .map(|(_, over)| over)
        });
        let mut limits = self.default.clone();
        if let Some(over) = by_email {
            limits = limits.overridden_by(over);
        }
        if let Some(over) = self.tenants.get(tenant) {
            limits = limits.overridden_by(over);
        }
        Applied::of(&limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_replaces_what_it_sets_and_zero_lifts_a_limit() {
        let config = QuotaConfig {
            default: QuotaLimits {
                concurrent_runs: Some(2),
                runs_per_minute: Some(10),
                tokens_per_day: None,
            },
            tenants: BTreeMap::from([
                (
                    "Ann@Example.com".to_string(),
                    QuotaLimits {
                        concurrent_runs: Some(5),
                        tokens_per_day: Some(100),
                        ..QuotaLimits::default()
                    },
                ),
                (
                    "t1".to_string(),
                    QuotaLimits {
                        runs_per_minute: Some(0),
                        tokens_per_day: Some(7),
                        ..QuotaLimits::default()
                    },
                ),
            ]),
        };
        assert_eq!(
            config.limits_of("t0", None),
            Applied {
                concurrent_runs: 2,
                runs_per_minute: 10,
                tokens_per_day: 0
            }
        );
        assert_eq!(
            config.limits_of("t0", Some("ann@example.com")),
            Applied {
                concurrent_runs: 5,
                runs_per_minute: 10,
                tokens_per_day: 100
            }
        );
        assert_eq!(
            config.limits_of("t1", Some("ann@example.com")),
            Applied {
                concurrent_runs: 5,
                runs_per_minute: 0,
                tokens_per_day: 7
            }
        );
        assert!(config.has_email_keys());
        assert!(!config.is_unlimited());
        assert!(QuotaConfig::default().is_unlimited());
    }
}
