use mcp_runtime::prelude::*;

#[mcp_prompt]
struct Review {
    code: String,
}

fn main() {}
