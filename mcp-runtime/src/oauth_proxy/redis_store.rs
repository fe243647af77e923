//! [`RedisProxyStore`]: the façade's records in the Redis the replicas share (features
//! `oauth-proxy` and `redis`), so any replica continues a sign-in another started, redeems the
//! codes another issued, and sees a refresh token another rotated.

use super::store::ProxyStore;
use crate::error::{Error, ErrorKind, Result};
use crate::store::{SessionStore, StoreKind};
use futures_util::future::BoxFuture;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::time::Duration;

/// Records in the Redis of a [`SessionStore::redis`], under its key prefix and `oauth:`: one
/// command each (`SET PX`, `GET`, `GETDEL`, `DEL`), within the store's timeout. Give every
/// replica the same [`signing_key`](super::OAuthProxy::signing_key) too.
#[derive(Clone)]
pub struct RedisProxyStore {
    redis: ConnectionManager,
    prefix: String,
}

impl std::fmt::Debug for RedisProxyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisProxyStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl RedisProxyStore {
    /// The records in `store`'s Redis (connected lazily, reconnecting by itself); an error for
    /// a memory store.
    pub fn new(store: &SessionStore) -> Result<Self> {
        let StoreKind::Redis(store) = &store.kind else {
            return Err(Error::new(ErrorKind::Config, "RedisProxyStore: the session store is not a Redis one"));
        };
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(store.timeout))
            .set_response_timeout(Some(store.timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let redis = ConnectionManager::new_lazy_with_config(store.client.clone(), config)
            .map_err(|err| Error::new(ErrorKind::Config, format!("RedisProxyStore: {err}")))?;
        Ok(Self { redis, prefix: format!("{}oauth:", store.prefix) })
    }

    async fn run<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T> {
        let mut redis = self.redis.clone();
        command.query_async(&mut redis).await.map_err(|err| {
            tracing::warn!("the OAuth façade's Redis store failed: {err}");
            Error::new(ErrorKind::Config, format!("the OAuth façade's Redis store: {err}"))
        })
    }
}

impl ProxyStore for RedisProxyStore {
    fn put(&self, key: &str, value: String, ttl: Duration) -> BoxFuture<'_, Result<()>> {
        let mut command = redis::cmd("SET");
        command.arg(format!("{}{key}", self.prefix)).arg(value).arg("PX").arg(ttl.as_millis().max(1) as u64);
        Box::pin(async move { self.run::<()>(command).await })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let mut command = redis::cmd("GET");
        command.arg(format!("{}{key}", self.prefix));
        Box::pin(self.run(command))
    }

    fn take(&self, key: &str) -> BoxFuture<'_, Result<Option<String>>> {
        let mut command = redis::cmd("GETDEL");
        command.arg(format!("{}{key}", self.prefix));
        Box::pin(self.run(command))
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, Result<()>> {
        let mut command = redis::cmd("DEL");
        command.arg(format!("{}{key}", self.prefix));
        Box::pin(async move { self.run::<()>(command).await })
    }
}
