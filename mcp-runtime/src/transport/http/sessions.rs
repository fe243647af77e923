//! The session table: ids, lookup, the cap on open sessions, and the idle timeout.

use super::session::HttpSession;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<HttpSession>>>,
    max: usize,
    idle_timeout: Duration,
    last_sweep: Mutex<Instant>,
    /// Set on shutdown: no new sessions.
    closed: AtomicBool,
}

/// Why a session could not be added.
pub(super) enum Refused {
    Full,
    ShuttingDown,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new session id: 128 random bits from the operating system, as 32 hex digits (visible
/// ASCII, as the spec requires).
pub(super) fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| std::io::Error::other(err.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Sessions {
    pub fn new(max: usize, idle_timeout: Duration) -> Self {
        Self {
            table: Mutex::default(),
            max,
            idle_timeout,
            last_sweep: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
        }
    }

    /// The session with this id, marked active; `None` if it does not exist (ended, expired,
    /// or never did).
    pub fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.sweep_if_due();
        let session = lock(&self.table).get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Whether a new session may start (checked before `initialize` runs).
    pub fn admits(&self) -> Result<(), Refused> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Refused::ShuttingDown);
        }
        self.sweep_if_due();
        if lock(&self.table).len() >= self.max {
            self.sweep();
            if lock(&self.table).len() >= self.max {
                return Err(Refused::Full);
            }
        }
        Ok(())
    }

    /// Adds a session whose `initialize` succeeded.
    pub fn insert(&self, session: Arc<HttpSession>) -> Result<(), Refused> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Refused::ShuttingDown);
        }
        let mut table = lock(&self.table);
        if table.len() >= self.max {
            return Err(Refused::Full);
        }
        table.insert(session.id.clone(), session);
        Ok(())
    }

    /// Ends a session (DELETE); `false` if there was none with this id.
    pub fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.table).remove(id);
        match removed {
            Some(session) => {
                session.end();
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        lock(&self.table).len()
    }

    /// Refuses new sessions and hands over the open ones, for shutdown.
    pub fn close(&self) -> Vec<Arc<HttpSession>> {
        self.closed.store(true, Ordering::Release);
        lock(&self.table).drain().map(|(_, session)| session).collect()
    }

    /// Sweeps at most every tenth of the idle timeout (and at least once a minute): the
    /// sweep is a scan of the table, done by whichever request comes along.
    fn sweep_if_due(&self) {
        let interval = (self.idle_timeout / 10).min(Duration::from_secs(60));
        let now = Instant::now();
        {
            let mut last = lock(&self.last_sweep);
            if now.saturating_duration_since(*last) < interval {
                return;
            }
            *last = now;
        }
        self.sweep();
    }

    /// Ends the sessions idle for longer than the timeout.
    pub fn sweep(&self) {
        let now = Instant::now();
        let expired: Vec<Arc<HttpSession>> = {
            let mut table = lock(&self.table);
            let ids: Vec<String> =
                table.iter().filter(|(_, s)| s.is_idle(now, self.idle_timeout)).map(|(id, _)| id.clone()).collect();
            ids.iter().filter_map(|id| table.remove(id)).collect()
        };
        for session in expired {
            tracing::debug!(session = %session.id, "session ended after {:?} idle", self.idle_timeout);
            session.end();
        }
    }
}
