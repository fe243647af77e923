use mcp_runtime::prelude::*;

/// Header names ignore case: `Region` and `region` are one header.
#[mcp_tool]
fn query(#[mcp(header = "Region")] region: String, #[mcp(header = "region")] fallback: String) -> String {
    format!("{region} {fallback}")
}

fn main() {}
