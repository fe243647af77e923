//! The bytes a server keeps on a client's behalf (what it said in `initialize`, its
//! subscriptions, the events kept for it to replay), counted against its session's allowance
//! and against one shared by every session, so neither one client nor many can grow the
//! server's memory without bound.

use crate::jsonrpc::{ErrorObject, code};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A number of bytes that may be taken up to a limit.
#[derive(Debug)]
pub(crate) struct Pool {
    used: AtomicUsize,
    limit: usize,
}

impl Pool {
    pub fn new(limit: usize) -> Self {
        Self { used: AtomicUsize::new(0), limit }
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Takes `bytes` if they fit under the limit.
    fn try_take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    #[cfg(feature = "http")]
    fn take(&self, bytes: usize) {
        self.used.fetch_add(bytes, Ordering::Relaxed);
    }

    fn give(&self, bytes: usize) {
        // Saturating: a release never wraps the count even if it was mis-paired.
        let _ = self.used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| Some(used.saturating_sub(bytes)));
    }
}

/// Why bytes could not be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverBudget {
    /// `bytes` more would pass the session's own `limit`.
    Session { bytes: usize, limit: usize },
    /// Every session's allowance together is spent.
    Server,
}

impl OverBudget {
    /// The error for the client whose request would have kept the bytes.
    pub fn into_error(self) -> ErrorObject {
        match self {
            Self::Session { bytes, limit } => ErrorObject::invalid_params(format!(
                "Invalid params: this would keep {bytes} more bytes for the session, past its limit of {limit}"
            )),
            Self::Server => ErrorObject::new(
                code::INTERNAL_ERROR,
                "Server busy: the memory it keeps for its clients is in use; try again later",
            ),
        }
    }
}

/// One session's account: its own pool, drawing on the server's. What it holds goes back to
/// the server's pool when the session ends.
#[derive(Debug)]
pub(crate) struct Budget {
    own: Pool,
    server: Arc<Pool>,
}

impl Budget {
    pub fn new(limit: usize, server: Arc<Pool>) -> Self {
        Self { own: Pool::new(limit), server }
    }

    /// What the session holds now.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.own.used()
    }

    /// Takes `bytes` from both pools, or from neither.
    pub fn try_reserve(&self, bytes: usize) -> Result<(), OverBudget> {
        if !self.own.try_take(bytes) {
            return Err(OverBudget::Session { bytes, limit: self.own.limit });
        }
        if !self.server.try_take(bytes) {
            self.own.give(bytes);
            return Err(OverBudget::Server);
        }
        Ok(())
    }

    /// Takes `bytes` past the limits: for what must be kept anyway (a stream's only message,
    /// which has to reach the client), so the overshoot is at most one message per stream.
    #[cfg(feature = "http")] // only HTTP keeps messages
    pub fn reserve_anyway(&self, bytes: usize) {
        self.own.take(bytes);
        self.server.take(bytes);
    }

    /// Past half its own limit, or the server past all of its: time to let go of what is kept
    /// only in case it is asked for again.
    #[cfg(feature = "http")]
    pub fn is_strained(&self) -> bool {
        self.own.used() > self.own.limit / 2 || self.server.used() > self.server.limit
    }

    pub fn release(&self, bytes: usize) {
        self.own.give(bytes);
        self.server.give(bytes);
    }

    /// Holds `now` bytes for something that held `was`: takes the growth (or refuses it, and
    /// nothing changes), gives back the shrinkage.
    pub fn resize(&self, was: usize, now: usize) -> Result<(), OverBudget> {
        match now.checked_sub(was) {
            Some(more) => self.try_reserve(more),
            None => {
                self.release(was - now);
                Ok(())
            }
        }
    }
}

/// Bytes taken from a budget for as long as this lives (what a running handler keeps).
#[derive(Debug)]
pub(crate) struct Held {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Held {
    /// Takes `bytes` from `budget` until the result is dropped, or refuses them.
    pub fn take(budget: &Arc<Budget>, bytes: usize) -> Result<Self, OverBudget> {
        budget.try_reserve(bytes)?;
        Ok(Self { budget: Arc::clone(budget), bytes })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        self.server.give(self.own.used());
    }
}

/// About what `value` takes in memory once parsed: each node's own size plus the text of its
/// strings and keys. What a client's JSON is charged, rather than its length on the wire,
/// since `{"a":{}}` parses into far more than its eight bytes.
pub(crate) fn json_bytes(value: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(json_bytes).sum(),
            Value::Object(members) => members_bytes(members),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
}

/// [`json_bytes`] of an object's members.
pub(crate) fn members_bytes(members: &Map<String, Value>) -> usize {
    members.iter().map(|(key, value)| std::mem::size_of::<String>() + key.len() + json_bytes(value)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_takes_up_to_its_own_limit_and_all_sessions_up_to_the_servers() {
        let server = Arc::new(Pool::new(100));
        let a = Budget::new(60, Arc::clone(&server));
        let b = Budget::new(60, Arc::clone(&server));
        assert_eq!(a.try_reserve(50), Ok(()));
        assert_eq!(a.try_reserve(20), Err(OverBudget::Session { bytes: 20, limit: 60 }));
        assert_eq!(b.try_reserve(60), Err(OverBudget::Server));
        assert_eq!((b.used(), server.used()), (0, 50), "a refusal takes nothing");
        a.release(30);
        assert_eq!(b.try_reserve(60), Ok(()));
        drop(a);
        assert_eq!(server.used(), 60, "a session's bytes go back when it ends");
    }

    #[cfg(feature = "http")]
    #[test]
    fn what_must_be_kept_is_taken_past_the_limits() {
        let server = Arc::new(Pool::new(100));
        let a = Budget::new(60, Arc::clone(&server));
        assert_eq!(a.try_reserve(60), Ok(()));
        a.reserve_anyway(200);
        assert_eq!((a.used(), server.used()), (260, 260));
        assert!(a.is_strained());
    }

    #[test]
    fn parsed_json_is_charged_more_than_its_text() {
        let value = serde_json::json!({ "roots": { "listChanged": true }, "name": "abc" });
        let bytes = json_bytes(&value);
        assert!(bytes > value.to_string().len(), "{bytes}");
        assert!(bytes < 1024, "{bytes}");
    }
}
