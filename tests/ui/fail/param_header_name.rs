use mcp_runtime::prelude::*;

/// Header names are HTTP tokens: not empty, no spaces, no `:`, ASCII only, no control characters.
#[mcp_tool]
fn query(
    #[mcp(header = "")] a: String,
    #[mcp(header = "My Region")] b: String,
    #[mcp(header = "Region:Primary")] c: String,
    #[mcp(header = "Région")] d: String,
    #[mcp(header = "Region\t1")] e: String,
) -> String {
    format!("{a}{b}{c}{d}{e}")
}

fn main() {}
