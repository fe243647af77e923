use mcp_runtime::prelude::*;

/// Fetch a page.
#[mcp_tool(blocking)]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
