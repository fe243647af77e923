//! The robustness tests' server over Streamable HTTP, as a process (`tests/tests/hostile_http.rs`
//! runs it under a small file-descriptor limit): `mcp_tests::robust`'s tools on a free port of
//! 127.0.0.1, which its log (stderr) names.

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    mcp_tests::robust::server().serve_http("127.0.0.1:0").await
}
