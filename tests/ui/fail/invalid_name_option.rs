use mcp_runtime::prelude::*;

#[mcp_tool(name = "has space")]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
