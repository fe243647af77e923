use mcp_runtime::prelude::*;

/// A tool whose `_meta` is an array.
#[mcp_tool(meta = r#"["com.example/ui"]"#)]
fn listed() -> &'static str {
    "listed"
}

/// A resource whose `_meta` is not JSON.
#[mcp_resource(uri = "test://r", meta = "{com.example/owner: docs}")]
fn resource() -> &'static str {
    "r"
}

/// A prompt whose `_meta` is a string.
#[mcp_prompt(meta = r#""com.example/category""#)]
fn prompt() -> &'static str {
    "p"
}

fn main() {}
