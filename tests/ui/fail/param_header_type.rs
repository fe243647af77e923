use mcp_runtime::prelude::*;

/// A header carries a string, an integer or a boolean: not a float, a list or a struct.
#[mcp_tool]
fn query(
    #[mcp(header = "Score")] score: f64,
    #[mcp(header = "Ratio")] ratio: Option<f32>,
    #[mcp(header = "Tags")] tags: Vec<String>,
    #[mcp(header = "Filter")] filter: serde_json::Value,
) -> String {
    format!("{score} {ratio:?} {tags:?} {filter}")
}

fn main() {}
