//! The server behind the robustness tests (`tests/tests/robust_*.rs`): served over stdio by the
//! `robust-server` binary and in-process over HTTP. Besides well-behaved tools it has one that
//! panics, one whose argument panics as it is parsed, two that never return (one with its own
//! time limit, one under the server-wide limit), and one that produces output of any size.

use mcp_runtime::prelude::*;
use std::time::Duration;

/// The server-wide tool time limit of [`server()`].
pub const TOOL_TIMEOUT: Duration = Duration::from_millis(1000);

/// `hang`'s own time limit (`#[mcp_tool(timeout_ms = ...)]`).
pub const HANG_TIMEOUT_MS: u64 = 300;

/// Echoes its text.
#[mcp_tool(read_only)]
pub fn echo(text: String) -> String {
    text
}

/// Adds two integers.
#[mcp_tool(read_only)]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Panics.
#[mcp_tool]
pub fn boom() -> String {
    panic!("the boom tool always panics")
}

/// An argument whose deserializer panics: a bug in user code that runs before the tool does.
pub struct Touchy;

impl<'de> serde::Deserialize<'de> for Touchy {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("Touchy's deserializer always panics")
    }
}

impl schemars::JsonSchema for Touchy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Touchy".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

/// Takes an argument that panics as it is parsed.
#[mcp_tool]
pub fn touchy(value: Touchy) -> String {
    let Touchy = value;
    "unreachable: the argument never parses".into()
}

/// Never returns; stopped after its own 300 ms limit.
#[mcp_tool(timeout_ms = 300)]
pub async fn hang() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

/// Never returns; stopped by the server-wide limit.
#[mcp_tool]
pub async fn stall() -> String {
    std::future::pending::<()>().await;
    unreachable!()
}

/// Returns `size` bytes of text.
#[mcp_tool(read_only)]
pub fn blob(size: usize) -> String {
    "x".repeat(size)
}

/// Sends `count` progress notifications `millis` apart (back to back when 0), then answers.
#[mcp_tool]
pub async fn ticks(count: u32, millis: u64, ctx: Context) -> String {
    for i in 1..=count {
        ctx.progress(f64::from(i), f64::from(count)).await;
        if millis > 0 {
            tokio::time::sleep(Duration::from_millis(millis)).await;
        }
    }
    format!("{count} ticks")
}

/// Sleeps, then answers.
#[mcp_tool]
pub async fn nap(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// The server: every tool above, the server-wide tool time limit, default message size limit.
pub fn server() -> Server {
    server!().tools(tools![echo, add, boom, touchy, hang, stall, blob, ticks, nap]).tool_timeout(TOOL_TIMEOUT)
}

/// A message of `depth` nested arrays (`[[[...]]]`).
pub fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}
