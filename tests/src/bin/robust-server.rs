//! The robustness tests' server over stdio (`tests/tests/robust_stdio.rs`); see
//! `mcp_tests::robust` for its tools.

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_tests::robust::server().serve_stdio().await
}
