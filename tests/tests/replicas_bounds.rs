//! What one client can make replicas sharing a Redis session store keep, and for how long: the
//! per-client share of sessions, the handshake timeout and the end of a session hold across
//! replicas, and Redis holds nothing past them (issue 31, row 5). Two replicas of the
//! conformance fixture (`mcp_tests::cluster`) share one real `redis-server`; the tests talk to
//! each replica directly (a load balancer would hide the client's address), from several
//! loopback addresses to be several clients.
#![cfg(feature = "services")]

use hyper::{Method, StatusCode};
use mcp_tests::HttpClient;
use mcp_tests::cluster::{REQUEST_STATE_SECRET, Redis, Replica, conformance_binary, free_port};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

/// How long a replica may take to hear, through Redis, that a session ended elsewhere.
const ENDED_ELSEWHERE: Duration = Duration::from_secs(3);

/// Redis and two replicas sharing it, each given `env` too. Dropped while a test panics, it
/// prints every part's log.
struct Pair {
    replicas: Vec<Replica>,
    redis: Redis,
}

impl Pair {
    fn start(env: &[(&str, &str)]) -> Self {
        let redis = Redis::start();
        let url = redis.url();
        let mut all = vec![("REDIS_URL", url.as_str()), ("MCP_REQUEST_STATE_SECRET", REQUEST_STATE_SECRET)];
        all.extend_from_slice(env);
        let replicas = (0..2).map(|_| Replica::start(&conformance_binary(), free_port(), &all)).collect();
        Self { replicas, redis }
    }

    /// A client of replica `i`, connecting from `127.0.0.<host>`.
    fn client(&self, i: usize, host: u8) -> HttpClient {
        HttpClient::new(self.replicas[i].address()).from_source(IpAddr::V4(Ipv4Addr::new(127, 0, 0, host)))
    }

    /// A client of replica `i` in `session`, from 127.0.0.1.
    fn in_session(&self, i: usize, session: &str) -> HttpClient {
        let mut client = self.client(i, 1);
        client.session = Some(session.to_owned());
        client
    }

    /// `initialize` on replica `i` from `127.0.0.<host>`: the status, and the session id.
    async fn initialize(&self, i: usize, host: u8) -> (StatusCode, Option<String>) {
        let reply = self.client(i, host).post(&initialize()).await;
        let session = reply.header("mcp-session-id").map(str::to_owned);
        (reply.status, session)
    }

    /// A session started on replica `i` from `127.0.0.<host>` and completed (its
    /// `notifications/initialized`) on the other; the status of the `initialize`.
    async fn open(&self, i: usize, host: u8) -> (StatusCode, Option<String>) {
        let (status, session) = self.initialize(i, host).await;
        if let Some(session) = &session {
            let status = self.in_session(1 - i, session).post(&initialized()).await.status;
            assert_eq!(status, StatusCode::ACCEPTED, "notifications/initialized of {session} on replica {}", 1 - i);
        }
        (status, session)
    }

    /// The status of a `ping` in `session` on replica `i`.
    async fn ping(&self, i: usize, session: &str) -> StatusCode {
        self.in_session(i, session).post(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).await.status
    }

    /// How many Redis keys name `session`.
    fn keys_of(&self, session: &str) -> usize {
        let reply = self.redis.command(&format!("KEYS *{session}*")).expect("Redis answers KEYS");
        count(&reply)
    }

    /// Every key in Redis.
    fn key_count(&self) -> usize {
        // DBSIZE counts keys past their TTL until Redis's expiry cycle reclaims them; a SCAN
        // over every key drops those it meets, so what is counted is what is live.
        self.redis.command("SCAN 0 COUNT 1000000").expect("Redis answers SCAN");
        let reply = self.redis.command("DBSIZE").expect("Redis answers DBSIZE");
        reply.trim().trim_start_matches(':').parse().unwrap_or_else(|_| panic!("DBSIZE: {reply:?}"))
    }

    /// Redis's `used_memory`, in bytes.
    fn used_memory(&self) -> u64 {
        let reply = self.redis.command("INFO memory").expect("Redis answers INFO");
        reply
            .lines()
            .find_map(|line| line.strip_prefix("used_memory:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no used_memory in {reply:?}"))
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for (i, replica) in self.replicas.iter().enumerate() {
                eprintln!("=== replica {i} on {}\n{}", replica.port(), replica.log());
            }
            eprintln!("=== redis on {}\n{}", self.redis.port(), self.redis.log());
        }
    }
}

