//! The robustness tests' server over Streamable HTTP, in a process of its own so a test can
//! read its memory from `/proc` (`tests/tests/hostile_memory.rs`). Listens on a free loopback
//! port and writes its address as the first line of stdout; runs until killed.

use mcp_runtime::http::HttpConfig;

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("{}", listener.local_addr()?);
    let service = mcp_tests::robust::server().into_http_service(HttpConfig::default())?;
    service.serve(listener, std::future::pending()).await
}
