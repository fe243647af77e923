use mcp_runtime::prelude::*;

#[mcp_tool]
const fn double(x: i64) -> i64 {
    x * 2
}

fn main() {}
