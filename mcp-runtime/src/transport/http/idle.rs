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

use super::connections::Connections;
use crate::sync::lock;
use std::sync::Weak;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

impl Connections {
    /// How often the sweeper looks: a tenth of the timeout, within 10 ms and 1 s, so a
    /// connection is closed at most a tick late.
    pub fn tick(&self) -> Duration {
        (self.timeout / 10).clamp(Duration::from_millis(10), Duration::from_secs(1))
    }

    /// Until the server stops: advances the clock and closes the connections idle for the
    /// timeout. Holds the connections weakly, so it ends with the last of them and the server.
    pub async fn sweep(connections: Weak<Self>) {
        let Some(tick) = connections.upgrade().map(|c| c.tick()) else { return };
        super::ticker::every(tick, connections, Self::sweep_once).await;
    }

    pub(super) fn sweep_once(&self) {
        let now = self.now.fetch_add(1, Relaxed) + 1;
        let ticks = self.timeout.as_nanos().div_ceil(self.tick().as_nanos().max(1)) as u64;
        lock(&self.open).served.retain(|activity| {
            let Some(activity) = activity.upgrade() else { return false };
            let idle = activity.in_flight.load(Relaxed) == 0
                && now.saturating_sub(activity.last_active.load(Relaxed)) >= ticks;
            if idle {
                activity.close();
            }
            !idle
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_connection_idle_for_the_timeout_is_closed_and_one_in_flight_is_not() {
        let connections = Connections::new(Duration::from_millis(100), 10); // 10 ticks of 10 ms
        let sweep = |ticks| (0..ticks).for_each(|_| connections.sweep_once());
        let open = || {
            let activity = connections.open(None);
            connections.serve(&activity);
            activity
        };
        let (idle, busy, answered): (Arc<_>, Arc<_>, Arc<_>) = (open(), open(), open());
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
        assert_eq!(connections.open.lock().unwrap().served.len(), 1, "closed connections leave the list");
    }
}
