use mcp_runtime::prelude::*;

/// Scopes are single tokens, on a prompt as on a tool.
#[mcp_prompt(scopes = ["", "prompts:review code"])]
fn review(code: String) -> String {
    code
}

#[mcp_prompt(scopes = [prompts_admin])]
fn admin() -> String {
    String::new()
}

fn main() {}
