//! [`RateLimit`]: so many requests per caller, with `governor` (GCRA, one atomic per check).

use super::{Middleware, RequestInfo, Verdict};
use crate::jsonrpc::ErrorObject;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, RateLimiter};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many requests, per how long, with which burst: `governor`'s quota.
pub use governor::Quota;

/// The JSON-RPC error code of a refused request: the first of the server-defined range, as
/// other MCP servers answer rate limits.
const RATE_LIMITED: i32 = -32000;

/// Forgets callers idle long enough to be back at a full burst, every this many checks, so a
/// stream of new callers cannot grow the table without end.
const SWEEP_EVERY: u64 = 4096;

/// Limits tool calls (or every request, with [`all_requests`](Self::all_requests)) per caller:
/// the verified caller of an HTTP request with authorization, else its session; a stdio
/// server's one client, and stateless requests without a token, share one allowance.
/// A refused request gets error -32000 `Rate limit exceeded`, with `data.retryAfterMs`.
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
    limiter: DefaultKeyedRateLimiter<String>,
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
        let clock = DefaultClock::default();
        Self {
            limiter: RateLimiter::dashmap_with_clock(quota, clock.clone()),
            clock,
            all_requests: false,
            checks: AtomicU64::new(0),
        }
    }

    /// Counts every request, not only tool calls.
    pub fn all_requests(mut self) -> Self {
        self.all_requests = true;
        self
    }
}

impl Middleware for RateLimit {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if !self.all_requests && request.method() != "tools/call" {
            return Verdict::Continue;
        }
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        let caller = request.caller_key().unwrap_or_default();
        match self.limiter.check_key(&caller) {
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
