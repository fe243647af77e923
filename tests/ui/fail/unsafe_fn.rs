use mcp_runtime::prelude::*;

#[mcp_tool]
unsafe fn double(x: i64) -> i64 {
    x * 2
}

fn main() {}
