use mcp_runtime::prelude::*;

/// Echo with a hand-written schema.
#[mcp_tool(input_schema = r#"{
    "type": "object",
    "properties": { "text": { "type": "string", "minLength": 1 } },
    "required": ["text"]
}"#)]
fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = tools![echo];
}
