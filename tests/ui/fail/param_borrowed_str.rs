use mcp_runtime::prelude::*;

#[mcp_tool]
fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}

fn main() {}
