//! SSE streams kept in Redis streams, so a client resumes on any replica what another sent.
//!
//! Each event is an entry whose id is `0-<seq>` (seq from 1, assigned by the append script, so
//! writers on several replicas never collide) and whose fields are its kind and data:
//! `p` the priming event, `m` a message, `e` the end (with the request's answer, if any), `c`
//! "close the connection here" ([`Context::close_sse_stream`](crate::Context::close_sse_stream)).
//! The script also refreshes the key's TTL and publishes a nudge, which wakes the stream's
//! readers on every replica; a reader also polls now and then, so a nudge lost to a
//! reconnection only delays it.
//!
//! Event ids on the wire stay `<stream>-<seq>`. The streams of `POST`s are numbered
//! `tag << 32 | n` by the replica that opens them (unique without asking Redis); the `GET`
//! stream is 0.

use super::super::failure::Failure;
use super::super::replication::shared::{SharedPump, SharedReader, SharedSession, Snapshot};
use super::lifetime::{Ending, LUA_PRELUDE};
use super::record::{Charged, SessionRecord, Unsaved};
use super::{Replicas, Unavailable};
use crate::jsonrpc::RequestId;
use crate::session::budget::Budget;
use crate::session::outgoing::{Outgoing, Sink};
use crate::sync::lock;
use futures_util::future::BoxFuture;
use hyper::body::Bytes;
use redis::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, mpsc};

/// How often a waiting reader looks at its stream without a nudge.
const POLL: Duration = Duration::from_secs(1);

/// Events read from Redis at once.
const BATCH: usize = 64;

/// `append(key, kind, data, maxlen, ttl_ms, channel)`: the next seq of the stream at `key`
/// (after [`LUA_PRELUDE`]).
///
/// A request's stream is listed in its session's `streams:<id>`, a sorted set: running (score
/// 2^52) from its priming entry, then by the time it ended; past 32 ended streams (what one
/// process keeps, `RETAINED_STREAMS`) the oldest is deleted. Ending the session deletes the rest.
const APPEND_FN: &str = r"
local RUNNING = 4503599627370496
local function list_stream(key, kind, ttl)
  local base, sid, n = string.match(key, '^(.*)ev:(%x+):(%d+)$')
  if not base or n == '0' or (kind ~= 'p' and kind ~= 'e') then return end
  local streams = base .. 'streams:' .. sid
  if kind == 'p' then
    redis.call('ZADD', streams, 'NX', RUNNING, key)
  else
    redis.call('ZADD', streams, 'XX', clock(), key)
    while redis.call('ZCOUNT', streams, '-inf', '(' .. RUNNING) > 32 do
      redis.call('DEL', redis.call('ZPOPMIN', streams)[1])
    end
  end
  redis.call('PEXPIRE', streams, ttl)
end
local function append(key, kind, data, maxlen, ttl, channel)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  local seq = 1
  if #last > 0 then seq = tonumber(string.match(last[1][1], '%-(%d+)$')) + 1 end
  redis.call('XADD', key, 'MAXLEN', '~', maxlen, '0-' .. seq, 'k', kind, 'd', data)
  redis.call('PEXPIRE', key, ttl)
  list_stream(key, kind, ttl)
  redis.call('PUBLISH', channel, 'n' .. key)
  return seq
end
";

/// Appends `data` to the `GET` stream of every initialized session (with `uri`: of every one
/// subscribed to it), dropping ids whose record expired.
const FAN_OUT: &str = r"
local prefix, uri, data = ARGV[1], ARGV[2], ARGV[3]
local sessions = prefix .. 'initialized'
local now = clock()
redis.call('ZREMRANGEBYSCORE', sessions, '-inf', now)
local n = 0
for _, sid in ipairs(redis.call('ZRANGE', sessions, 0, -1)) do
  local record = redis.call('GET', prefix .. 'session:' .. sid)
  if not record then
    redis.call('ZREM', sessions, sid)
  else
    local wanted = uri == ''
    if not wanted then
      local ok, decoded = pcall(cjson.decode, record)
      if ok and type(decoded.subscriptions) == 'table' then
        for _, subscribed in ipairs(decoded.subscriptions) do
          if subscribed == uri then wanted = true break end
        end
      end
    end
    if wanted then
      append(prefix .. 'ev:' .. sid .. ':0', 'm', data, ARGV[4], ARGV[5], ARGV[6])
      n = n + 1
    end
  end
