use mcp_runtime::prelude::*;

fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _ = tools![add];
}
