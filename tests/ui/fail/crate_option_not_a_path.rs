use mcp_runtime::prelude::*;

#[mcp_tool(crate = "not a path")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[mcp_tool]
fn sub(a: f64, b: f64) -> f64 {
    a - b
}

fn main() {
    let _ = tools![crate = "1 + 1"; sub];
}
