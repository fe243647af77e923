use mcp_runtime::prelude::*;

#[mcp_prompt]
fn review(code: &str) -> String {
    format!("Review: {code}")
}

fn main() {}
