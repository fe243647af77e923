// `range`, `length` and `pattern` constrain tool arguments; a prompt's arguments are text, and
// bounds are `min` and `max`.
use mcp_runtime::prelude::*;

#[mcp_prompt]
fn review(#[mcp(length(min = 1))] topic: String) -> String {
    format!("Review {topic}")
}

#[mcp_tool]
fn rate(#[mcp(range(lowest = 1))] stars: u8) -> u8 {
    stars
}

fn main() {}
