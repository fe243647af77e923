//! The session table: ids, lookup, the caps on open sessions (in all and per client), the
//! handshake timeout and the idle timeout.

use super::client::Client;
use super::session::HttpSession;
use crate::sync::lock;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(super) struct Sessions {
    table: Mutex<Table>,
    idle_timeout: Duration,
    handshake_timeout: Duration,
    last_sweep: Mutex<Instant>,
    /// Set once a timer [`tick`](Self::tick)s: requests then leave the sweep to it.
    ticked: AtomicBool,
    /// Set on shutdown: no new sessions.
    closed: AtomicBool,
}

/// The sessions, and what admitting one more needs to know without looking at them.
struct Table {
    sessions: HashMap<String, Entry>,
    occupancy: Occupancy,
    /// Sessions not yet used after their `initialize`, by deadline (all share one timeout, so
    /// insertion order is deadline order): expiring them pops from the front.
    handshakes: VecDeque<(Instant, String)>,
}

struct Entry {
    session: Arc<HttpSession>,
    client: Client,
    /// A request came after `initialize` (`notifications/initialized`, or anything else).
    established: bool,
}

/// Why a session could not be added.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// The table is full.
    Full,
    /// This client holds its share of the table.
    ClientShare,
    ShuttingDown,
}

/// How many sessions are open, in all and per client: counters, so admitting or refusing a
/// session is one hash lookup whatever the table holds, and never a scan under its lock.
#[derive(Debug)]
struct Occupancy {
    max: usize,
    share: usize,
    total: usize,
    per_client: HashMap<Client, usize>,
}

impl Occupancy {
    fn new(max: usize, share: usize) -> Self {
        Self { max, share, total: 0, per_client: HashMap::new() }
    }

    fn check(&self, client: &Client) -> Result<(), Refused> {
        if self.total >= self.max {
            return Err(Refused::Full);
        }
        if *client != Client::Unknown && self.per_client.get(client).is_some_and(|&held| held >= self.share) {
            return Err(Refused::ClientShare);
        }
        Ok(())
    }

    fn add(&mut self, client: &Client) {
        self.total += 1;
        *self.per_client.entry(client.clone()).or_default() += 1;
    }

    fn remove(&mut self, client: &Client) {
        self.total = self.total.saturating_sub(1);
        if let Some(held) = self.per_client.get_mut(client) {
            *held -= 1;
            if *held == 0 {
                self.per_client.remove(client);
            }
        }
    }
}

impl Table {
    fn take(&mut self, id: &str) -> Option<Arc<HttpSession>> {
        let entry = self.sessions.remove(id)?;
        self.occupancy.remove(&entry.client);
        Some(entry.session)
    }

    /// Removes the sessions whose handshake deadline passed with no request after
    /// `initialize`. Each session is looked at once, when its deadline comes up, so this costs
    /// nothing per call beyond what inserting paid (no allocation when none expired).
    fn expire_handshakes(&mut self, now: Instant) -> Vec<Arc<HttpSession>> {
        let mut expired = Vec::new();
        while self.handshakes.front().is_some_and(|(deadline, _)| *deadline <= now) {
            let Some((_, id)) = self.handshakes.pop_front() else { break };
            if self.sessions.get(&id).is_some_and(|entry| !entry.established)
                && let Some(session) = self.take(&id)
            {
                expired.push(session);
            }
        }
        expired
    }
}

