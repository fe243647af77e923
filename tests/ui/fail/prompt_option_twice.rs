use mcp_runtime::prelude::*;

#[mcp_prompt(title = "Review", title = "Code review")]
fn review(code: String) -> String {
    code
}

fn complete_code(_: CompletionRequest) -> Vec<String> {
    Vec::new()
}

#[mcp_prompt(complete(code = complete_code, code = complete_code))]
fn explain(code: String) -> String {
    code
}

fn main() {}
