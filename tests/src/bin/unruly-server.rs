//! The hostile-handler tests' server over stdio (`tests/tests/unruly_stdio.rs`): tools that
//! print to stdout, block their thread, or run long. `UNRULY_MAX_IN_FLIGHT` sets the cap on
//! requests in flight.

use mcp_runtime::prelude::*;
use std::time::Duration;

/// How long the blocking tools block: far longer than any test waits.
const FOREVER: Duration = Duration::from_secs(600);

/// Prints text without a newline to stdout, then answers.
#[mcp_tool]
fn mutter() -> String {
    print!("mutter-without-newline");
    "muttered".into()
}

/// Prints a whole line to stdout, then answers.
#[mcp_tool]
fn shout() -> String {
    println!("shout-with-newline");
    "shouted".into()
}

/// An async tool that blocks its thread before its first `.await`, as blocking I/O would.
#[mcp_tool]
async fn block_first() -> String {
    std::thread::sleep(FOREVER);
    "unreachable".into()
}

/// An async tool that blocks its thread after its first `.await` (on a runtime worker).
#[mcp_tool]
async fn block_later() -> String {
    tokio::task::yield_now().await;
    std::thread::sleep(FOREVER);
    "unreachable".into()
}

/// Blocks its thread for `millis`, then answers (a first poll that blocks, then ends).
#[mcp_tool]
async fn block_for(millis: u64) -> String {
    std::thread::sleep(Duration::from_millis(millis));
    format!("blocked {millis} ms")
}

/// Sleeps without blocking, then answers.
#[mcp_tool]
async fn nap(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let mut server = server!().tools(tools![mutter, shout, block_first, block_later, block_for, nap]);
    if let Some(cap) = std::env::var("UNRULY_MAX_IN_FLIGHT").ok().and_then(|cap| cap.parse().ok()) {
        server = server.max_requests_in_flight(cap);
    }
    server.serve_stdio().await
}
