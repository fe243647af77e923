use mcp_runtime::prelude::*;

#[mcp_tool]
fn search(
    #[mcp(rename = "q", rename = "query")] text: String,
    #[mcp(default = 10)]
    #[mcp(default = 20)]
    limit: u32,
) -> String {
    format!("{text} {limit}")
}

fn main() {}
