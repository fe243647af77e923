use mcp_runtime::prelude::*;

#[mcp_tool(name = "a", name = "b")]
fn named(x: u32) -> u32 {
    x
}

#[mcp_tool(read_only, read_only = false, timeout_ms = 10, timeout_ms = 20)]
fn flagged(x: u32) -> u32 {
    x
}

fn main() {}
