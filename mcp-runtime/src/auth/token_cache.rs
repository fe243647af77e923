//! A bounded map from the SHA-256 of a token (and what it was asked for) to what the
//! authorization server answered, each entry kept until its own deadline.

use crate::sync::lock;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The key of an entry: a hash, so that no token is kept as a key.
pub(crate) type Key = [u8; 32];

/// The key for these parts (a token, then what it was asked for), each length-prefixed so that
/// no two lists of parts share a key.
pub(crate) fn key(parts: &[&str]) -> Key {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize().into()
}

pub(crate) struct TokenCache<V> {
    entries: Mutex<HashMap<Key, (Instant, V)>>,
    capacity: usize,
}

impl<V: Clone> TokenCache<V> {
    pub fn new(capacity: usize) -> Self {
        Self { entries: Mutex::new(HashMap::new()), capacity }
    }

    /// The value under `key`, unless it is past its deadline.
    pub fn get(&self, key: &Key) -> Option<V> {
        let mut entries = lock(&self.entries);
        match entries.get(key) {
            Some((until, value)) if Instant::now() < *until => Some(value.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `value` until `until`. When full, expired entries go first, then the entry closest
    /// to its deadline.
    pub fn insert(&self, key: Key, until: Instant, value: V) {
        if self.capacity == 0 || until <= Instant::now() {
            return;
        }
        let mut entries = lock(&self.entries);
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            let now = Instant::now();
            entries.retain(|_, (deadline, _)| *deadline > now);
            if entries.len() >= self.capacity {
                let soonest = entries.iter().min_by_key(|(_, (deadline, _))| *deadline).map(|(key, _)| *key);
                if let Some(soonest) = soonest {
                    entries.remove(&soonest);
                }
            }
        }
        entries.insert(key, (until, value));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }
}

/// The instant of a Unix time in seconds (`exp`), if it is still ahead.
pub(crate) fn instant_of_unix(seconds: u64) -> Option<Instant> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let ahead = Duration::from_secs(seconds).checked_sub(now)?;
    Instant::now().checked_add(ahead)
}

/// The instant `duration` from now, however long a duration was configured (capped at ten years).
pub(crate) fn after(duration: Duration) -> Instant {
    Instant::now() + duration.min(Duration::from_secs(10 * 365 * 24 * 3600))
}

/// The current Unix time in seconds.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_never_past_deadline() {
        let cache = TokenCache::new(2);
        let later = Instant::now() + Duration::from_secs(60);
        cache.insert(key(&["a"]), later, 1);
        cache.insert(key(&["b"]), later + Duration::from_secs(1), 2);
        cache.insert(key(&["c"]), later + Duration::from_secs(2), 3);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&key(&["a"])), None, "the entry closest to its deadline went");
        assert_eq!(cache.get(&key(&["c"])), Some(3));
        cache.insert(key(&["d"]), Instant::now(), 4);
        assert_eq!(cache.get(&key(&["d"])), None, "an entry already due is not kept");
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
    }

    #[test]
    fn unix_times_in_the_past_have_no_instant() {
        assert!(instant_of_unix(unix_now() - 1).is_none());
        assert!(instant_of_unix(unix_now() + 100).is_some());
    }
}
