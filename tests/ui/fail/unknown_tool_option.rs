use mcp_runtime::prelude::*;

#[mcp_tool(readonly)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
