use mcp_runtime::prelude::*;

#[mcp_prompt]
fn repeat(word: String, #[mcp(default = 2)] times: u8) -> String {
    vec![word; times as usize].join(" ")
}

fn main() {}
