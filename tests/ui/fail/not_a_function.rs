use mcp_runtime::prelude::*;

#[mcp_tool]
struct Add {
    a: f64,
    b: f64,
}

fn main() {}
