//! The benchmark server on mcp-runtime. `bench-ours` serves stdio (`bench-ours current-thread`
//! the same on a current-thread runtime); `bench-ours http` binds
//! 127.0.0.1 on a free port, prints the port on stdout and serves Streamable HTTP: its sessions
//! in memory, or, built with the feature `redis` (`bench-ours-redis`), in the Redis at
//! `REDIS_URL` when that is set (with `MCP_REQUEST_STATE_SECRET`, the same for every replica),
//! as replicas behind a load balancer keep them (issue 17). With `BENCH_MAX_SESSIONS=N`, its
//! session and connection caps are N (the scale scenario's 100,000 sessions).

use mcp_runtime::prelude::*;

/// Echo the text back.
#[mcp_tool]
fn echo(
    /// The text to echo
    text: String,
) -> String {
    text
}

/// Add two numbers.
#[mcp_tool]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// Return 64 KB of text.
#[mcp_tool]
fn big() -> String {
    "0123456789abcdef".repeat(4096)
}

include!(concat!(env!("OUT_DIR"), "/generated.rs"));

fn main() -> mcp_runtime::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("http") => serve_http(),
        Some("current-thread") => serve_stdio_on_the_main_thread(),
        _ => serve_stdio(),
    }
}

fn server() -> mcp_runtime::Server {
    server!().tools(all_tools())
}

#[mcp_runtime::main]
async fn serve_stdio() -> mcp_runtime::Result<()> {
    server().serve_stdio().await
}

/// The same on a current-thread runtime, as `#[mcp_runtime::main]`'s documentation suggests for a
/// server served only over stdio (`bench-ours current-thread`, "ours-current" in the report).
#[mcp_runtime::main(flavor = "current_thread")]
async fn serve_stdio_on_the_main_thread() -> mcp_runtime::Result<()> {
    server().serve_stdio().await
}

#[mcp_runtime::main]
async fn serve_http() -> mcp_runtime::Result<()> {
    let mut server = server();
    if let Ok(url) = std::env::var("REDIS_URL") {
        server = redis_store(server, &url)?;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("{}", listener.local_addr()?.port());
    // The scale scenario (`harness`'s `scale.rs`) holds 100,000 sessions, more than the
    // default caps allow one process and one client.
    match std::env::var("BENCH_MAX_SESSIONS").ok().and_then(|max| max.parse::<usize>().ok()) {
        Some(max) => {
            let config = mcp_runtime::http::HttpConfig::default()
                .max_sessions(max)
                .max_sessions_per_client(max)
                .max_connections(max)
                .max_connections_per_client(max);
            server.into_http_service(config)?.serve(listener, std::future::pending()).await
        }
        None => server.serve_http_on(listener, std::future::pending()).await,
    }
}

#[cfg(feature = "redis")]
fn redis_store(server: mcp_runtime::Server, url: &str) -> mcp_runtime::Result<mcp_runtime::Server> {
    let secret = std::env::var("MCP_REQUEST_STATE_SECRET").map_err(|_| {
        mcp_runtime::Error::msg("REDIS_URL is set: set MCP_REQUEST_STATE_SECRET too, the same on every replica")
    })?;
    Ok(server.session_store(mcp_runtime::SessionStore::redis(url)?).request_state_secret(secret))
}

#[cfg(not(feature = "redis"))]
fn redis_store(_: mcp_runtime::Server, _: &str) -> mcp_runtime::Result<mcp_runtime::Server> {
    Err(mcp_runtime::Error::msg("REDIS_URL is set, but this build has no Redis store: run bench-ours-redis"))
}
