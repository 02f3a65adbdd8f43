//! In process, the webhook state RAGFlow keeps in Redis: each canvas's rate-limit bucket and
//! each agent's recorded test runs, with the expiries Redis would give them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use indexmap::IndexMap;

/// How long an agent's recorded test runs are kept after the last write (RAGFlow's `ttl=600`).
pub const TRACE_TTL: Duration = Duration::from_secs(600);

#[derive(Default)]
pub(crate) struct WebhookMaps {
    /// canvas → (tokens, last time in s, expiry)
    buckets: HashMap<String, (f64, f64, Instant)>,
    /// agent → (start time → the run's recorded trace, expiry)
    traces: HashMap<String, (IndexMap<String, String>, Instant)>,
}

impl WebhookMaps {
    /// RAGFlow's token bucket: refills `rate` tokens a second up to `capacity`, and takes one
    /// when there is one.
    pub fn take(&mut self, canvas: &str, capacity: f64, rate: f64, now_s: f64) -> bool {
        let now = Instant::now();
        self.buckets.retain(|_, (_, _, until)| *until > now);
        let (tokens, last) = match self.buckets.get(canvas) {
            Some((tokens, last, _)) => (*tokens, *last),
            None => (capacity, now_s),
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
        self.traces.retain(|_, (_, until)| *until > now);
        let entry = self
            .traces
            .entry(agent.to_string())
            .or_insert_with(|| (IndexMap::new(), now));
        entry.0.insert(start.to_string(), run);
        entry.1 = now + TRACE_TTL;
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
