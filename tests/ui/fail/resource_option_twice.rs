use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://a", uri = "docs://b", mime_type = "text/plain", mime_type = "text/markdown")]
fn readme() -> String {
    String::new()
}

fn main() {}
