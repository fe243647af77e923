use mcp_runtime::prelude::*;

#[mcp_resource(
    uri = "docs://readme",
    mime_type = "markdown",
    size = "4 KB",
    last_modified = "yesterday",
    audience = "user",
    priority = "high"
)]
fn readme() -> String {
    String::new()
}

fn main() {}
