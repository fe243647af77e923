use mcp_runtime::prelude::*;

#[mcp_tool]
fn search(
    #[mcp(rename = query)] text: String,
    #[mcp(description)] limit: u32,
    #[mcp(inject = true)] context: Context,
) -> String {
    let _ = context;
    format!("{text} {limit}")
}

fn main() {}
