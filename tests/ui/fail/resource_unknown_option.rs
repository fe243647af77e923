use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme", mime = "text/markdown")]
fn readme() -> String {
    "# Readme".into()
}

fn main() {}
