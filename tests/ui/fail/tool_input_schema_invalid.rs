use mcp_runtime::prelude::*;

/// A schema that is not JSON, and one whose root is not an object.
#[mcp_tool(input_schema = r#"{"type": "object", "properties": {"text": {"type": "string"},}}"#)]
fn echo(text: String) -> String {
    text
}

#[mcp_tool(input_schema = r#"{"type": "string"}"#)]
fn shout(text: String) -> String {
    text.to_uppercase()
}

#[mcp_tool(input_schema = r#"["text"]"#)]
fn whisper(text: String) -> String {
    text.to_lowercase()
}

fn main() {}
