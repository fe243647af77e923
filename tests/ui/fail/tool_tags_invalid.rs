// `tags` takes an array of string literals, none of them empty.
use mcp_runtime::prelude::*;

#[mcp_tool(tags = "admin")]
fn reset() -> &'static str {
    "reset"
}

#[mcp_tool(tags = ["admin", ""])]
fn wipe() -> &'static str {
    "wiped"
}

fn main() {}