/// A new session id: 128 random bits from the operating system, as 32 hex digits (visible
/// ASCII, as the spec requires).
pub(super) fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| std::io::Error::other(err.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The limits of a [`Sessions`] table.
pub(super) struct Limits {
    pub max: usize,
    pub per_client: usize,
    pub idle_timeout: Duration,
    pub handshake_timeout: Duration,
}

impl Sessions {
    pub fn new(limits: Limits) -> Self {
        Self {
            table: Mutex::new(Table {
                sessions: HashMap::new(),
                occupancy: Occupancy::new(limits.max, limits.per_client),
                handshakes: VecDeque::new(),
            }),
            idle_timeout: limits.idle_timeout,
            handshake_timeout: limits.handshake_timeout,
            last_sweep: Mutex::new(Instant::now()),
            ticked: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        }
    }

    /// The session with this id, marked active (which completes its handshake); `None` if it
    /// does not exist (ended, expired, or never did).
    pub fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        if !self.ticked.load(Ordering::Relaxed) {
            self.sweep_if_due();
        }
        let (session, expired) = {
            let mut table = lock(&self.table);
            let expired = table.expire_handshakes(Instant::now());
            let session = table.sessions.get_mut(id).map(|entry| {
                entry.established = true;
                Arc::clone(&entry.session)
            });
            (session, expired)
        };
        self.end_unfinished(expired);
        session.inspect(|session| session.touch())
    }

    /// Whether `client` may start a new session (checked before `initialize` runs). Refusing
    /// costs the same whatever the table holds: no sweep, only the counters.
    pub fn admits(&self, client: &Client) -> Result<(), Refused> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Refused::ShuttingDown);
        }
        self.expire_handshakes();
        self.sweep_if_due();
        lock(&self.table).occupancy.check(client)
    }

    /// Adds a session whose `initialize` succeeded, counted against `client`. Unless a request
    /// uses it within the handshake timeout, it expires.
    pub fn insert(&self, session: Arc<HttpSession>, client: Client) -> Result<(), Refused> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Refused::ShuttingDown);
        }
        let mut table = lock(&self.table);
        table.occupancy.check(&client)?;
        table.occupancy.add(&client);
        table.handshakes.push_back((Instant::now() + self.handshake_timeout, session.id.clone()));
        table.sessions.insert(session.id.clone(), Entry { session, client, established: false });
        Ok(())
    }

    /// The session with this id, as it is (not marked active).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub fn peek(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.table).sessions.get(id).map(|entry| Arc::clone(&entry.session))
    }

    /// Adds a session another replica started (read from the store), established and counted
    /// against no client; the copy already here if a concurrent request added one first.
    pub fn adopt(&self, session: Arc<HttpSession>) -> Result<Arc<HttpSession>, Refused> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Refused::ShuttingDown);
        }
        let mut table = lock(&self.table);
        if let Some(entry) = table.sessions.get(&session.id) {
            return Ok(Arc::clone(&entry.session));
        }
        table.occupancy.check(&Client::Unknown)?;
        table.occupancy.add(&Client::Unknown);
        let entry = Entry { session: Arc::clone(&session), client: Client::Unknown, established: true };
        table.sessions.insert(session.id.clone(), entry);
        Ok(session)
    }

    /// Ends a session (DELETE); `false` if there was none with this id.
    pub fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.table).take(id);
        match removed {
            Some(session) => {
                session.end();
                true
            }
            None => false,
        }
    }

    pub fn len(&self) -> usize {
        lock(&self.table).sessions.len()
    }

    /// Every session held, for a store that must revisit them all.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub fn all(&self) -> Vec<Arc<HttpSession>> {
        lock(&self.table).sessions.values().map(|entry| Arc::clone(&entry.session)).collect()
    }

    /// Refuses new sessions and hands over the open ones, for shutdown.
    pub fn close(&self) -> Vec<Arc<HttpSession>> {
        self.closed.store(true, Ordering::Release);
        let mut table = lock(&self.table);
        table.occupancy = Occupancy::new(0, 0);
        table.handshakes.clear();
        table.sessions.drain().map(|(_, entry)| entry.session).collect()
    }

    /// What the serving loop's timer does: expires unfinished handshakes, and sweeps idle
    /// sessions when a sweep is due.
    pub fn tick(&self) {
        // From now on requests leave the sweep to the timer: a clock read and a lock fewer each.
        self.ticked.store(true, Ordering::Relaxed);
        self.expire_handshakes();
        self.sweep_if_due();
    }

    /// How often [`tick`](Self::tick) should run to keep both timeouts.
    pub fn tick_interval(&self) -> Duration {
        (self.handshake_timeout / 4).min(self.sweep_interval()).max(Duration::from_millis(10))
    }

    /// Ends the sessions whose handshake deadline passed with no request after `initialize`.
    fn expire_handshakes(&self) {
        let expired = lock(&self.table).expire_handshakes(Instant::now());
        self.end_unfinished(expired);
    }

    fn end_unfinished(&self, expired: Vec<Arc<HttpSession>>) {
        for session in expired {
            tracing::debug!(session = %session.id, "session ended: no request within {:?} of initialize", self.handshake_timeout);
            session.expire();
        }
    }

    /// A tenth of the idle timeout, at most a minute.
    fn sweep_interval(&self) -> Duration {
        (self.idle_timeout / 10).min(Duration::from_secs(60))
    }

    /// Sweeps at most every [`sweep_interval`](Self::sweep_interval): the sweep is a scan of
    /// the table, done by whichever request or tick comes along.
    fn sweep_if_due(&self) {
        let now = Instant::now();
        {
            let mut last = lock(&self.last_sweep);
            if now.saturating_duration_since(*last) < self.sweep_interval() {
                return;
            }
            *last = now;
        }
        self.sweep();
    }

    /// Ends the sessions idle for longer than the timeout.
    fn sweep(&self) {
        let now = Instant::now();
        let expired: Vec<Arc<HttpSession>> = {
            let mut table = lock(&self.table);
            let ids: Vec<String> = table
                .sessions
                .iter()
                .filter(|(_, entry)| entry.session.is_idle(now, self.idle_timeout))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| table.take(id)).collect()
        };
        for session in expired {
            tracing::debug!(session = %session.id, "session ended after {:?} idle", self.idle_timeout);
            session.expire();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ip: &str) -> Client {
        Client::at(Some(ip.parse().unwrap()))
    }

    #[test]
    fn a_client_fills_only_its_share_and_another_still_gets_in() {
        let mut occupancy = Occupancy::new(10, 3);
        let flooder = at("10.0.0.1");
        for _ in 0..3 {
            assert_eq!(occupancy.check(&flooder), Ok(()));
            occupancy.add(&flooder);
        }
        assert_eq!(occupancy.check(&flooder), Err(Refused::ClientShare));
        assert_eq!(occupancy.check(&at("10.0.0.2")), Ok(()));
        occupancy.remove(&flooder);
        assert_eq!(occupancy.check(&flooder), Ok(()));
        assert_eq!(occupancy.per_client.get(&flooder), Some(&2));
    }

    #[test]
    fn a_full_table_refuses_from_its_counters() {
        let mut occupancy = Occupancy::new(4, 4);
        for i in 0..4 {
            occupancy.add(&at(&format!("10.0.0.{i}")));
        }
        assert_eq!(occupancy.check(&at("10.0.0.9")), Err(Refused::Full));
        assert_eq!(occupancy.check(&Client::Unknown), Err(Refused::Full));
        for i in 0..4 {
            occupancy.remove(&at(&format!("10.0.0.{i}")));
        }
        assert_eq!((occupancy.total, occupancy.per_client.len()), (0, 0), "nothing left behind");
    }

    #[test]
    fn unknown_clients_share_only_the_table() {
        let mut occupancy = Occupancy::new(10, 1);
        occupancy.add(&Client::Unknown);
        assert_eq!(occupancy.check(&Client::Unknown), Ok(()));
    }

    #[test]
    fn an_ipv6_host_is_one_client_per_64_prefix() {
        assert_eq!(at("2001:db8:1:2:aaaa::1"), at("2001:db8:1:2:bbbb::2"));
        assert_ne!(at("2001:db8:1:2::1"), at("2001:db8:1:3::1"));
        assert_eq!(at("::ffff:10.0.0.1"), at("10.0.0.1"));
        assert_ne!(at("::1"), at("::2"));
    }
}
