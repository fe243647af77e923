//! Periodic work that lasts as long as what it works on: the SSE keep-alive tick, the session
//! sweeper, the idle-connection sweeper.

use std::sync::Weak;
use std::time::Duration;

/// Runs `tick` on `target` every `interval` (the first time one interval from now), until
/// `target` is dropped.
pub(super) async fn every<T>(interval: Duration, target: Weak<T>, tick: impl Fn(&T)) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match target.upgrade() {
            Some(target) => tick(&target),
            None => return,
        }
    }
}
