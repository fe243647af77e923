use mcp_runtime::prelude::*;

#[mcp_prompt]
fn count(word: String) -> i32 {
    word.len() as i32
}

fn main() {}