end
return n
";

/// Appends an end (ARGV[1]: its data) unless the stream at KEYS[1] ended already.
const END_IF_OPEN: &str = r"
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 and last[1][2][2] == 'e' then return 0 end
return append(KEYS[1], 'e', ARGV[1], ARGV[2], ARGV[3], ARGV[4])
";

/// How long a reader waits on a request's stream before it asks whether the replica running
/// the request is still alive.
const ORPHAN_CHECK_AFTER: Duration = Duration::from_secs(3);

/// The kinds of entries.
mod kind {
    pub const PRIME: &str = "p";
    pub const MESSAGE: &str = "m";
    pub const END: &str = "e";
    pub const CLOSE: &str = "c";
}

/// One entry read back: `(seq, kind, data)`.
type Entry = (u64, String, Vec<u8>);

impl Replicas {
    pub(super) fn stream_key(&self, session: &str, stream: u64) -> String {
        format!("{}ev:{session}:{stream}", self.prefix)
    }

    fn stream_cap(&self) -> usize {
        self.settings.capacity.max(1)
    }

    /// Appends one entry; its seq.
    async fn append(&self, key: &str, kind: &str, data: &[u8]) -> Result<u64, Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
            redis::Script::new(&format!(
                "{LUA_PRELUDE}\n{APPEND_FN}\nreturn append(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])"
            ))
        });
        let (cap, ttl, channel) = (self.stream_cap(), self.ttl_ms(), self.channel());
        self.run(|mut redis| async move {
            SCRIPT.key(key).arg(kind).arg(data).arg(cap).arg(ttl).arg(&channel).invoke_async(&mut redis).await
        })
        .await
    }

    /// [`append`](Self::append), retried a few times over a short outage: losing an event
    /// (above all an answer) leaves a client waiting.
    async fn append_retrying(&self, key: &str, kind: &str, data: &[u8]) {
        for attempt in 0..5 {
            if self.append(key, kind, data).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200) * (attempt + 1)).await;
        }
        tracing::error!(stream = key, "an event was lost: the session store stayed unreachable");
    }

    /// Ends the stream at `key` with `data`, unless it ended already (two readers may find its
    /// replica dead at once).
    async fn end_if_open(&self, key: &str, data: &[u8]) -> Result<(), Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> =
            std::sync::LazyLock::new(|| redis::Script::new(&format!("{LUA_PRELUDE}\n{APPEND_FN}\n{END_IF_OPEN}")));
        let (cap, ttl, channel) = (self.stream_cap(), self.ttl_ms(), self.channel());
        self.run(|mut redis| async move {
            SCRIPT.key(key).arg(data).arg(cap).arg(ttl).arg(&channel).invoke_async::<()>(&mut redis).await
        })
        .await
    }

    /// Whether the replica tagged `tag` is alive (its heartbeat has not expired).
    pub(super) async fn is_alive(&self, tag: u32) -> Result<bool, Unavailable> {
        let key = self.heartbeat_key(tag);
        self.run(|mut redis| async move { redis::cmd("EXISTS").arg(&key).query_async(&mut redis).await }).await
    }

    /// Writes a list-changed or resource-updated notification to the `GET` stream of every
    /// session it concerns.
    pub(super) async fn fan_out(&self, notification: &[u8], uri: Option<&str>) -> Result<u64, Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> =
            std::sync::LazyLock::new(|| redis::Script::new(&format!("{LUA_PRELUDE}\n{APPEND_FN}\n{FAN_OUT}")));
        let (prefix, cap, ttl, channel) = (self.prefix.clone(), self.stream_cap(), self.ttl_ms(), self.channel());
        self.run(|mut redis| async move {
            SCRIPT
                .arg(&prefix)
                .arg(uri.unwrap_or_default())
                .arg(notification)
                .arg(cap)
                .arg(ttl)
                .arg(&channel)
                .invoke_async(&mut redis)
                .await
        })
        .await
    }

    /// The entries of `key` after `after`, at most [`BATCH`].
    async fn range(&self, key: &str, after: u64) -> Result<Vec<Entry>, Unavailable> {
        let start = format!("0-{}", after + 1);
        let reply: Value = self
            .run(|mut redis| async move {
                redis::cmd("XRANGE").arg(key).arg(&start).arg("+").arg("COUNT").arg(BATCH).query_async(&mut redis).await
            })
            .await?;
        Ok(entries(reply))
    }

    /// The seq of the last entry of `key`; `None` when there is no such stream.
    async fn last_seq(&self, key: &str) -> Result<Option<u64>, Unavailable> {
        let reply: Value = self
            .run(|mut redis| async move {
                redis::cmd("XREVRANGE").arg(key).arg("+").arg("-").arg("COUNT").arg(1).query_async(&mut redis).await
            })
            .await?;
        Ok(entries(reply).first().map(|(seq, _, _)| *seq))
    }
}

