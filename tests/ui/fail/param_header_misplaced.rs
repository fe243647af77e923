use mcp_runtime::prelude::*;

/// An injected parameter is not an argument.
#[mcp_tool]
fn injected(#[mcp(inject, header = "Ctx")] ctx: Context) -> String {
    let _ = ctx;
    String::new()
}

/// With `input_schema`, the schema says which properties are mirrored.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {"region": {"type": "string"}}}"#)]
fn verbatim(#[mcp(header = "Region")] region: String) -> String {
    region
}

/// Prompt arguments are not mirrored in headers.
#[mcp_prompt]
fn greet(#[mcp(header = "Who")] who: String) -> String {
    format!("Hello, {who}!")
}

fn main() {}
