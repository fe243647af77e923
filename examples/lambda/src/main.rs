//! An MCP server on AWS Lambda: a few tools at `/mcp` of the function's URL (or of the API
//! Gateway or load balancer in front of it), served without sessions, so any instance answers
//! any request, from 2025-era clients (`initialize`, no `Mcp-Session-Id`) and 2026-07-28 ones.
//!
//! Locally, `cargo lambda watch` (cargo-lambda) emulates Lambda and its function URLs:
//!
//! ```text
//! cargo lambda watch -p lambda
//! # the endpoint: http://127.0.0.1:9000/lambda-url/lambda/mcp
//! ```
//!
//! Deployed with `cargo lambda build --release --arm64` and `cargo lambda deploy --enable-function-url`.

use mcp_runtime::prelude::*;

/// Add two numbers.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// Count from 1 to `to`, reporting progress and logging each step: they reach the client in the
/// call's own stream, with its result.
#[mcp_tool(read_only)]
async fn count(
    /// Where to stop (at most 100)
    to: u32,
    ctx: Context,
) -> String {
    let to = to.min(100);
    for step in 1..=to {
        ctx.info(format!("step {step} of {to}")).await;
        ctx.progress(f64::from(step), f64::from(to)).await;
    }
    format!("counted to {to}")
}

#[tokio::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    server!().tools(tools![add, count]).serve_lambda().await
}
