use mcp_runtime::prelude::*;

#[mcp_tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[mcp_tool(name = "add")]
fn plus(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _ = tools![add, plus];
}
