//! The stdio watchdog: a thread that notices a handler blocking the connection's thread in its
//! first poll, reports it once per handler, and ends serving if stdin ends meanwhile.
//!
//! The connection's thread reads stdin and runs each handler's first poll (see the engine), so a
//! handler that blocks there (blocking I/O in an `async fn` before its first `.await`) keeps it
//! from reading anything, the end of input included. The watchdog does not depend on that
//! thread, nor on the runtime's workers: it wakes every [`TICK`], compares the first poll in
//! progress with the one it saw last, and polls stdin for a hang-up only while one has run
//! longer than a tick. A hang-up gives that poll the shutdown grace, like any request at
//! shutdown: a slow handler that returns within it lets the connection's thread read the input
//! still waiting (a client may write all its requests and close stdin at once) and reach the
//! end of input itself; one still blocked after it ends serving.

use super::streams;
use crate::engine::first_poll::{BLOCKING_THRESHOLD, FirstPolls, report_blocking};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often the watchdog looks.
const TICK: Duration = Duration::from_millis(50);

/// Starts the watchdog of `first_polls`; it cancels `stop` when stdin has ended and a first poll
/// has blocked for `grace` since, and ends once `stop` is cancelled.
pub(super) fn spawn(first_polls: Arc<FirstPolls>, stop: CancellationToken, grace: Duration) -> std::io::Result<()> {
    std::thread::Builder::new().name("mcp-stdio-watchdog".into()).spawn(move || watch(&first_polls, &stop, grace))?;
    Ok(())
}

fn watch(first_polls: &FirstPolls, stop: &CancellationToken, grace: Duration) {
    // The first poll seen at the last tick, when it was first seen, and when stdin was first
    // seen hung up while it ran.
    let mut seen = (0, Instant::now());
    let mut hung_up_at = None;
    while !stop.is_cancelled() {
        std::thread::sleep(TICK);
        let current = first_polls.current();
        if current == 0 || current != seen.0 {
            seen = (current, Instant::now());
            hung_up_at = None;
            continue;
        }
        // The same first poll as a tick ago: the connection's thread reads nothing meanwhile.
        if seen.1.elapsed() >= BLOCKING_THRESHOLD {
            report_blocking(first_polls.handler());
        }
        if !streams::stdin_hung_up() {
            continue;
        }
        let since = *hung_up_at.get_or_insert_with(Instant::now);
        if since.elapsed() >= grace {
            tracing::info!("stdin closed while a handler blocks the stdio connection's thread: shutting down");
            stop.cancel();
            return;
        }
    }
}
