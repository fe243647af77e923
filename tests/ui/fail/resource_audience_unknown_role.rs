use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme", audience = ["user", "robot"])]
fn readme() -> String {
    "# Readme".into()
}

fn main() {}
