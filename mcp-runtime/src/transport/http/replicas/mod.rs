//! Several replicas of one server sharing their sessions through Redis (feature `redis`,
//! [`SessionStore::redis`](crate::SessionStore::redis)).
//!
//! Each replica keeps the sessions it serves in its own table, as with the memory store, so
//! a call costs no Redis command in the common case; Redis holds what another replica needs to
//! serve the session next:
//!
//! | Key (after the prefix) | Holds |
//! |---|---|
//! | `session:<id>` | the session's record ([`record`]): version, client, log level, subscriptions, owner; the handshake TTL until its first request, then the idle TTL |
//! | `state:<id>` | its `SessionState` values, JSON by type name |
//! | `initialized` | the ids of initialized sessions by expiry, for list-changed notifications ([`lifetime`]) |
//! | `client:<client>` | a client's sessions by expiry, on every replica: its share ([`lifetime`]) |
//! | `ev:<id>:<stream>` | each SSE stream's events ([`stream`]), bounded, with the idle TTL |
//! | `streams:<id>` | the keys of the session's request streams: the running ones and the last 32 ended, deleted with the session |
//! | `sent:<id>` | the last event of the `GET` stream a client received, where a fresh `GET` starts |
//! | `task:<id>` | a task's record and the replica running it ([`tasks`]), with the task's TTL |
//! | `replica:<tag>` | a replica's heartbeat: a task or stream whose replica's heartbeat expired is answered by another |
//!
//! Every key has a TTL, or an owner that deletes it ([`lifetime`]): what one client makes Redis
//! keep is bounded by its share of sessions, each record's size bound ([`record`]) and the
//! TTLs.
//!
//! Replicas talk through one pub/sub channel ([`bus`]): a client's message that belongs to a
//! request running elsewhere (an answer to a server-to-client request, a cancellation), a
//! session's end, a changed record, a catalog change, and "a stream grew".
//!
//! A request that needs Redis while it is unreachable is answered 503; the log says so once
//! per interval, and the connection manager reconnects by itself.

pub(super) mod bus;
pub(super) mod lifetime;
pub(super) mod record;
mod seam;
pub(super) mod stream;
mod tasks;

use super::failure::Failure;
use super::sse::StreamSettings;
use crate::registry::Change;
use crate::store::RedisStore;
use crate::sync::lock;
use foldhash::{HashMap, HashMapExt as _};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, broadcast};

/// Redis could not be reached (or did not answer in time): the request gets 503.
#[derive(Debug)]
pub(super) struct Unavailable;

impl From<Unavailable> for Failure {
    fn from(_: Unavailable) -> Self {
        Self {
            status: hyper::StatusCode::SERVICE_UNAVAILABLE,
            code: crate::jsonrpc::code::INTERNAL_ERROR,
            message: "Service Unavailable: the session store is unreachable; retry shortly".into(),
        }
    }
}

/// This replica's view of the shared store.
pub(super) struct Replicas {
    redis: ConnectionManager,
    prefix: String,
    /// This replica's number, random: it tags the ids of the streams it opens and of its
    /// requests to clients, so replicas sharing a session never pick the same.
    tag: u32,
    timeout: Duration,
    /// The idle timeout: what every key of a session lives after its last use.
    ttl: Duration,
    /// The handshake timeout: what a new session's record lives until its first request.
    handshake: Duration,
    pub settings: StreamSettings,
    health: Health,
    /// Readers waiting for a stream to grow, by key.
    waiters: Mutex<HashMap<String, Weak<Notify>>>,
    /// This replica's sessions, for what other replicas say about them.
    local: OnceLock<Weak<dyn LocalSessions>>,
    /// Where the catalog changes other replicas made are announced to the sessions here.
    announce_here: OnceLock<broadcast::Sender<Change>>,
}

