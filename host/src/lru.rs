//! A small map that keeps the most recently used entries, for what a server builds once and
//! reuses across turns (programs by fingerprint, canvases by id).

use indexmap::IndexMap;
use std::sync::{Arc, Mutex};

/// Up to `capacity` values by key; the least recently used goes first.
pub struct Lru<V> {
    capacity: usize,
    entries: Mutex<IndexMap<String, Arc<V>>>,
}

impl<V> Lru<V> {
    pub fn new(capacity: usize) -> Self {
        Lru {
            capacity,
            entries: Mutex::new(IndexMap::new()),
        }
    }

    /// The value kept for `key`, now the most recently used.
    pub fn get(&self, key: &str) -> Option<Arc<V>> {
        let mut entries = self.lock();
        let at = entries.get_index_of(key)?;
        let last = entries.len() - 1;
        entries.move_index(at, last);
        entries.get_index(last).map(|(_, v)| Arc::clone(v))
    }

    /// Keeps `value` for `key`, dropping the least recently used beyond the capacity.
    pub fn put(&self, key: &str, value: Arc<V>) {
        let mut entries = self.lock();
        entries.insert(key.to_string(), value);
        while entries.len() > self.capacity {
            entries.shift_remove_index(0);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, IndexMap<String, Arc<V>>> {
        // A panic while holding the lock leaves the map whole (inserts and moves only).
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::Lru;
    use std::sync::Arc;

    #[test]
    fn the_least_recently_used_goes_first() {
        let kept = Lru::new(2);
        kept.put("a", Arc::new(1));
        kept.put("b", Arc::new(2));
        assert_eq!(kept.get("a").as_deref(), Some(&1));
        kept.put("c", Arc::new(3));
        assert!(kept.get("b").is_none());
        assert_eq!(kept.get("a").as_deref(), Some(&1));
        assert_eq!(kept.get("c").as_deref(), Some(&3));
    }
}
