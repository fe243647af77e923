use mcp_runtime::prelude::*;

#[mcp_prompt(read_only)]
fn review(code: String) -> String {
    format!("Review: {code}")
}

fn main() {}
