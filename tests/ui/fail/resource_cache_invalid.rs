use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme", ttl_ms = -1, cache_scope = "shared")]
fn readme() -> String {
    String::new()
}

#[mcp_resource(uri = "docs://changelog", ttl_ms = 1.5, cache_scope = private)]
fn changelog() -> String {
    String::new()
}

fn main() {}
