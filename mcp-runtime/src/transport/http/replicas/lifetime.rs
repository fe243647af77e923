//! How long what Redis holds of a session lives, and whom it counts against, on every replica
//! at once: the per-client share of sessions, the handshake and idle TTLs, and the end of a
//! session.
//!
//! - A new session's record lives for the handshake timeout; the session's first request on
//!   any replica gives it and its keys the idle TTL, refreshed as it is used. A session nobody
//!   used after `initialize` is thus gone from Redis when its handshake times out.
//! - Each client's sessions are a sorted set, `client:<client>`, of session ids by the time
//!   their record expires (Redis's clock): admitting a session drops the expired ones, counts
//!   the rest and adds the new one in one script, so replicas admitting at once, or rounds of
//!   `initialize` spread over time, never pass the share.
//! - The initialized sessions (those list changes reach) are a sorted set of the same kind,
//!   `initialized`, and a session's request streams are listed in `streams:<id>` (at most 32
//!   ended ones kept, `stream.rs`): ending a session deletes every key it has, and each set drops
//!   what expired whenever it is written, its own TTL that of its latest member. Every key thus
//!   has a TTL, or an owner that deletes it.

use super::bus::Note;
use super::{Replicas, Unavailable};

/// What every script below starts with: the time on Redis's clock in milliseconds (one clock
/// for every replica), and the bookkeeping of the sorted sets of sessions by expiry.
pub(super) const LUA_PRELUDE: &str = r"
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Counts `id` in the set `key` until `expiry` (only if it is there already, with `existing`),
-- drops the members that expired, and lets the set live as long as its latest member.
local function index(key, id, expiry, now, existing)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if existing then redis.call('ZADD', key, 'XX', expiry, id) else redis.call('ZADD', key, expiry, id) end
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if #last > 0 then redis.call('PEXPIRE', key, math.max(1, tonumber(last[2]) - now)) end
end
";

/// `KEYS`: the record, [the client's sessions]. `ARGV`: id, handshake TTL, record, share.
/// Saves a new session's record unless the client holds its share already: 1, else 0.
const ADMIT: &str = r"
local now = clock()
local ttl = tonumber(ARGV[2])
if #KEYS > 1 then
  -- The client's sessions that have not expired (`index` drops the others as it adds this one).
  if redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf') >= tonumber(ARGV[4]) then return 0 end
  index(KEYS[2], ARGV[1], now + ttl, now, false)
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
return 1
";

/// `KEYS`: the record, state, sent, streams, the initialized sessions, [the client's sessions]. `ARGV`: id,
/// idle TTL, the record to save (`''`: keep it), `'1'` if the session is initialized.
/// Gives every key of a session that still exists the idle TTL: 1, else 0 (it ended, or expired).
const KEEP: &str = r"
local now = clock()
local ttl = tonumber(ARGV[2])
if ARGV[3] == '' then
  if redis.call('PEXPIRE', KEYS[1], ttl) == 0 then return 0 end
elseif not redis.call('SET', KEYS[1], ARGV[3], 'XX', 'PX', ttl) then
  return 0
end
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
index(KEYS[5], ARGV[1], now + ttl, now, ARGV[4] ~= '1')
if #KEYS > 5 then index(KEYS[6], ARGV[1], now + ttl, now, true) end
return 1
";

/// `KEYS`: the record, state, sent, the `GET` stream, streams, the initialized sessions, [the
/// client's sessions]. `ARGV`: id, the note, the channel, `'1'` to end it only if its record is gone.
/// Deletes every key of the session and tells the replicas: 1, else 0.
const END: &str = r"
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for _, key in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do redis.call('DEL', key) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[1])
if #KEYS > 6 then redis.call('ZREM', KEYS[7], ARGV[1]) end
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
";

/// Whether a session ends whatever, or only once its record is gone from Redis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The client ended it (`DELETE`).
    Now,
    /// Its time ran out on this replica (idle, or no request after `initialize`): it ends
    /// everywhere only if no replica kept it alive meanwhile.
    IfExpired,
}

/// A script, compiled once with the prelude.
fn script(body: &str) -> redis::Script {
    redis::Script::new(&format!("{LUA_PRELUDE}\n{body}"))
}

impl Replicas {
    /// The key of `client`'s sessions (`client`: as `Client::store_key` names it).
    fn client_key(&self, client: &str) -> String {
        format!("{}client:{client}", self.prefix)
    }

    /// The key of the initialized sessions (not `sessions`, a set of them before it was by expiry).
    fn initialized_key(&self) -> String {
        format!("{}initialized", self.prefix)
    }

    /// The key listing session `id`'s request streams.
    fn streams_key(&self, id: &str) -> String {
        self.key("streams", id)
    }

    fn handshake_ms(&self) -> u64 {
        u64::try_from(self.handshake.as_millis()).unwrap_or(u64::MAX).max(1)
    }

    /// Saves a new session's `record` for the handshake timeout, counted against `client`
    /// unless it holds `share` sessions already, on whichever replicas: `Ok(false)` then.
    pub async fn admit(&self, id: &str, record: &str, client: Option<&str>, share: usize) -> Result<bool, Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| script(ADMIT));
        let mut invocation = SCRIPT.key(self.key("session", id));
        if let Some(client) = client {
            invocation.key(self.client_key(client));
        }
        invocation.arg(id).arg(self.handshake_ms()).arg(record).arg(share);
        self.run(|mut redis| async move { invocation.invoke_async::<bool>(&mut redis).await }).await
    }

    /// Gives session `id`'s keys the idle TTL from now, saving `record` first if there is one;
    /// `Ok(false)` when the session no longer exists (ended, or expired).
    pub async fn keep(
        &self,
        id: &str,
        client: Option<&str>,
        record: Option<(&str, bool)>,
    ) -> Result<bool, Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| script(KEEP));
        let mut invocation = SCRIPT.key(self.key("session", id));
        invocation.key(self.key("state", id)).key(self.key("sent", id)).key(self.streams_key(id));
        invocation.key(self.initialized_key());
        if let Some(client) = client {
            invocation.key(self.client_key(client));
        }
        let (json, initialized) = record.unwrap_or_default();
        invocation.arg(id).arg(self.ttl_ms()).arg(json).arg(if initialized { "1" } else { "0" });
        self.run(|mut redis| async move { invocation.invoke_async::<bool>(&mut redis).await }).await
    }

    /// Ends session `id` everywhere (with [`Ending::IfExpired`], only if its record is gone):
    /// every key of it goes, and every replica drops its copy (ending what it runs for the
    /// session). `Ok(false)` when it was not ended.
    pub async fn end_session(&self, id: &str, client: Option<&str>, ending: Ending) -> Result<bool, Unavailable> {
        static SCRIPT: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| script(END));
        let mut invocation = SCRIPT.key(self.key("session", id));
        invocation.key(self.key("state", id)).key(self.key("sent", id)).key(self.stream_key(id, 0));
        invocation.key(self.streams_key(id)).key(self.initialized_key());
        if let Some(client) = client {
            invocation.key(self.client_key(client));
        }
        let note = Note::Ended { session: id.to_owned() }.encode(self.tag);
        invocation.arg(id).arg(note).arg(self.channel()).arg(if ending == Ending::IfExpired { "1" } else { "0" });
        self.run(|mut redis| async move { invocation.invoke_async::<bool>(&mut redis).await }).await
    }
}