/// The element count of a RESP array reply (`*N\r\n...`).
fn count(reply: &str) -> usize {
    reply
        .strip_prefix('*')
        .and_then(|rest| rest.split("\r\n").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not an array reply: {reply:?}"))
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bounds-test", "version": "0"},
    }})
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// Waits until replica `i` answers a `ping` in `session` with `status`, for up to `within`.
async fn until_ping_is(pair: &Pair, i: usize, session: &str, status: StatusCode, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let now = pair.ping(i, session).await;
        if now == status {
            return;
        }
        assert!(Instant::now() < deadline, "replica {i} still answers {now} in session {session}, not {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Sessions started from one address on both replicas in turn stop at its share (4), whichever
/// replica started or completed each: another client still gets a session on either, and a
/// session ended on one replica frees a place for the client on the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holds_only_its_share_of_sessions_across_replicas() {
    let pair = Pair::start(&[("MCP_MAX_SESSIONS_PER_CLIENT", "4")]);
    let mut opened = Vec::new();
    for i in 0..12 {
        let (status, session) = pair.open(i % 2, 1).await;
        match status {
            StatusCode::OK => opened.push(session.expect("a session id")),
            StatusCode::TOO_MANY_REQUESTS => {}
            other => panic!("initialize {i} from the flooder: {other}"),
        }
    }
    assert_eq!(opened.len(), 4, "the flooder got more than its share across the two replicas: {opened:?}");
    for i in 0..2 {
        let (status, _) = pair.open(i, 2).await;
        assert_eq!(status, StatusCode::OK, "another client on replica {i}");
    }

    // Ended on replica 1, a session started on replica 0 gives its place back everywhere.
    let ended = &opened[0];
    let status = pair.in_session(1, ended).send(Method::DELETE, "/mcp", &[], Vec::new()).await.status;
    assert_eq!(status, StatusCode::NO_CONTENT, "DELETE");
    assert_eq!(pair.open(0, 1).await.0, StatusCode::OK, "the place of the ended session");
    assert_eq!(pair.open(1, 1).await.0, StatusCode::TOO_MANY_REQUESTS, "and no more");
}

/// A session no request used within the handshake timeout is refused by every replica, and
/// Redis holds nothing of it; one completed on the other replica in time lives on, on both,
/// past the handshake timer of the replica that started it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_without_its_handshake_is_gone_from_every_replica_and_from_redis() {
    const HANDSHAKE: Duration = Duration::from_millis(800);
    let pair = Pair::start(&[("MCP_HANDSHAKE_TIMEOUT_MS", "800")]);
    let (status, abandoned) = pair.initialize(0, 1).await;
    assert_eq!(status, StatusCode::OK);
    let abandoned = abandoned.expect("a session id");
    let (status, completed) = pair.open(0, 1).await;
    assert_eq!(status, StatusCode::OK);
    let completed = completed.expect("a session id");
    assert!(pair.keys_of(&abandoned) >= 1, "the new session's record is in Redis");

    tokio::time::sleep(HANDSHAKE * 2).await;
    for i in [1, 0] {
        let status = pair.in_session(i, &abandoned).post(&initialized()).await.status;
        assert_eq!(status, StatusCode::NOT_FOUND, "the abandoned session on replica {i}, past the handshake timeout");
    }
    assert_eq!(pair.keys_of(&abandoned), 0, "Redis still holds keys of the abandoned session");
    for i in [0, 1] {
        assert_eq!(pair.ping(i, &completed).await, StatusCode::OK, "the completed session on replica {i}");
    }
}

/// A session's requests answered on streams, on both replicas: Redis keeps the last 32 ended
/// streams, as one process does. DELETEd on one replica, the session is refused by the other
/// (which served it too, and held a copy), and Redis holds no key of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_session_is_refused_by_every_replica_and_its_keys_are_gone() {
    let pair = Pair::start(&[]);
    let (status, session) = pair.open(0, 1).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session id");
    for id in 0..40 {
        // Logs before its answer: the answer comes on a stream, kept in Redis.
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "test_tool_with_logging", "arguments": {}}});
        let reply = pair.in_session(id as usize % 2, &session).post(&call).await;
        assert_eq!(reply.status, StatusCode::OK);
        let messages = reply.messages().await;
        assert!(messages.last().is_some_and(|m| m.get("result").is_some()), "{messages:?}");
    }
    let streams = count(&pair.redis.command(&format!("KEYS *ev:{session}:*")).expect("KEYS"));
    assert_eq!(streams, 32, "the request streams Redis keeps for the session");

    let status = pair.in_session(1, &session).send(Method::DELETE, "/mcp", &[], Vec::new()).await.status;
    assert_eq!(status, StatusCode::NO_CONTENT, "DELETE on replica 1");
    assert_eq!(pair.ping(1, &session).await, StatusCode::NOT_FOUND, "on the replica that ended it");
    until_ping_is(&pair, 0, &session, StatusCode::NOT_FOUND, ENDED_ELSEWHERE).await;
    assert_eq!(pair.keys_of(&session), 0, "Redis still holds keys of the ended session");
}

