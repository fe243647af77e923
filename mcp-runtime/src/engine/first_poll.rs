//! First polls that block: the one in progress on a serial connection (stdio), where a
//! watchdog thread can see that it blocks, and the report, once per handler.
//!
//! A serial connection polls each handler once on the thread that reads its input. A handler
//! that blocks there (blocking I/O in an `async fn` before its first `.await`) stops that
//! thread: it reads nothing more, not even the end of input. The connection thread marks each
//! first poll here with two plain stores (no lock, no read-modify-write), so watching costs a
//! call next to nothing; the name of the handler is written only when it changes. Elsewhere
//! (HTTP) a first poll runs on a runtime worker and is timed instead: one that took longer than
//! the threshold is reported when it returns.

use crate::sync::lock;
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// How long a first poll may run before the watchdog reports it as blocking (once per handler).
pub(crate) const BLOCKING_THRESHOLD: Duration = Duration::from_millis(500);

/// What a handler is called in the report that it blocks: its tool's name, or this for the
/// other handlers (resources, prompts, completions).
pub(crate) const OTHER_HANDLER: &str = "a resource, prompt or completion handler";

/// Logs, once per handler in the process, that a first poll of `handler` blocked its thread
/// for longer than [`BLOCKING_THRESHOLD`].
pub(crate) fn report_blocking(handler: &'static str) {
    static REPORTED: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut reported = lock(&REPORTED);
    if reported.get_or_insert_with(HashSet::new).insert(handler) {
        tracing::warn!(
            handler,
            "`{handler}` blocked its thread for over {} ms in its first poll, holding up other requests: mark a \
             sync tool `#[mcp_tool(blocking)]`, or use async I/O (tokio::fs, tokio::process...) in an `async fn` \
             so that it awaits instead of blocking",
            BLOCKING_THRESHOLD.as_millis()
        );
    }
}

#[derive(Default)]
pub(crate) struct FirstPolls {
    /// The number of the first poll in progress; 0 between polls.
    current: AtomicU64,
    /// How many first polls have started (written only by the connection's thread).
    started: AtomicU64,
    /// The handler of the latest first poll.
    handler: Mutex<&'static str>,
    /// Where `handler` points and its length, compared without the lock (never dereferenced)
    /// to learn whether the name changed.
    named: (AtomicUsize, AtomicUsize),
}

impl FirstPolls {
    /// Marks the start of a first poll of `handler` (called by the connection's thread only).
    pub fn enter(&self, handler: &'static str) {
        let (address, len) = (handler.as_ptr() as usize, handler.len());
        if self.named.0.load(Ordering::Relaxed) != address || self.named.1.load(Ordering::Relaxed) != len {
            *lock(&self.handler) = handler;
            self.named.0.store(address, Ordering::Relaxed);
            self.named.1.store(len, Ordering::Relaxed);
        }
        let number = self.started.load(Ordering::Relaxed) + 1;
        self.started.store(number, Ordering::Relaxed);
        self.current.store(number, Ordering::Release);
    }

    /// Marks the end of the first poll in progress.
    pub fn leave(&self) {
        self.current.store(0, Ordering::Release);
    }

    /// The number of the first poll in progress (0: none), for the watchdog to compare between
    /// its ticks.
    pub fn current(&self) -> u64 {
        self.current.load(Ordering::Acquire)
    }

    /// The handler of the latest first poll.
    pub fn handler(&self) -> &'static str {
        *lock(&self.handler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_first_poll_is_numbered_and_named_until_it_ends() {
        let polls = FirstPolls::default();
        assert_eq!(polls.current(), 0, "none yet");
        polls.enter("read_file");
        let first = polls.current();
        assert_ne!(first, 0);
        assert_eq!(polls.handler(), "read_file");
        polls.leave();
        assert_eq!(polls.current(), 0);
        polls.enter("read_file");
        assert_ne!(polls.current(), first, "a new poll, a new number");
        polls.enter(OTHER_HANDLER);
        assert_eq!(polls.handler(), OTHER_HANDLER, "the name follows the handler");
    }
}
