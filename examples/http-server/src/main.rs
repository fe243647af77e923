//! An MCP server over Streamable HTTP: a few tools at `http://127.0.0.1:$PORT/mcp`.
//!
//! Run it with `cargo run -p http-server` (`PORT` defaults to 3000), then point an MCP client
//! at the URL, e.g. `claude mcp add --transport http demo http://127.0.0.1:3000/mcp`.
//! It stops on Ctrl-C or SIGTERM, letting calls in flight finish.
//!
//! Web pages may call it from the origins listed in `MCP_CORS_ORIGINS` (comma-separated, e.g.
//! `MCP_CORS_ORIGINS=https://app.example.com,http://localhost:5173`), besides the loopback
//! origins every server allows: they get CORS answers; any other origin is refused.

use mcp_runtime::Elicitation;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use std::time::Duration;

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

/// Count from 1 to `to`, reporting progress and logging each step.
#[mcp_tool(read_only)]
async fn count_slowly(
    /// Where to stop (at most 100)
    to: u32,
    ctx: Context,
) -> Result<String, String> {
    if to > 100 {
        return Err("`to` must be at most 100".into());
    }
    for i in 1..=to {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ctx.progress(f64::from(i), f64::from(to)).await;
        ctx.info(format!("counted {i}")).await;
    }
    Ok(format!("counted to {to}"))
}

/// A long job: the server closes the connection right away and the client picks the result up
/// by reconnecting (SSE polling), as it would behind a proxy that cuts idle connections.
#[mcp_tool(read_only)]
async fn long_job(ctx: Context) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(200)).await;
    "job done"
}

/// A table booking form.
#[derive(Deserialize, JsonSchema)]
struct Booking {
    /// How many guests
    guests: u32,
}

/// Book a table, asking the user how many guests come. Works in both protocol eras: over a
/// 2025-11-25 session the question goes out as a request on the call's stream; for a
/// 2026-07-28 client it comes back as an input-required result the client answers on retry.
#[mcp_tool]
async fn book_table(ctx: Context) -> Result<String, mcp_runtime::ClientError> {
    Ok(match ctx.elicit::<Booking>("How many guests?").await? {
        Elicitation::Accept(booking) => format!("table for {} booked", booking.guests),
        Elicitation::Decline | Elicitation::Cancel => "no booking made".into(),
    })
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse().map_err(|_| mcp_runtime::Error::msg(format!("PORT={port} is not a port number")))?,
        Err(_) => 3000,
    };
    let mut config = HttpConfig::default();
    for origin in std::env::var("MCP_CORS_ORIGINS").unwrap_or_default().split(',').map(str::trim) {
        if !origin.is_empty() {
            config = config.allow_origin(origin);
        }
    }
    let service = server!()
        .instructions("Use add for arithmetic and count_slowly to watch progress.")
        .tools(tools![add, count_slowly, long_job, book_table])
        .into_http_service(config)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| mcp_runtime::Error::msg(format!("cannot bind port {port}: {e}")))?;
    service.serve(listener, shutdown_signal()).await
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
