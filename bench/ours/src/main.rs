//! The benchmark server on mcp-runtime. `bench-ours` serves stdio; `bench-ours http` binds
//! 127.0.0.1 on a free port, prints the port on stdout and serves Streamable HTTP.

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

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    let server = server!().tools(all_tools());
    if std::env::args().nth(1).as_deref() == Some("http") {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("{}", listener.local_addr()?.port());
        server.serve_http_on(listener, std::future::pending()).await
    } else {
        server.serve_stdio().await
    }
}
