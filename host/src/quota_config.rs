//! `[quotas]` of `canvasc.toml`: the per-tenant limits `canvas serve` admits runs by.
//!
//! ```toml
//! [quotas]
//! concurrent_runs = 4        # runs of one tenant going on at once
//! runs_per_minute = 30       # runs one tenant starts in a clock minute
//! tokens_per_day = 2000000   # model tokens one tenant uses in a UTC day
//!
//! [quotas.tenants."ann@example.com"]   # by account email, or by tenant id
//! tokens_per_day = 10000000            # what it leaves out stays the default; 0 lifts a limit
//! ```

use canvasc_engine::config::ConfigError;
use canvasc_server::{QuotaConfig, QuotaLimits};

const LIMITS: &[&str] = &["concurrent_runs", "runs_per_minute", "tokens_per_day"];

/// The quotas the configuration text sets (none without a `[quotas]` table).
pub fn quotas(text: &str) -> Result<QuotaConfig, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    let Some(quotas) = table.get("quotas") else {
        return Ok(QuotaConfig::default());
    };
    let quotas = quotas
        .as_table()
        .ok_or_else(|| err("[quotas] must be a table".into()))?;
    let mut config = QuotaConfig {
        default: limits(quotas, "[quotas]", true)?,
        ..QuotaConfig::default()
    };
    if let Some(tenants) = quotas.get("tenants") {
        let tenants = tenants.as_table().ok_or_else(|| {
            err("[quotas] tenants must be a table of tables keyed by tenant id or email".into())
        })?;
        for (key, over) in tenants {
            let at = format!("[quotas.tenants.\"{key}\"]");
            let over = over
                .as_table()
                .ok_or_else(|| err(format!("{at} must be a table")))?;
            config
                .tenants
                .insert(key.clone(), limits(over, &at, false)?);
        }
    }
    Ok(config)
}

/// The limits of one table; `at` names it in errors. `tenants` is allowed in the top table.
fn limits(table: &toml::Table, at: &str, top: bool) -> Result<QuotaLimits, ConfigError> {
    for key in table.keys() {
        let known = LIMITS.contains(&key.as_str()) || (top && key == "tenants");
        if !known {
            return Err(err(format!(
                "{at}: unknown key `{key}` (known: {})",
                LIMITS.join(", ")
            )));
        }
    }
    let number = |name: &str| -> Result<Option<u64>, ConfigError> {
        match table.get(name) {
            None => Ok(None),
            Some(value) => value
                .as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    err(format!(
                        "{at}: `{name}` must be a whole number of at least 0 (0: no limit), not {value}"
                    ))
                }),
        }
    };
    Ok(QuotaLimits {
        concurrent_runs: number("concurrent_runs")?,
        runs_per_minute: number("runs_per_minute")?,
        tokens_per_day: number("tokens_per_day")?,
    })
}

fn err(message: String) -> ConfigError {
    ConfigError {
        path: None,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_and_overrides_are_read() {
        let config = quotas(
            r#"
            [quotas]
            concurrent_runs = 2
            tokens_per_day = 1000
            [quotas.tenants."ann@example.com"]
            tokens_per_day = 0
            [quotas.tenants.a1b2]
            runs_per_minute = 5
            "#,
        )
        .expect("quotas");
        assert_eq!(config.default.concurrent_runs, Some(2));
        assert_eq!(config.default.runs_per_minute, None);
        assert_eq!(config.tenants["ann@example.com"].tokens_per_day, Some(0));
        assert_eq!(config.tenants["a1b2"].runs_per_minute, Some(5));
        assert_eq!(quotas("").expect("none"), QuotaConfig::default());
    }

    #[test]
    fn a_wrong_key_or_value_is_named() {
        let e = quotas("[quotas]\nruns_per_hour = 3").expect_err("unknown key");
        assert_eq!(
            e.message,
            "[quotas]: unknown key `runs_per_hour` (known: concurrent_runs, runs_per_minute, tokens_per_day)"
        );
        let e = quotas("[quotas.tenants.x]\nconcurrent_runs = -1").expect_err("negative");
        assert_eq!(
            e.message,
            "[quotas.tenants.\"x\"]: `concurrent_runs` must be a whole number of at least 0 (0: no limit), not -1"
        );
    }
}
