use mcp_runtime::prelude::*;

/// Scopes are single tokens, on a static resource as on a tool.
#[mcp_resource(uri = "config://app", scopes = ["config read", ""])]
fn config() -> String {
    String::new()
}

/// And on a template.
#[mcp_resource(uri = "notes://{id}", scopes = ["notes:\"read\""])]
fn note(id: String) -> String {
    id
}

#[mcp_resource(uri = "secrets://all", scopes = "secrets:read")]
fn secrets() -> String {
    String::new()
}

fn main() {}