/// Reads an XRANGE reply: `[[id, [field, value, ...]], ...]` (fields as a map under RESP3
/// servers that send one).
fn entries(reply: Value) -> Vec<Entry> {
    let Value::Array(items) = reply else { return Vec::new() };
    items
        .into_iter()
        .filter_map(|item| {
            let Value::Array(mut parts) = item else { return None };
            let fields = parts.pop()?;
            let id: String = redis::from_redis_value(parts.pop()?).ok()?;
            let seq = id.split_once('-')?.1.parse().ok()?;
            let pairs: Vec<(Value, Value)> = match fields {
                Value::Array(flat) => {
                    let mut flat = flat.into_iter();
                    std::iter::from_fn(|| Some((flat.next()?, flat.next()?))).collect()
                }
                Value::Map(pairs) => pairs,
                _ => return None,
            };
            let (mut kind, mut data) = (String::new(), Vec::new());
            for (name, value) in pairs {
                match redis::from_redis_value::<String>(name).ok().as_deref() {
                    Some("k") => kind = redis::from_redis_value(value).ok()?,
                    Some("d") => data = redis::from_redis_value(value).ok()?,
                    _ => {}
                }
            }
            Some((seq, kind, data))
        })
        .collect()
}

/// Whether a session still lives on this replica, and how many readers it has here.
#[derive(Default)]
struct Live {
    ended: AtomicBool,
    changed: Notify,
    readers: AtomicUsize,
}

/// The streams of one session shared through the store, and what this replica saved of it.
pub(crate) struct Replicated {
    store: Arc<Replicas>,
    session: String,
    /// Whom the session counts against on every replica (`None`: no one, only the tables).
    client: Option<String>,
    /// The low half of this replica's next stream number.
    next_stream: AtomicU64,
    live: Arc<Live>,
    /// The streams this replica writes, with the sink that feeds each (weakly).
    sinks: Mutex<Vec<(u64, mpsc::WeakSender<Outgoing>)>>,
    /// Sinks whose handler closed its SSE connection before the request had a stream.
    closed_early: Mutex<Vec<mpsc::WeakSender<Outgoing>>>,
    /// When this replica last gave the session's keys the idle TTL (`None`: not yet, so its
    /// next request does, at once: the first one ends the handshake TTL).
    last_touch: Mutex<Option<Instant>>,
    /// What the store holds of the session, as charged to its budget here.
    stored: Charged,
    /// The session's revision last saved, and the `SessionState` values.
    saved_revision: AtomicU64,
    saved_state: Mutex<Vec<(&'static str, String)>>,
    /// Another replica changed the session since this one read it.
    stale: AtomicBool,
}

impl Replicated {
    /// The streams of session `id`, counted against `client`; `unsolicited` (what the session
    /// sends outside any request) goes to its `GET` stream.
    pub fn new(
        store: Arc<Replicas>,
        id: &str,
        client: Option<String>,
        mut unsolicited: mpsc::Receiver<Outgoing>,
    ) -> Arc<Self> {
        let replicated = Arc::new(Self {
            store,
            session: id.to_owned(),
            client,
            next_stream: AtomicU64::new(1),
            live: Arc::default(),
            sinks: Mutex::default(),
            closed_early: Mutex::default(),
            last_touch: Mutex::new(None),
            stored: Charged::default(),
            saved_revision: AtomicU64::new(u64::MAX),
            saved_state: Mutex::default(),
            stale: AtomicBool::new(false),
        });
        let weak = Arc::downgrade(&replicated);
        tokio::spawn(async move {
            while let Some(message) = unsolicited.recv().await {
                let Some(streams) = weak.upgrade() else { return };
                streams.send_unsolicited(&message.bytes).await;
            }
        });
        replicated
    }