/// What the bus needs of the sessions this replica holds (the HTTP service implements it; the
/// store sits below it, and knows sessions only by id).
pub(super) trait LocalSessions: Send + Sync {
    /// Hands a client's message to this replica's copy of `session`, if it has one.
    fn deliver(&self, session: &str, message: String);
    /// Drops this replica's copy of `session`, ending what it runs here.
    fn end(&self, session: &str);
    /// Another replica changed `session`: its next request here reads it again first.
    fn mark_stale(&self, session: &str);
    /// Notes may have been lost (the connection to Redis dropped): every session held here
    /// reads its record again on its next request.
    fn mark_all_stale(&self);
    /// A client's `tasks/update` or `tasks/cancel`, for a task this replica runs.
    fn signal_task(&self, task: &str, signal: crate::tasks::Signal);
    /// A task changed on another replica.
    fn task_changed(&self, task: &crate::tasks::StoredTask);
}

impl Replicas {
    /// Connects lazily (a replica starts while Redis is down) and starts listening to the
    /// other replicas. `ttl`: the idle timeout; `handshake`: the handshake timeout. Must run
    /// inside the tokio runtime.
    pub fn start(
        store: &RedisStore,
        settings: StreamSettings,
        ttl: Duration,
        handshake: Duration,
    ) -> crate::Result<Arc<Self>> {
        let (pushes, received) = tokio::sync::mpsc::unbounded_channel();
        let config = ConnectionManagerConfig::new()
            .set_push_sender(pushes)
            .set_automatic_resubscription()
            .set_connection_timeout(Some(store.timeout))
            .set_response_timeout(Some(store.timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let redis = ConnectionManager::new_lazy_with_config(store.client.clone(), config)
            .map_err(|err| crate::Error::msg(format!("Redis session store: {err}")))?;
        let mut tag = [0u8; 4];
        getrandom::fill(&mut tag).map_err(|err| crate::Error::msg(format!("no randomness: {err}")))?;
        let replicas = Arc::new(Self {
            redis,
            prefix: store.prefix.clone(),
            // 20 bits: a request id `tag << 32 | n` stays an exact JSON number (below 2^53).
            tag: u32::from_le_bytes(tag) & 0xF_FFFF,
            timeout: store.timeout,
            ttl,
            handshake,
            settings,
            health: Health::default(),
            waiters: Mutex::new(HashMap::new()),
            local: OnceLock::new(),
            announce_here: OnceLock::new(),
        });
        tokio::spawn(bus::listen(Arc::downgrade(&replicas), received));
        tokio::spawn(heartbeat(Arc::downgrade(&replicas)));
        Ok(replicas)
    }

    /// Connects this store to the sessions it serves.
    pub fn attach(&self, local: Weak<dyn LocalSessions>) {
        let _ = self.local.set(local);
    }

    fn local(&self) -> Option<Arc<dyn LocalSessions>> {
        self.local.get().and_then(Weak::upgrade)
    }

    pub fn tag(&self) -> u32 {
        self.tag
    }

    /// The first id of this replica's requests to clients.
    pub fn first_request_id(&self) -> i64 {
        (i64::from(self.tag) << 32) | 1
    }

    fn key(&self, kind: &str, session: &str) -> String {
        format!("{}{kind}:{session}", self.prefix)
    }

    fn heartbeat_key(&self, tag: u32) -> String {
        format!("{}replica:{tag}", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}bus", self.prefix)
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX).max(1000)
    }

    /// Runs one exchange with Redis, bounded by the store's timeout; failures are logged (once
    /// per interval) and come back as [`Unavailable`].
    ///
    /// After a failure, a `PING` goes first: the connection manager replaces a broken
    /// connection when a command fails on it, so without it the first exchange after Redis
    /// comes back would fail for nothing.
    async fn run<T, F>(&self, exchange: impl FnOnce(ConnectionManager) -> F) -> Result<T, Unavailable>
    where
        F: Future<Output = redis::RedisResult<T>>,
    {
        let attempt = async {
            if self.health.is_down() {
                let mut redis = self.redis.clone();
                let _ = redis::cmd("PING").query_async::<()>(&mut redis).await;
            }
            exchange(self.redis.clone()).await
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => {
                self.health.succeeded();
                Ok(value)
            }
            Ok(Err(err)) => {
                self.health.failed(&err.to_string());
                Err(Unavailable)
            }
            Err(_) => {
                self.health.failed(&format!("no answer within {:?}", self.timeout));
                Err(Unavailable)
            }
        }
    }

    /// A notifier for readers of the stream `key`, woken when any replica appends to it.
    pub fn waiter(&self, key: &str) -> Arc<Notify> {
        let mut waiters = lock(&self.waiters);
        if let Some(notify) = waiters.get(key).and_then(Weak::upgrade) {
            return notify;
        }
        waiters.retain(|_, weak| weak.strong_count() > 0);
        let notify = Arc::new(Notify::new());
        waiters.insert(key.to_owned(), Arc::downgrade(&notify));
        notify
    }

    /// Wakes the readers of `key` on this replica.
    fn wake(&self, key: &str) {
        if let Some(notify) = lock(&self.waiters).get(key).and_then(Weak::upgrade) {
            notify.notify_waiters();
        }
    }

    /// Gives a session's keys the idle TTL again, in the background (the request does not
    /// wait). A session whose record is gone (ended while this replica missed the note, or
    /// expired) is dropped here too.
    fn refresh_ttl(self: &Arc<Self>, id: &str, client: Option<&str>) {
        let (replicas, id, client) = (Arc::clone(self), id.to_owned(), client.map(str::to_owned));
        tokio::spawn(async move {
            if matches!(replicas.keep(&id, client.as_deref(), None).await, Ok(false))
                && let Some(local) = replicas.local()
            {
                tracing::debug!(session = %id, "the session's record is gone from the store: dropping it here");
                local.end(&id);
            }
        });
    }
}

/// How often a replica says it is alive, and how long the word lasts.
const HEARTBEAT: Duration = Duration::from_secs(1);
const HEARTBEAT_TTL: Duration = Duration::from_secs(4);

/// Keeps this replica's heartbeat key alive, so readers of the streams of its requests can
/// tell it died (and answer them for it).
async fn heartbeat(replicas: Weak<Replicas>) {
    let mut every = tokio::time::interval(HEARTBEAT);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(store) = replicas.upgrade() else { return };
        let key = store.heartbeat_key(store.tag);
        let ttl = HEARTBEAT_TTL.as_millis() as u64;
        let _ = store
            .run(|mut redis| async move {
                redis::cmd("SET").arg(&key).arg(1).arg("PX").arg(ttl).query_async::<()>(&mut redis).await
            })
            .await;
    }
}

/// Whether Redis answers, for the log: an outage is reported when it starts and then at most
/// once per [`Health::REPORT_EVERY`], and its end once.
#[derive(Default)]
struct Health {
    /// Since when, and when it was last reported.
    down: Mutex<Option<(Instant, Instant)>>,
}

impl Health {
    const REPORT_EVERY: Duration = Duration::from_secs(30);

    fn failed(&self, error: &str) {
        let now = Instant::now();
        let mut down = lock(&self.down);
        match &mut *down {
            None => {
                *down = Some((now, now));
                tracing::error!(
                    "Redis session store unreachable ({error}); requests that need it get 503 until it is back"
                );
            }
            Some((since, reported)) if now.duration_since(*reported) >= Self::REPORT_EVERY => {
                *reported = now;
                tracing::error!(
                    "Redis session store still unreachable after {:?} ({error})",
                    now.duration_since(*since)
                );
            }
            Some(_) => {}
        }
    }

    fn is_down(&self) -> bool {
        lock(&self.down).is_some()
    }

    fn succeeded(&self) {
        let mut down = lock(&self.down);
        if let Some((since, _)) = down.take() {
            tracing::warn!("Redis session store reachable again after {:?}", since.elapsed());
        }
    }
}
