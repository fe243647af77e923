//! The head timeout of the connections [`serve`](super::McpHttpService::serve) accepts: a
//! connection with no request in flight that has not completed the next request's head within
//! [`HttpConfig::header_timeout`](super::HttpConfig::header_timeout) of its last answer (or of
//! opening) is closed, so a client cannot hold connections open by sending nothing, or a head a
//! byte at a time.
//!
//! hyper's own `header_read_timeout` made a timer for every request: a timer-wheel entry added
//! and removed, about 4% of an HTTP call's instructions (bench/NOTES.md). Here a request costs
//! an atomic count up and down, and one sweeper reads every connection's activity on a coarse
//! clock of its own.

use crate::sync::lock;
use futures_util::task::AtomicWaker;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

/// The open connections and the coarse clock they are timed by.
pub(super) struct Connections {
    timeout: Duration,
    /// The sweeper's ticks since the server started: the connections' clock.
    now: AtomicU64,
    open: Mutex<Vec<Weak<Activity>>>,
}

/// What a connection is doing, as its requests and answers report it.
pub(super) struct Activity {
    connections: Arc<Connections>,
    in_flight: AtomicU32,
    /// The tick of the last answer's end (or of the connection's opening).
    last_active: AtomicU64,
    closed: AtomicBool,
    waker: AtomicWaker,
}

impl Connections {
    pub fn new(timeout: Duration) -> Arc<Self> {
        Arc::new(Self { timeout, now: AtomicU64::new(0), open: Mutex::new(Vec::new()) })
    }

    /// How often the sweeper looks: a tenth of the timeout, within 10 ms and 1 s, so a
    /// connection is closed at most a tick late.
    fn tick(&self) -> Duration {
        (self.timeout / 10).clamp(Duration::from_millis(10), Duration::from_secs(1))
    }

    /// A newly accepted connection, active as of now.
    pub fn open(self: &Arc<Self>) -> Arc<Activity> {
        let activity = Arc::new(Activity {
            connections: Arc::clone(self),
            in_flight: AtomicU32::new(0),
            last_active: AtomicU64::new(self.now.load(Relaxed)),
            closed: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        });
        lock(&self.open).push(Arc::downgrade(&activity));
        activity
    }

    /// Until the server stops: advances the clock and closes the connections idle for the
    /// timeout. Holds the connections weakly, so it ends with the last of them and the server.
    pub async fn sweep(connections: Weak<Self>) {
        let Some(tick) = connections.upgrade().map(|c| c.tick()) else { return };
        super::ticker::every(tick, connections, Self::sweep_once).await;
    }

    fn sweep_once(&self) {
        let now = self.now.fetch_add(1, Relaxed) + 1;
        let ticks = self.timeout.as_nanos().div_ceil(self.tick().as_nanos().max(1)) as u64;
        lock(&self.open).retain(|activity| {
            let Some(activity) = activity.upgrade() else { return false };
            let idle = activity.in_flight.load(Relaxed) == 0
                && now.saturating_sub(activity.last_active.load(Relaxed)) >= ticks;
            if idle {
                activity.closed.store(true, Relaxed);
                activity.waker.wake();
            }
            !idle
        });
    }
}

impl Activity {
    /// A request whose head is in: the connection is busy until the returned guard (kept by the
    /// answer's body) drops.
    pub fn request(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Relaxed);
        InFlight(Arc::clone(self))
    }
}

/// A request of a connection, in flight until its answer's body is dropped (sent, or the
/// connection gone).
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let activity = &self.0;
        activity.last_active.store(activity.connections.now.load(Relaxed), Relaxed);
        activity.in_flight.fetch_sub(1, Relaxed);
    }
}

/// A connection's future, ended (which closes the connection) once the sweeper finds it idle.
pub(super) struct Watched<F> {
    connection: Pin<Box<F>>,
    activity: Arc<Activity>,
}

impl<F> Watched<F> {
    pub fn new(connection: F, activity: Arc<Activity>) -> Self {
        Self { connection: Box::pin(connection), activity }
    }
}

impl<F: Future> Future for Watched<F> {
    /// `None`: closed for idling.
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(output) = self.connection.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        self.activity.waker.register(cx.waker());
        if self.activity.closed.load(Relaxed) {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_idle_for_the_timeout_is_closed_and_one_in_flight_is_not() {
        let connections = Connections::new(Duration::from_millis(100)); // 10 ticks of 10 ms
        let sweep = |ticks| (0..ticks).for_each(|_| connections.sweep_once());
        let (idle, busy, answered) = (connections.open(), connections.open(), connections.open());
        let request = busy.request();
        sweep(5);
        drop(answered.request()); // answered at tick 5: timed from there
        sweep(4);
        assert!(!idle.closed.load(Relaxed), "closed before the timeout");
        sweep(1);
        assert!(idle.closed.load(Relaxed), "idle since it opened, 10 ticks ago");
        sweep(4);
        assert!(!answered.closed.load(Relaxed), "timed from its last answer");
        sweep(1);
        assert!(answered.closed.load(Relaxed));
        assert!(!busy.closed.load(Relaxed), "a request in flight keeps its connection");
        drop(request);
        assert_eq!(connections.open.lock().unwrap().len(), 1, "closed connections leave the list");
    }
}