    fn key(&self, stream: u64) -> String {
        self.store.stream_key(&self.session, stream)
    }

    fn follower(&self, stream: u64, after: u64, closes_before: u64) -> Follower {
        self.live.readers.fetch_add(1, Ordering::AcqRel);
        let key = self.key(stream);
        Follower {
            store: Arc::clone(&self.store),
            wake: self.store.waiter(&key),
            key,
            stream,
            cursor: after,
            closes_before,
            pending: VecDeque::new(),
            lead: None,
            done: false,
            live: Arc::clone(&self.live),
            sent_key: (stream == 0).then(|| self.store.key("sent", &self.session)),
            idle_since: Instant::now(),
        }
    }

    /// Whom the session counts against on every replica.
    fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    /// Records what was saved (or read) of the session.
    fn saved(&self, revision: u64, state: Vec<(&'static str, String)>) {
        self.saved_revision.store(revision, Ordering::Release);
        *lock(&self.saved_state) = state;
    }

    /// A reader for a `GET`: resuming the stream of `last_event`, or the session's `GET`
    /// stream from the first event no client received. `Ok(None)`: no such stream.
    async fn follow(&self, last_event: Option<(u64, u64)>) -> Result<Option<Follower>, Unavailable> {
        let Some((stream, seq)) = last_event else {
            let key = self.store.key("sent", &self.session);
            let sent: Option<u64> = self
                .store
                .run(|mut redis| async move { redis::cmd("GET").arg(&key).query_async(&mut redis).await })
                .await?;
            let follower = self.follower(0, sent.unwrap_or(0), 0);
            return Ok(Some(follower.lead_with(super::super::sse::retry_frame(self.store.settings.retry))));
        };
        // Close markers already written were meant for the connections before this one.
        let last = self.store.last_seq(&self.key(stream)).await?;
        match last {
            None if stream != 0 => Ok(None),
            last => Ok(Some(self.follower(stream, seq, last.unwrap_or(0)))),
        }
    }

    /// Keeps the session's keys alive for a request: on its first request on this replica at
    /// once (the first request anywhere ends the record's handshake TTL), then at most once
    /// per tenth of the idle TTL, in the background. `Ok(false)`: the session no longer exists.
    async fn keep_alive(&self) -> Result<bool, Unavailable> {
        {
            let mut last = lock(&self.last_touch);
            match *last {
                None => {}
                Some(at) if at.elapsed() >= self.store.ttl / 10 => {
                    *last = Some(Instant::now());
                    drop(last);
                    self.store.refresh_ttl(&self.session, self.client());
                    return Ok(true);
                }
                Some(_) => return Ok(true),
            }
        }
        let kept = self.store.keep(&self.session, self.client(), None).await?;
        if kept {
            *lock(&self.last_touch) = Some(Instant::now());
        }
        Ok(kept)
    }

    /// Saves a new session's record, for the handshake timeout, unless its client holds
    /// `share` sessions already on the replicas together: `Ok(false)` then.
    async fn insert(&self, budget: &Budget, revision: u64, record: Snapshot, share: usize) -> Result<bool, Unsaved> {
        let json = SessionRecord::of(record, self.client()).encode()?;
        self.stored.set(budget, json.len(), 0, false).map_err(Unsaved::OverBudget)?;
        if !self.store.admit(&self.session, &json, self.client(), share).await? {
            return Ok(false);
        }
        self.saved(revision, Vec::new());
        Ok(true)
    }

    /// Saves what changed of the session since it was last saved (its record at `revision`
    /// if `record`, its `SessionState` values), and tells the other replicas. A change the
    /// store may not keep (past the record's bound, or the budget) is not saved, and this
    /// replica reads the session again on its next request, undoing the change here too.
    async fn write(
        &self,
        budget: &Budget,
        revision: u64,
        record: Option<Snapshot>,
        state: Vec<(&'static str, String)>,
    ) -> Result<(), Unsaved> {
        let changed_state: Vec<(&'static str, String)> = {
            let saved = lock(&self.saved_state);
            state.iter().filter(|value| !saved.contains(value)).cloned().collect()
        };
        if record.is_none() && changed_state.is_empty() {
            return Ok(());
        }
        let encoded = match record.map(|record| SessionRecord::of(record, self.client())) {
            Some(record) => Some((record.encode().inspect_err(|_| self.mark_stale())?, record.is_initialized())),
            None => None,
        };
        let record_bytes = encoded.as_ref().map_or(self.stored.record(), |(json, _)| json.len());
        let state_bytes = state.iter().map(|(name, json)| name.len() + json.len()).sum();
        if let Err(over) = self.stored.set(budget, record_bytes, state_bytes, false) {
            self.mark_stale();
            return Err(Unsaved::OverBudget(over));
        }
        if let Some((json, initialized)) = &encoded
            && !self.store.keep(&self.session, self.client(), Some((json, *initialized))).await?
        {
            return Err(Unsaved::Ended);
        }
        if !changed_state.is_empty() {
            self.store.save_state(&self.session, &changed_state).await?;
        }
        self.saved(revision, state);
        Ok(self.store.announce_changed(&self.session).await?)
    }
}

impl SharedSession for Replicated {
    fn open_stream(
        &self,
        sink: &Sink,
        messages: mpsc::Receiver<Outgoing>,
        request: Option<RequestId>,
    ) -> (Box<dyn SharedReader>, Box<dyn SharedPump>) {
        let stream = (u64::from(self.store.tag()) << 32) | self.next_stream.fetch_add(1, Ordering::Relaxed);
        let mut sinks = lock(&self.sinks);
        sinks.retain(|(_, weak)| weak.strong_count() > 0);
        sinks.push((stream, sink.downgrade()));
        drop(sinks);
        let mut early = lock(&self.closed_early);
        early.retain(|weak| weak.strong_count() > 0);
        let closed_early = early.iter().position(|weak| weak.upgrade().is_some_and(|s| s.same_channel(sink)));
        if let Some(index) = closed_early {
            early.swap_remove(index);
        }
        drop(early);
        let pump = Pump {
            store: Arc::clone(&self.store),
            key: self.key(stream),
            messages,
            close_first: closed_early.is_some(),
            request,
        };
        (Box::new(self.follower(stream, 0, 0)), Box::new(pump))
    }

    fn listen(&self, last_event: Option<(u64, u64)>) -> BoxFuture<'_, Result<Option<Box<dyn SharedReader>>, Failure>> {
        Box::pin(async move {
            let follower = self.follow(last_event).await?;
            Ok(follower.map(|follower| Box::new(follower) as Box<dyn SharedReader>))
        })
    }

    fn send_unsolicited<'a>(&'a self, message: &'a [u8]) -> BoxFuture<'a, ()> {
        Box::pin(async move { self.store.append_retrying(&self.key(0), kind::MESSAGE, message).await })
    }

    fn close_connection_of(&self, sink: &Sink) {
        let stream = lock(&self.sinks)
            .iter()
            .find(|(_, weak)| weak.upgrade().is_some_and(|s| s.same_channel(sink)))
            .map(|(stream, _)| *stream);
        match stream {
            Some(stream) => {
                let (store, key) = (Arc::clone(&self.store), self.key(stream));
                tokio::spawn(async move { store.append_retrying(&key, kind::CLOSE, b"").await });
            }
            None => lock(&self.closed_early).push(sink.downgrade()),
        }
    }

    fn has_reader(&self) -> bool {
        self.live.readers.load(Ordering::Acquire) > 0
    }

    fn end_here(&self) {
        self.live.ended.store(true, Ordering::Release);
        self.live.changed.notify_waiters();
    }

    fn expire_here(&self) {
        let (store, id, client) = (Arc::clone(&self.store), self.session.clone(), self.client.clone());
        tokio::spawn(async move {
            if let Ok(true) = store.end_session(&id, client.as_deref(), Ending::IfExpired).await {
                tracing::debug!(session = %id, "the session expired on every replica: its keys are deleted");
            }
        });
    }

    fn touch(&self) -> BoxFuture<'_, Result<bool, Failure>> {
        Box::pin(async move { Ok(self.keep_alive().await?) })
    }

