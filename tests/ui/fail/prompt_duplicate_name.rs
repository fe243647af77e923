use mcp_runtime::prelude::*;

#[mcp_prompt]
fn review(code: String) -> String {
    format!("Review: {code}")
}

#[mcp_prompt(name = "review")]
fn careful_review(code: String) -> String {
    format!("Review carefully: {code}")
}

fn main() {
    let _ = prompts![review, careful_review];
}
