use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Filter {
    tag: String,
}

/// A flattened argument has no name or description of its own: its fields carry theirs.
#[mcp_tool]
fn search(#[mcp(flatten, rename = "f")] filter: Filter) -> String {
    filter.tag
}

/// A prompt's arguments are text: nothing to flatten.
#[mcp_prompt]
fn review(#[mcp(flatten)] code: String) -> String {
    code
}

fn main() {}
