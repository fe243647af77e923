use mcp_runtime::prelude::*;

struct Reviewer;

impl Reviewer {
    #[mcp_prompt]
    fn review(&self, code: String) -> String {
        format!("Review: {code}")
    }
}

fn main() {}