    fn take_stale(&self) -> bool {
        self.stale.swap(false, Ordering::AcqRel)
    }

    fn mark_stale(&self) {
        self.stale.store(true, Ordering::Release);
    }

    fn loaded(&self, budget: &Budget, revision: u64, record: usize, state: usize, anyway: bool) -> Result<(), Failure> {
        self.saved(revision, Vec::new());
        self.stored.set(budget, record, state, anyway).map_err(|over| Unsaved::OverBudget(over).failure())
    }

    fn is_saved(&self, revision: u64) -> bool {
        revision == self.saved_revision.load(Ordering::Acquire)
    }

    fn save<'a>(
        &'a self,
        budget: &'a Budget,
        revision: u64,
        record: Option<Snapshot>,
        state: Vec<(&'static str, String)>,
    ) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move { self.write(budget, revision, record, state).await.map_err(Unsaved::failure) })
    }

    fn admit<'a>(
        &'a self,
        budget: &'a Budget,
        revision: u64,
        record: Snapshot,
        share: usize,
    ) -> BoxFuture<'a, Result<bool, Failure>> {
        Box::pin(async move { self.insert(budget, revision, record, share).await.map_err(Unsaved::failure) })
    }

    fn end_everywhere(&self) -> BoxFuture<'_, Result<(), Failure>> {
        Box::pin(async move {
            match self.store.end_session(&self.session, self.client(), Ending::Now).await {
                Ok(_) => Ok(()),
                Err(unavailable) => Err(unavailable.into()),
            }
        })
    }
}

