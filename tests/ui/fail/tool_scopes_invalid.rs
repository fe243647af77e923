use mcp_runtime::prelude::*;

/// Scopes are single tokens, written as string literals.
#[mcp_tool(scopes = ["files:write files:read", "", files_admin])]
fn delete_file(path: String) -> String {
    path
}

#[mcp_tool(scopes = "files:write")]
fn write_file(path: String) -> String {
    path
}

fn main() {}
