//! [`ProxyStore`]: where the façade keeps what lives between two requests (clients, sign-ins in
//! progress, codes, consents, grants), as JSON records with a lifetime; [`MemoryStore`] keeps
//! them in the process.

use crate::error::Result;
use crate::sync::lock;
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Records by key, each until its lifetime ends. Implement it over a shared database so that
/// replicas share clients, codes and grants; every operation is one command of a key-value
/// store (`SET EX`, `GET`, `GETDEL`, `DEL` in Redis).
pub trait ProxyStore: Send + Sync + 'static {
    /// Stores `value` under `key` for `ttl`, replacing what was there.
    fn put(&self, key: &str, value: String, ttl: Duration) -> BoxFuture<'_, Result<()>>;
    /// The value under `key`, if it is there and alive.
    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>>;
    /// The value under `key`, removed in the same step: of two concurrent takes, one gets it
    /// (one-time codes, refresh tokens).
    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>>;
    /// Removes `key`.
    fn delete(&self, key: &str) -> BoxFuture<'_, Result<()>>;
}

/// Records in this process's memory (the default): lost on restart, not shared by replicas.
/// Expired records are dropped as others are written.
#[derive(Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, (String, Instant)>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore").finish_non_exhaustive()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records a writer may find before it sweeps the expired ones.
    const SWEEP_ABOVE: usize = 1024;
}

impl ProxyStore for MemoryStore {
    fn put(&self, key: &str, value: String, ttl: Duration) -> BoxFuture<'_, Result<()>> {
        let now = Instant::now();
        let mut records = lock(&self.records);
        if records.len() >= Self::SWEEP_ABOVE {
            records.retain(|_, (_, deadline)| *deadline > now);
        }
        records.insert(key.to_owned(), (value, now + ttl));
        Box::pin(async { Ok(()) })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let now = Instant::now();
        let value = lock(&self.records).get(key).filter(|(_, deadline)| *deadline > now).map(|(v, _)| v.clone());
        Box::pin(async move { Ok(value) })
    }

    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let now = Instant::now();
        let value = lock(&self.records).remove(key).filter(|(_, deadline)| *deadline > now).map(|(v, _)| v);
        Box::pin(async move { Ok(value) })
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, Result<()>> {
        lock(&self.records).remove(key);
        Box::pin(async { Ok(()) })
    }
}
