//! A least-recently-used cache bounded by the bytes of what it keeps, not by a count: what the
//! server keeps this way (canvases) ranges from a few KB to many MB each.

use std::sync::Mutex;

use lru::LruCache;

pub(crate) struct ByteLru<V> {
    budget: usize,
    kept: Mutex<Kept<V>>,
}

struct Kept<V> {
    entries: LruCache<String, (V, usize)>,
    bytes: usize,
}

impl<V: Clone> ByteLru<V> {
    /// Keeps at most `budget` bytes, and always the newest entry, however large.
    pub(crate) fn new(budget: usize) -> ByteLru<V> {
        ByteLru {
            budget,
            kept: Mutex::new(Kept {
                entries: LruCache::unbounded(),
                bytes: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept<V>> {
        // Inserts and removals only: a panic while holding it leaves the cache whole.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn get(&self, key: &str) -> Option<V> {
        self.lock().entries.get(key).map(|(value, _)| value.clone())
    }

    /// Keeps `value` (`bytes` large) under `key`, dropping the least recently used entries
    /// beyond the budget.
    pub(crate) fn put(&self, key: &str, value: V, bytes: usize) {
        let mut kept = self.lock();
        if let Some((_, old)) = kept.entries.put(key.to_string(), (value, bytes)) {
            kept.bytes -= old;
        }
        kept.bytes += bytes;
        while kept.bytes > self.budget && kept.entries.len() > 1 {
            match kept.entries.pop_lru() {
                Some((_, (_, gone))) => kept.bytes -= gone,
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ByteLru;

    #[test]
    fn the_least_recently_used_goes_when_the_bytes_run_over() {
        let cache = ByteLru::new(10);
        cache.put("a", 1, 4);
        cache.put("b", 2, 4);
        assert_eq!(cache.get("a"), Some(1)); // a is now the most recent
        cache.put("c", 3, 4);
        assert_eq!(
            (cache.get("a"), cache.get("b"), cache.get("c")),
            (Some(1), None, Some(3))
        );
        cache.put("huge", 4, 100);
        assert_eq!(
            (cache.get("a"), cache.get("huge")),
            (None, Some(4)),
            "the newest stays"
        );
    }
}
