use mcp_runtime::prelude::*;

#[mcp_tool]
fn greet(#[mcp(renamed = "x")] name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
