use mcp_runtime::prelude::*;

#[mcp_tool(timeout_ms = 0)]
fn slow(n: u64) -> u64 {
    n
}

#[mcp_tool(timeout_ms = "5000")]
fn slower(n: u64) -> u64 {
    n
}

fn main() {}
