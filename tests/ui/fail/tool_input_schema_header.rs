use mcp_runtime::prelude::*;

/// `x-mcp-header` on a `number` property.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {"score": {"type": "number", "x-mcp-header": "Score"}}}"#)]
fn score(score: f64) -> f64 {
    score
}

/// `x-mcp-header` below `items`: not reachable through `properties` alone.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}}}"#)]
fn tags(tags: Vec<String>) -> usize {
    tags.len()
}

/// Two properties, one header.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {
    "a": {"type": "string", "x-mcp-header": "Region"},
    "b": {"type": "string", "x-mcp-header": "REGION"}
}}"#)]
fn twice(a: String, b: String) -> String {
    a + &b
}

fn main() {}
