//! Uploads no run ever attached to a session expire: a client that uploads and never asks
//! leaves nothing behind for good. Every replica sweeps (a delete that finds nothing costs one
//! indexed query), so no replica has to be the one that does.

use std::time::Duration;

use crate::clock::now_ms;
use crate::store::Store;

/// How often a server with `ttl` sweeps: a quarter of it, between a second and ten minutes,
/// so an upload lives at most a quarter longer than `ttl`.
pub(crate) fn interval(ttl: Duration) -> Duration {
    (ttl / 4).clamp(Duration::from_secs(1), Duration::from_secs(600))
}

/// Deletes expired unattached uploads every [`interval`], until the server stops.
pub(crate) async fn sweep(store: Store, ttl: Duration) {
    let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    let mut every = tokio::time::interval(interval(ttl));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match store
            .delete_unattached_files(now_ms().saturating_sub(ttl_ms))
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, "expired uploads no session used"),
            Err(e) => eprintln!("canvasc serve: expired uploads could not be deleted: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_runs_a_quarter_of_the_lifetime_apart_within_bounds() {
        assert_eq!(interval(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(interval(Duration::from_secs(400)), Duration::from_secs(100));
        assert_eq!(
            interval(Duration::from_secs(86_400)),
            Duration::from_secs(600)
        );
    }
}