/// Subscriptions grow a session's record in Redis only up to the store's bound: past it, the
/// request that would pass it gets an error, the record stays within the bound, and the
/// session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_record_in_redis_stays_within_its_bound() {
    let pair = Pair::start(&[]);
    let (_, session) = pair.open(0, 1).await;
    let session = session.expect("a session id");
    let mut refusal = None;
    for n in 0..96 {
        let uri = format!("test://template/{}{n}/data", "x".repeat(8 * 1024));
        let subscribe = json!({"jsonrpc": "2.0", "id": n, "method": "resources/subscribe", "params": {"uri": uri}});
        let reply = pair.in_session(n as usize % 2, &session).post(&subscribe).await;
        let status = reply.status;
        let body: Value = serde_json::from_slice(&reply.bytes().await).unwrap_or(Value::Null);
        if status != StatusCode::OK || body.get("error").is_some() {
            refusal = Some((n, status, body));
            break;
        }
    }
    let (n, status, body) = refusal.expect("768 KiB of subscriptions all went into the session's record");
    assert!(n > 4, "a few long subscriptions fit: refused at {n}");
    assert!(body.to_string().contains("bytes"), "the refusal says why ({status}): {body}");
    let reply = pair.redis.command(&format!("STRLEN mcp:session:{session}")).expect("STRLEN");
    let stored: usize = reply.trim().trim_start_matches(':').parse().unwrap_or_else(|_| panic!("{reply:?}"));
    assert!(stored > 0 && stored <= 256 * 1024, "the stored record takes {stored} bytes");
    for i in [0, 1] {
        assert_eq!(pair.ping(i, &session).await, StatusCode::OK, "the session goes on, on replica {i}");
    }
}

/// The attack replayed small: rounds of `initialize` from one address, none completed, spread
/// over both replicas and past the handshake timeout. The flooder never holds more than its
/// share at once; another client is served throughout; once the handshakes expire Redis holds
/// no session of the flood. The key counts and `used_memory` are printed for the record.
///
/// "At once" is what the share promises: a round that takes longer than the handshake timeout
/// (a loaded machine) sees its first sessions expire and their places taken again. So the
/// test counts the sessions opened within any window shorter than the timeout: each was
/// created after the window began (its request was sent then) and cannot expire before the
/// timeout has passed, so all of them are held at the window's end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_flood_in_rounds_leaves_redis_bounded() {
    const ROUNDS: usize = 2;
    const PER_ROUND: usize = 500;
    const SHARE: usize = 100;
    const HANDSHAKE: Duration = Duration::from_secs(1);
    let pair = Pair::start(&[("MCP_MAX_SESSIONS_PER_CLIENT", "100"), ("MCP_HANDSHAKE_TIMEOUT_MS", "1000")]);
    let before = (pair.key_count(), pair.used_memory());
    for round in 0..ROUNDS {
        // (sent, answered) of each session opened.
        let mut opened = Vec::new();
        for i in 0..PER_ROUND {
            let sent = Instant::now();
            match pair.initialize(i % 2, 1).await.0 {
                StatusCode::OK => opened.push((sent, Instant::now())),
                StatusCode::TOO_MANY_REQUESTS => {}
                other => panic!("initialize {i} of round {round}: {other}"),
            }
        }
        let during = (pair.key_count(), pair.used_memory());
        eprintln!(
            "round {round}: {} sessions opened; Redis: {} keys, used_memory {} B",
            opened.len(),
            during.0,
            during.1
        );
        let held = most_held_at_once(&opened, HANDSHAKE * 9 / 10);
        assert!(held <= SHARE, "round {round}: the flooder held {held} sessions at once, past its share of {SHARE}");
        assert_eq!(pair.open(round % 2, 2).await.0, StatusCode::OK, "another client during round {round}");
        tokio::time::sleep(HANDSHAKE + HANDSHAKE / 2).await;
    }
    let after = (pair.key_count(), pair.used_memory());
    eprintln!(
        "before: {} keys, {} B; after {ROUNDS} rounds of {PER_ROUND}: {} keys, {} B",
        before.0, before.1, after.0, after.1
    );
    // Left: the two replicas' heartbeats, and what the other client's sessions hold.
    assert!(after.0 <= before.0 + 2 + 2 * 4, "Redis holds {} keys after the flood's handshakes expired", after.0);
}

/// The most of `opened` ((sent, answered) instants) that fall within one window of `width`:
/// sent at or after its start and answered before its end.
fn most_held_at_once(opened: &[(Instant, Instant)], width: Duration) -> usize {
    opened
        .iter()
        .map(|&(start, _)| {
            opened.iter().filter(|&&(sent, answered)| sent >= start && answered <= start + width).count()
        })
        .max()
        .unwrap_or(0)
}