/// Moves one request's messages from its sink into its stream in the store, until its answer.
pub(crate) struct Pump {
    store: Arc<Replicas>,
    key: String,
    messages: mpsc::Receiver<Outgoing>,
    /// The handler closed its connection before the stream existed.
    close_first: bool,
    /// The request's id, kept in the priming entry.
    request: Option<RequestId>,
}

impl SharedPump for Pump {
    fn start(mut self: Box<Self>, mut answer: Option<Outgoing>) {
        if answer.is_some() {
            self.messages.close(); // nothing comes after an answer
        }
        tokio::spawn(async move {
            let request = self.request.as_ref().and_then(|id| serde_json::to_vec(id).ok()).unwrap_or_default();
            self.store.append_retrying(&self.key, kind::PRIME, &request).await;
            if self.close_first {
                self.store.append_retrying(&self.key, kind::CLOSE, b"").await;
            }
            loop {
                let Some(message) = self.messages.recv().await.or_else(|| answer.take()) else {
                    // Cancelled: the stream ends without an answer.
                    return self.store.append_retrying(&self.key, kind::END, b"").await;
                };
                if message.is_response() {
                    return self.store.append_retrying(&self.key, kind::END, &message.bytes).await;
                }
                self.store.append_retrying(&self.key, kind::MESSAGE, &message.bytes).await;
            }
        });
    }
}

/// One connection's view of a stream in the store: the SSE body of a `POST` or `GET`.
pub(crate) struct Follower {
    store: Arc<Replicas>,
    key: String,
    stream: u64,
    /// The last seq read.
    cursor: u64,
    /// Close markers up to this seq were meant for earlier connections.
    closes_before: u64,
    wake: Arc<Notify>,
    pending: VecDeque<Bytes>,
    lead: Option<Bytes>,
    done: bool,
    live: Arc<Live>,
    /// For the `GET` stream: where to record the last event the client received.
    sent_key: Option<String>,
    /// Since when the stream has not grown.
    idle_since: Instant,
}

impl Follower {
    fn lead_with(mut self, frame: Bytes) -> Self {
        self.lead = Some(frame);
        self
    }

