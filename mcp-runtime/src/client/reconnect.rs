//! When to reopen an SSE stream that ended, and when to stop: the server's `retry:` delay,
//! never under a floor (a `retry: 0` must not make a busy loop), doubled after each attempt
//! that brought nothing, and given up after a few such attempts in a row.

use std::time::Duration;

/// The least time between two attempts, whatever the server's `retry:` says.
pub(crate) const FLOOR: Duration = Duration::from_millis(250);
/// The most time between two attempts, whatever the server's `retry:` says.
const CEILING: Duration = Duration::from_secs(30);
/// The delay when the server named none.
const DEFAULT: Duration = Duration::from_millis(500);
/// Fruitless attempts in a row after which the stream is given up.
pub(crate) const MAX_FAILURES: u32 = 5;

/// The reconnection state of one stream.
#[derive(Debug)]
pub(crate) struct Backoff {
    /// The server's `retry:` hint, or the default.
    retry: Duration,
    /// Attempts in a row that failed or brought nothing.
    failures: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { retry: DEFAULT, failures: 0 }
    }
}

impl Backoff {
    /// The server asked to wait `millis` before reconnecting.
    pub fn set_retry(&mut self, millis: u64) {
        self.retry = Duration::from_millis(millis);
    }

    /// The last attempt brought something (a message, a new event id): start afresh.
    pub fn progressed(&mut self) {
        self.failures = 0;
    }

    /// The last attempt failed or brought nothing; `false` once the stream should be given up.
    #[must_use]
    pub fn failed(&mut self) -> bool {
        self.failures += 1;
        self.failures < MAX_FAILURES
    }

    /// How long to wait before the next attempt.
    pub fn delay(&self) -> Duration {
        let base = self.retry.clamp(FLOOR, CEILING);
        let doublings = self.failures.saturating_sub(1).min(16);
        base.saturating_mul(1 << doublings).min(CEILING)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_retry_waits_the_floor_then_doubles_and_gives_up() {
        let mut backoff = Backoff::default();
        backoff.set_retry(0);
        assert_eq!(backoff.delay(), FLOOR);
        let mut delays = Vec::new();
        while backoff.failed() {
            delays.push(backoff.delay());
        }
        assert_eq!(delays, [FLOOR, FLOOR * 2, FLOOR * 4, FLOOR * 8]);
        assert_eq!(delays.len() as u32, MAX_FAILURES - 1);
    }

    #[test]
    fn progress_resets_the_doubling_and_huge_hints_are_capped() {
        let mut backoff = Backoff::default();
        backoff.set_retry(u64::MAX);
        assert_eq!(backoff.delay(), CEILING);
        assert!(backoff.failed());
        assert!(backoff.failed());
        assert_eq!(backoff.delay(), CEILING);
        backoff.set_retry(1000);
        backoff.progressed();
        assert_eq!(backoff.delay(), Duration::from_secs(1));
    }
}
