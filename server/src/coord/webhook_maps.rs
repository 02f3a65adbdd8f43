//! In process, the webhook state RAGFlow keeps in Redis: each canvas's rate-limit bucket and
//! each agent's recorded test runs, with the expiries Redis would give them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use indexmap::IndexMap;

/// How long an agent's recorded test runs are kept after the last write (RAGFlow's `ttl=600`).
pub const TRACE_TTL: Duration = Duration::from_secs(600);

/// The recorded test runs an agent keeps; the oldest go first.
pub const TRACE_RUNS: usize = 20;

/// Expired buckets and traces are swept at most this often (reads check expiries themselves).
const SWEEP_EVERY: Duration = Duration::from_secs(1);

#[derive(Default)]
pub(crate) struct WebhookMaps {
    /// canvas → (tokens, last time in s, expiry)
    buckets: HashMap<String, (f64, f64, Instant)>,
    /// agent → (start time → the run's recorded trace, expiry)
    traces: HashMap<String, (IndexMap<String, String>, Instant)>,
    swept: Option<Instant>,
}

impl WebhookMaps {
    /// RAGFlow's token bucket: refills `rate` tokens a second up to `capacity`, and takes one
    /// when there is one.
    pub fn take(&mut self, canvas: &str, capacity: f64, rate: f64, now_s: f64) -> bool {
        let now = Instant::now();
        self.sweep(now);
        let (tokens, last) = match self.buckets.get(canvas) {
            Some((tokens, last, until)) if *until > now => (*tokens, *last),
            _ => (capacity, now_s),
        };
        let tokens = capacity.min(tokens + (now_s - last).max(0.0) * rate);
        if tokens < 1.0 {
            return false;
        }
        let keep = Duration::from_secs_f64((capacity / rate * 2.0).ceil().clamp(1.0, 1e9));
        self.buckets
            .insert(canvas.to_string(), (tokens - 1.0, now_s, now + keep));
        true
    }

    pub fn put_trace(&mut self, agent: &str, start: &str, run: String) {
        let now = Instant::now();
        self.sweep(now);
        let entry = self
            .traces
            .entry(agent.to_string())
            .or_insert_with(|| (IndexMap::new(), now));
        if entry.1 <= now {
            entry.0.clear();
        }
        entry.0.insert(start.to_string(), run);
        while entry.0.len() > TRACE_RUNS {
            entry.0.shift_remove_index(0);
        }
        entry.1 = now + TRACE_TTL;
    }

    fn sweep(&mut self, now: Instant) {
        if self
            .swept
            .is_some_and(|at| now.duration_since(at) < SWEEP_EVERY)
        {
            return;
        }
        self.swept = Some(now);
        self.buckets.retain(|_, (_, _, until)| *until > now);
        self.traces.retain(|_, (_, until)| *until > now);
    }

    pub fn traces(&self, agent: &str) -> Vec<(String, String)> {
        match self.traces.get(agent) {
            Some((runs, until)) if *until > Instant::now() => {
                runs.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refuses_past_its_capacity_and_refills_at_its_rate() {
        let mut maps = WebhookMaps::default();
        assert!(maps.take("c", 2.0, 2.0 / 60.0, 100.0));
        assert!(maps.take("c", 2.0, 2.0 / 60.0, 100.0));
        assert!(!maps.take("c", 2.0, 2.0 / 60.0, 100.0));
        assert!(maps.take("other", 2.0, 2.0 / 60.0, 100.0));
        assert!(maps.take("c", 2.0, 2.0 / 60.0, 130.0));
    }
}
