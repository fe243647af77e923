//! [`SessionStore`]: where an HTTP server keeps its sessions. In this process by default; in
//! Redis (feature `redis`) for several replicas of one server behind a load balancer.

use std::time::Duration;

/// Where an HTTP server keeps its sessions, chosen with
/// [`Server::session_store`](crate::Server::session_store).
///
/// - [`SessionStore::memory`] (the default): in this process. Fastest; a session lives and dies
///   with its process, so a load balancer in front of several must route each session to the
///   same one.
/// - `SessionStore::redis` (feature `redis`): in Redis or Valkey, shared by every replica of
///   the server. Any replica serves any request of any session: session records, `SessionState`
///   values and SSE streams live in Redis, and answers to server-to-client requests,
///   cancellations and notifications cross between replicas through it. Each replica keeps the
///   sessions it served in memory too, so a call costs no Redis command in the common case.
///
/// ```no_run
/// # #[cfg(feature = "redis")]
/// # fn run() -> mcp_runtime::Result<()> {
/// use mcp_runtime::{Server, SessionStore};
///
/// let server = Server::new("notes", "1.0")
///     .session_store(SessionStore::redis("redis://127.0.0.1:6379/")?)
///     // Every replica must seal 2026-07-28 `requestState` with the same secret.
///     .request_state_secret(std::env::var("MCP_REQUEST_STATE_SECRET").unwrap_or_default());
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct SessionStore {
    pub(crate) kind: StoreKind,
}

#[derive(Clone, Debug, Default)]
pub(crate) enum StoreKind {
    #[default]
    Memory,
    #[cfg(feature = "redis")]
    Redis(RedisStore),
}

/// The settings of a Redis session store.
#[cfg(feature = "redis")]
#[derive(Clone, Debug)]
pub(crate) struct RedisStore {
    pub client: redis::Client,
    /// Prepended to every key and channel, so servers can share one Redis.
    pub prefix: String,
    /// How long one Redis command may take before the request needing it fails with 503.
    pub timeout: Duration,
}

impl SessionStore {
    /// Whether replicas share the sessions (any store but the memory one).
    pub(crate) fn is_shared(&self) -> bool {
        !matches!(self.kind, StoreKind::Memory)
    }

    /// Sessions in this process (the default).
    pub fn memory() -> Self {
        Self::default()
    }

    /// Sessions in the Redis (or Valkey) at `url` (`redis://[user:password@]host:port/[db]`, or
    /// `rediss://` for TLS if redis-rs was built with it). Connects lazily and reconnects by
    /// itself: a server starts while Redis is down, answers 503 to the requests that need it
    /// meanwhile, and recovers when it is back. Needs Redis 6 or later (RESP3).
    #[cfg(feature = "redis")]
    pub fn redis(url: &str) -> crate::Result<Self> {
        use redis::IntoConnectionInfo as _;
        let info = url
            .into_connection_info()
            .map_err(|err| crate::Error::msg(format!("invalid Redis URL `{}`: {err}", crate::clip::clip(url))))?;
        // Pub/sub on the command connection needs RESP3's push messages.
        let redis_settings = info.redis_settings().clone().set_protocol(redis::ProtocolVersion::RESP3);
        let info = info.set_redis_settings(redis_settings);
        let client = redis::Client::open(info).map_err(|err| crate::Error::msg(format!("Redis client: {err}")))?;
        let store = RedisStore { client, prefix: "mcp:".into(), timeout: Duration::from_secs(2) };
        Ok(Self { kind: StoreKind::Redis(store) })
    }

    /// The prefix of every Redis key and channel the server uses (default `mcp:`): servers
    /// that share one Redis need different prefixes. No effect on the memory store.
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        #[cfg(feature = "redis")]
        if let StoreKind::Redis(store) = &mut self.kind {
            store.prefix = prefix.into();
        }
        #[cfg(not(feature = "redis"))]
        let _ = prefix.into();
        self
    }

    /// How long one Redis command may take before the request that needs it fails (default
    /// 2 s). No effect on the memory store.
    #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        #[cfg(feature = "redis")]
        if let StoreKind::Redis(store) = &mut self.kind {
            store.timeout = timeout;
        }
        #[cfg(not(feature = "redis"))]
        let _ = timeout;
        self
    }
}
