use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme")]
struct Readme {
    text: String,
}

fn main() {}
