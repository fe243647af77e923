use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme", priority = 2.0)]
fn readme() -> String {
    "# Readme".into()
}

fn main() {}
