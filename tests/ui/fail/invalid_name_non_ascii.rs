use mcp_runtime::prelude::*;

#[mcp_tool]
fn grüßen(name: String) -> String {
    format!("Hallo, {name}!")
}

fn main() {}
