//! The robustness tests' server served with `Server::serve_http_with` and a configuration of its
//! own (the host `mcp.example.com` allowed; a 10 s shutdown grace), on a free port of 127.0.0.1 that its log (stderr)
//! names: `tests/tests/http.rs` checks the configuration applies and SIGTERM stops it gracefully.

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let config = mcp_runtime::http::HttpConfig::default().allow_host("mcp.example.com");
    mcp_tests::robust::server()
        .shutdown_grace(std::time::Duration::from_secs(10))
        .serve_http_with("127.0.0.1:0", config)
        .await
}