    /// The next frame to write, or `None` when this connection's part of the stream is over.
    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(frame) = self.lead.take().or_else(|| self.pending.pop_front()) {
                return Some(frame);
            }
            if self.done || self.live.ended.load(Ordering::Acquire) {
                return None;
            }
            let (wake, live) = (Arc::clone(&self.wake), Arc::clone(&self.live));
            let grew = wake.notified();
            let ended = live.changed.notified();
            tokio::pin!(grew, ended);
            grew.as_mut().enable();
            ended.as_mut().enable();
            if let Ok(entries) = self.store.range(&self.key, self.cursor).await
                && !entries.is_empty()
            {
                self.take(entries);
                self.idle_since = Instant::now();
                continue;
            }
            if self.stream != 0 && self.idle_since.elapsed() >= ORPHAN_CHECK_AFTER {
                self.idle_since = Instant::now();
                self.end_if_orphaned().await;
                continue;
            }
            let keep_alive = self.store.settings.keep_alive.clone();
            match keep_alive {
                Some(keep_alive) => tokio::select! {
                    () = &mut grew => {}
                    () = &mut ended => {}
                    () = tokio::time::sleep(POLL) => {}
                    () = keep_alive.tick().notified() => return Some(super::super::sse::keep_alive_frame()),
                },
                None => tokio::select! {
                    () = &mut grew => {}
                    () = &mut ended => {}
                    () = tokio::time::sleep(POLL) => {}
                },
            }
        }
    }

    /// Ends a request's stream whose replica died (its heartbeat expired) with an error
    /// answer to the request: nobody else would answer it.
    async fn end_if_orphaned(&self) {
        let owner = (self.stream >> 32) as u32;
        if owner == self.store.tag() || self.store.is_alive(owner).await.unwrap_or(true) {
            return;
        }
        let request = match self.store.range(&self.key, 0).await {
            Ok(entries) => entries
                .into_iter()
                .find(|(_, kind, _)| kind == kind::PRIME)
                .and_then(|(_, _, id)| serde_json::from_slice::<RequestId>(&id).ok()),
            Err(_) => return,
        };
        let error = crate::jsonrpc::ErrorObject::new(
            crate::jsonrpc::code::INTERNAL_ERROR,
            "Internal error: the server replica running this request stopped before answering; retry the request",
        );
        let answer = match request {
            Some(id) => crate::jsonrpc::encode_error(Some(&id), &error),
            None => Vec::new(),
        };
        tracing::warn!(stream = %self.key, "the replica running a request died; ending its stream with an error");
        let _ = self.store.end_if_open(&self.key, &answer).await;
    }

    fn take(&mut self, entries: Vec<Entry>) {
        use super::super::sse::{encode_event, primer, retry_frame};
        for (seq, kind, data) in entries {
            self.cursor = seq;
            match kind.as_str() {
                kind::PRIME => self.pending.push_back(primer(self.stream, seq, self.store.settings.retry)),
                kind::MESSAGE => self.pending.push_back(encode_event(self.stream, seq, &data)),
                kind::END => {
                    if !data.is_empty() {
                        self.pending.push_back(encode_event(self.stream, seq, &data));
                    }
                    self.done = true;
                    break;
                }
                kind::CLOSE if seq > self.closes_before => {
                    self.pending.push_back(retry_frame(self.store.settings.retry));
                    self.done = true;
                    break;
                }
                _ => {}
            }
        }
        if let Some(key) = &self.sent_key {
            let (store, key, seq) = (Arc::clone(&self.store), key.clone(), self.cursor);
            let ttl = store.ttl_ms();
            tokio::spawn(async move {
                let _ = store
                    .run(|mut redis| async move {
                        redis::cmd("SET").arg(&key).arg(seq).arg("PX").arg(ttl).query_async::<()>(&mut redis).await
                    })
                    .await;
            });
        }
    }
}

impl SharedReader for Follower {
    fn next(&mut self) -> BoxFuture<'_, Option<Bytes>> {
        Box::pin(self.next_frame())
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.live.readers.fetch_sub(1, Ordering::AcqRel);
    }
}
