//! [`RateLimit`]: so many requests per caller, with `governor` (GCRA, one atomic per check),
//! in a table of callers with a cap.

use super::{CallerId, Middleware, RequestInfo, Verdict};
use crate::jsonrpc::ErrorObject;
use dashmap::DashMap;
use governor::RateLimiter;
use governor::clock::{Clock as _, DefaultClock};
use governor::nanos::Nanos;
use governor::state::keyed::ShrinkableKeyedStateStore;
use governor::state::{InMemoryState, NotKeyed, StateStore};
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many requests, per how long, with which burst: `governor`'s quota.
pub use governor::Quota;

/// The JSON-RPC error code of a refused request: the first of the server-defined range, as
/// other MCP servers answer rate limits.
const RATE_LIMITED: i32 = -32000;

/// Forgets callers idle long enough to be back at a full burst, every this many checks, so a
/// stream of new callers cannot grow the table without end.
const SWEEP_EVERY: u64 = 4096;

/// How many callers the table holds by default (a few MB at most).
const MAX_CALLERS: usize = 65_536;

/// Limits tool calls (or every request, with [`all_requests`](Self::all_requests)) per caller:
/// the verified caller of an HTTP request with authorization (its token's issuer and subject),
/// else the client's network address (an IPv6 one by its /64 prefix), never the session, which
/// a client can renew at will. A stdio server's one client is the process at the other end.
/// A refused request gets error -32000 `Rate limit exceeded`, with `data.retryAfterMs`.
///
/// **The counts are this process's.** Replicas sharing a Redis session store
/// (`SessionStore::redis`) each count on their own, so behind a balancer over n replicas a
/// caller gets up to n times its quota; such a server logs a warning saying so at start. Divide
/// the quota by the number of replicas, or limit at the balancer (nginx's `limit_req`).
///
/// The table of callers is bounded ([`max_callers`](Self::max_callers)): callers back at a full
/// burst are forgotten as it fills, and while it is full of active ones, new callers share one
/// allowance, so a client rotating addresses cannot grow it.
///
/// An HTTP service mounted in an application of yours learns the client's address from a
/// `std::net::SocketAddr` in the request's extensions; without one, callers without a token
/// share one allowance.
///
/// ```
/// use mcp_runtime::middleware::{Quota, RateLimit};
/// use mcp_runtime::Server;
/// use std::num::NonZeroU32;
///
/// // 10 calls a second per caller, in bursts of up to 20.
/// let quota = Quota::per_second(NonZeroU32::new(10).unwrap()).allow_burst(NonZeroU32::new(20).unwrap());
/// let server = Server::new("metered", "1.0").middleware(RateLimit::per_caller(quota));
/// # let _ = server;
/// ```
pub struct RateLimit {
    limiter: RateLimiter<CallerId, Allowances<CallerId>, DefaultClock>,
    quota: Quota,
    clock: DefaultClock,
    all_requests: bool,
    checks: AtomicU64,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("callers", &self.limiter.len())
            .field("all_requests", &self.all_requests)
            .finish()
    }
}

impl RateLimit {
    /// `quota` for each caller's tool calls.
    pub fn per_caller(quota: Quota) -> Self {
        Self::with_table(quota, MAX_CALLERS, false)
    }

    /// Counts every request, not only tool calls.
    pub fn all_requests(self) -> Self {
        Self { all_requests: true, ..self }
    }

    /// Holds at most `max` callers (65,536 by default; at least one); see the type's
    /// documentation. Callers counted so far are forgotten.
    pub fn max_callers(self, max: usize) -> Self {
        Self::with_table(self.quota, max, self.all_requests)
    }

    fn with_table(quota: Quota, max: usize, all_requests: bool) -> Self {
        let clock = DefaultClock::default();
        let table = Allowances { callers: DashMap::new(), crowd: InMemoryState::default(), max: max.max(1) };
        Self {
            limiter: RateLimiter::new(quota, table, clock.clone()),
            quota,
            clock,
            all_requests,
            checks: AtomicU64::new(0),
        }
    }
}

impl Middleware for RateLimit {
    fn per_process(&self) -> Option<&'static str> {
        Some(
            "RateLimit counts each caller's requests in this process only: behind a balancer over n \
             replicas sharing the Redis store, a caller gets up to n times its quota",
        )
    }

    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if !self.all_requests && request.method() != "tools/call" {
            return Verdict::Continue;
        }
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        match self.limiter.check_key(&request.caller_id()) {
            Ok(()) => Verdict::Continue,
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let millis = wait.as_millis().max(1) as u64;
                let mut error = ErrorObject::new(
                    RATE_LIMITED,
                    format!("Rate limit exceeded: too many requests; try again in {millis} ms"),
                );
                error.data = Some(serde_json::json!({ "retryAfterMs": millis }));
                Verdict::error(error)
            }
        }
    }
}

/// Each caller's allowance (governor's state for a key), for at most `max` callers; past
/// that, new callers share the `crowd`'s.
struct Allowances<K> {
    callers: DashMap<K, InMemoryState>,
    crowd: InMemoryState,
    max: usize,
}

impl<K: Hash + Eq + Clone> StateStore for Allowances<K> {
    type Key = K;

    fn measure_and_replace<T, F, E>(&self, key: &K, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        // A known caller costs one lookup more; only a new one counts the table.
        if !self.callers.contains_key(key) && self.callers.len() >= self.max {
            return self.crowd.measure_and_replace(&NotKeyed::NonKey, f);
        }
        self.callers.measure_and_replace(key, f)
    }
}

impl<K: Hash + Eq + Clone> ShrinkableKeyedStateStore<K> for Allowances<K> {
    fn retain_recent(&self, drop_below: Nanos) {
        self.callers.retain_recent(drop_below);
    }

    fn shrink_to_fit(&self) {
        self.callers.shrink_to_fit();
    }

    fn len(&self) -> usize {
        self.callers.len()
    }

    fn is_empty(&self) -> bool {
        self.callers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};
    use std::num::NonZeroU32;

    fn host(n: u32) -> CallerId {
        CallerId::Remote(Some(IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + n))))
    }

    /// A client rotating addresses fills the table to its cap, no further; the callers it
    /// holds keep their own allowances, and the ones past it share one.
    #[test]
    fn the_table_of_callers_is_bounded() {
        let quota = Quota::per_hour(NonZeroU32::new(2).unwrap());
        let limit = RateLimit::per_caller(quota).max_callers(100);
        for n in 0..100 {
            assert!(limit.limiter.check_key(&host(n)).is_ok());
        }
        assert!(limit.limiter.check_key(&host(1000)).is_ok(), "the crowd's first");
        assert!(limit.limiter.check_key(&host(1001)).is_ok(), "the crowd's second");
        for n in 1002..10_000 {
            assert!(limit.limiter.check_key(&host(n)).is_err(), "the crowd's allowance is spent");
        }
        assert_eq!(limit.limiter.len(), 100);
        assert!(limit.limiter.check_key(&host(7)).is_ok(), "a known caller keeps its own allowance");
        assert!(limit.limiter.check_key(&host(7)).is_err());
        assert!(limit.limiter.check_key(&CallerId::Remote(None)).is_err(), "a new caller is in the crowd");
    }
}
