use mcp_runtime::prelude::*;

#[mcp_tool]
fn echo<T: std::fmt::Display>(value: T) -> String {
    value.to_string()
}

fn main() {}
